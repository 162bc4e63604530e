import {
  defaultPluginBase,
  normalizeSiteUrl,
  type TChangeResult,
  type TCoupon,
  type THandshakeResponse,
  type TPost,
  type TProduct,
  type TSyncResult,
} from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { DB, SourceRow } from '../../db/schema.js';
import { notFound } from '../../errors/app-error.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { newId } from '../../security/ids.js';
import { getWorkspace } from '../accounts/accounts.js';
import { requireAgent } from '../require-agent.js';
import { forgetWidgetAgents } from '../widget/widget-agent-cache.js';
import { upsertDocuments } from './documents.js';
import { type FullSyncBatch, recordFullSyncBatch } from './full-sync.js';
import {
  type ConvertedBatch,
  convertChangedRecords,
  postRecord,
  productRecord,
  type SyncRecord,
  settleBatch,
} from './site-sync-items.js';

/** The verified caller of a site-integration route: its token and (from it) its workspace. */
export type IntegrationCaller = { tokenId: string; workspaceId: string };

/** What every sync call names: the agent, the site and the plugin version. */
export type SyncTarget = { agent_id: string; site_url: string; plugin_version: string };

/** What sync needs: the store, the queue for index jobs, and the caller. */
export type SyncDeps = { db: Kysely<DB>; clock: Clock; queue: JobQueue; caller: IntegrationCaller };

/** Source types the plugin feeds: posts go to the `site` source, products and coupons to `products`. */
type SiteSourceType = 'site' | 'products';

/**
 * Answers the handshake. Reads only: the token's `last_used_at`, the one write a handshake
 * makes, is recorded by the integration surface (`recordTokenUse`) once the request passed
 * every check, as for every other integration call.
 */
export async function handshake(
  db: Kysely<DB>,
  caller: IntegrationCaller,
  input: { site_url: string; plugin_version: string; commerce_active: boolean },
): Promise<THandshakeResponse> {
  const token = await db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'abilities', 'shopper_signing_secret'])
    .where('id', '=', caller.tokenId)
    .where('workspace_id', '=', caller.workspaceId)
    .executeTakeFirst();
  if (!token) throw notFound();
  const workspace = await getWorkspace(db, caller.workspaceId);
  const agents = await db
    .selectFrom('agents')
    .select(['id', 'name', 'site_type', 'language_default', 'is_published'])
    .where('workspace_id', '=', caller.workspaceId)
    .orderBy('id')
    .execute();
  return {
    workspace: { id: workspace.id, name: workspace.name },
    agents,
    token,
    recommended_site_type: input.commerce_active ? 'ecommerce' : null,
    echo: { site_url: input.site_url, plugin_version: input.plugin_version },
  };
}

/**
 * Upserts a batch of posts: changed or new ones are stored and queued, equal hashes skipped.
 * Their HTML is converted to text in the extraction pool before the write transaction; a post
 * whose HTML cannot be converted within the limits is reported in `failures` and not stored,
 * the others are. A batch of a full sync run (`full_sync`) is recorded in its run (failed posts
 * count as listed); the run's final batch removes the posts the run did not list (see
 * full-sync.ts) and counts them in `deleted`.
 */
export async function syncPosts(
  deps: SyncDeps,
  body: SyncTarget & { posts: TPost[]; full_sync?: FullSyncBatch | undefined },
): Promise<TSyncResult> {
  const batch = await convertBatch(deps, body, 'site', body.posts.map(postRecord));
  return deps.db.transaction().execute(async (trx) => {
    const { source } = await prepare(trx, deps, body, 'site');
    const result = await storeBatch(trx, deps.queue, source, batch);
    const deleted = body.full_sync
      ? await recordFullSyncBatch(trx, source.id, body.full_sync, batch.records)
      : 0;
    return { ...result, deleted };
  });
}

/** What a delete delta converts: nothing. */
const NOTHING: ConvertedBatch = Object.freeze({ records: [], documents: new Map(), failures: new Map() });

/**
 * Resolves the agent (404 before any work) and converts the records that changed, off the
 * request thread (site-sync-items.ts).
 */
async function convertBatch(
  deps: SyncDeps,
  body: SyncTarget,
  type: SiteSourceType,
  records: SyncRecord[],
): Promise<ConvertedBatch> {
  return convertChangedRecords(
    deps.db,
    { workspaceId: deps.caller.workspaceId, agentId: body.agent_id, type, siteUrl: body.site_url },
    records,
  );
}

/** Stores a converted batch's changed records; counts them, the unchanged ones and the failures. */
async function storeBatch(
  trx: Queryable,
  queue: JobQueue,
  source: SourceRow,
  batch: ConvertedBatch,
): Promise<Omit<TSyncResult, 'deleted'>> {
  const settled = await settleBatch(trx, source.id, batch);
  const written =
    settled.changed.length === 0
      ? { queued: 0, skipped_unchanged: 0 }
      : await upsertDocuments(trx, queue, source, settled.changed);
  return {
    queued: written.queued,
    skipped_unchanged: written.skipped_unchanged + settled.unchanged,
    failed: settled.failures.length,
    failures: settled.failures,
  };
}

/** Applies one post delta (`upsert` or `delete`); deleting an unknown post is a no-op. */
export async function changePost(
  deps: SyncDeps,
  body: SyncTarget & { change: { action: 'upsert'; item: TPost } | { action: 'delete'; wp_id: number } },
): Promise<TChangeResult> {
  const { change } = body;
  const batch =
    change.action === 'upsert' ? await convertBatch(deps, body, 'site', [postRecord(change.item)]) : NOTHING;
  return deps.db.transaction().execute(async (trx) => {
    const { source } = await prepare(trx, deps, body, 'site');
    if (change.action === 'delete') return deleteDocument(trx, source, change.wp_id);
    return changeResult(await storeBatch(trx, deps.queue, source, batch));
  });
}

/**
 * Upserts a batch of products; the agent's first product makes a `generic` agent `ecommerce`.
 * HTML is converted and failures reported as for posts. Full sync runs work as for posts: the
 * final batch removes the products the run did not list.
 */
export async function syncProducts(
  deps: SyncDeps,
  body: SyncTarget & { products: TProduct[]; full_sync?: FullSyncBatch | undefined },
): Promise<TSyncResult> {
  const batch = await convertBatch(deps, body, 'products', body.products.map(productRecord));
  const written = await deps.db.transaction().execute(async (trx) => {
    const { source, agent } = await prepare(trx, deps, body, 'products');
    if (body.products.length > 0) await switchToEcommerceOnFirstProduct(trx, agent, source, deps.clock);
    const result = await storeBatch(trx, deps.queue, source, batch);
    const deleted = body.full_sync
      ? await recordFullSyncBatch(trx, source.id, body.full_sync, batch.records)
      : 0;
    return { ...result, deleted };
  });
  // The first product may have made the agent `ecommerce`.
  forgetWidgetAgents();
  return written;
}

/** Applies one product delta (`upsert` or `delete`). */
export async function changeProduct(
  deps: SyncDeps,
  body: SyncTarget & { change: { action: 'upsert'; item: TProduct } | { action: 'delete'; wp_id: number } },
): Promise<TChangeResult> {
  const { change } = body;
  const batch =
    change.action === 'upsert'
      ? await convertBatch(deps, body, 'products', [productRecord(change.item)])
      : NOTHING;
  const written = await deps.db.transaction().execute(async (trx) => {
    const { source, agent } = await prepare(trx, deps, body, 'products');
    if (change.action === 'delete') return deleteDocument(trx, source, change.wp_id);
    await switchToEcommerceOnFirstProduct(trx, agent, source, deps.clock);
    return changeResult(await storeBatch(trx, deps.queue, source, batch));
  });
  // The first product may have made the agent `ecommerce`.
  forgetWidgetAgents();
  return written;
}

/** Replaces the coupon list stored on the agent's products source (config key `coupons`). */
export async function syncCoupons(
  deps: SyncDeps,
  body: SyncTarget & { coupons: TCoupon[] },
): Promise<{ stored: number }> {
  const written = await deps.db.transaction().execute(async (trx) => {
    const { source } = await prepare(trx, deps, body, 'products');
    await trx
      .updateTable('sources')
      .set({
        config: sql`jsonb_set(config, '{coupons}', ${JSON.stringify(body.coupons)}::jsonb, true)`,
        updated_at: deps.clock.now(),
      })
      .where('id', '=', source.id)
      .execute();
    return { stored: body.coupons.length };
  });
  forgetWidgetAgents();
  return written;
}

/** How stale a source's `last_synced_at` may get before an otherwise unchanged sync rewrites it. */
const LAST_SYNC_RESOLUTION_MS = 60_000;

/** Resolves the agent in the caller's workspace (404 otherwise) and records the sync on its source. */
async function prepare(
  trx: Queryable,
  deps: Pick<SyncDeps, 'caller' | 'clock'>,
  body: SyncTarget,
  type: SiteSourceType,
) {
  const { caller } = deps;
  // Product syncs may switch the agent's site type: concurrent ones take turns on the agent row.
  const agent = await requireAgent(trx, caller.workspaceId, body.agent_id, {
    forUpdate: type === 'products',
  });
  const siteUrl = normalizeSiteUrl(body.site_url);
  const now = deps.clock.now();
  const existing = await trx
    .selectFrom('sources')
    .selectAll()
    .where('agent_id', '=', agent.id)
    .where('type', '=', type)
    .where('site_url', '=', siteUrl)
    .executeTakeFirst();
  // Repeated syncs from the same plugin within a minute need no write (like a token's last_used_at).
  if (
    existing &&
    existing.plugin_version === body.plugin_version &&
    existing.api_token_id === caller.tokenId &&
    existing.last_synced_at &&
    now.getTime() - existing.last_synced_at.getTime() < LAST_SYNC_RESOLUTION_MS
  ) {
    return { agent, source: existing };
  }
  const source = await trx
    .insertInto('sources')
    .values({
      id: newId(),
      workspace_id: caller.workspaceId,
      agent_id: agent.id,
      type,
      name: type === 'site' ? `${siteUrl} (site content)` : `${siteUrl} (products)`,
      site_url: siteUrl,
      plugin_version: body.plugin_version,
      plugin_base: defaultPluginBase(siteUrl),
      api_token_id: caller.tokenId,
      last_synced_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['agent_id', 'type', 'site_url']).where('site_url', 'is not', null).doUpdateSet({
        plugin_version: body.plugin_version,
        api_token_id: caller.tokenId,
        last_synced_at: now,
        updated_at: now,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return { agent, source };
}

async function deleteDocument(trx: Queryable, source: SourceRow, wpId: number): Promise<TChangeResult> {
  const removed = await trx
    .deleteFrom('documents')
    .where('source_id', '=', source.id)
    .where('external_id', '=', String(wpId))
    .returning('id')
    .executeTakeFirst();
  return {
    action: 'delete',
    result: removed ? 'deleted' : 'not_found',
    queued: 0,
    skipped_unchanged: 0,
    deleted: removed ? 1 : 0,
    failed: 0,
    failures: [],
  };
}

/** An upsert delta's answer: its one item queued, unchanged, or failed (with the reason). */
function changeResult(result: Omit<TSyncResult, 'deleted'>): TChangeResult {
  const outcome = result.failed > 0 ? 'failed' : result.queued > 0 ? 'queued' : 'skipped_unchanged';
  return { action: 'upsert', result: outcome, ...result, deleted: 0 };
}

/** The first product upsert on a `generic` agent makes it `ecommerce`, silently; other types never change. */
async function switchToEcommerceOnFirstProduct(
  trx: Queryable,
  agent: { id: string; site_type: string },
  source: SourceRow,
  clock: Clock,
) {
  if (agent.site_type !== 'generic') return;
  const anyProduct = await trx
    .selectFrom('documents')
    .select('id')
    .where('agent_id', '=', agent.id)
    .where('kind', '=', 'product')
    .limit(1)
    .executeTakeFirst();
  if (anyProduct) return;
  await trx
    .updateTable('agents')
    .set({ site_type: 'ecommerce', updated_at: clock.now() })
    .where('id', '=', agent.id)
    .where('workspace_id', '=', source.workspace_id)
    .execute();
}
