import type { TSource, TSourceCreate, TSourceUpdate } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { DB, SourceRow } from '../db/schema.js';
import { AppError, notFound } from '../errors/app-error.js';
import { fetchSourceJob } from '../jobs/fetch-source.js';
import { indexDocumentJob } from '../jobs/index-document.js';
import type { JobQueue } from '../jobs/queue.js';
import { sha256Hex } from '../security/hashing.js';
import { newId } from '../security/ids.js';
import { requireAgent } from './agents.js';
import { recordAudit } from './audit.js';
import { iso, type Queryable, type TenantScope } from './context.js';
import { upsertDocuments } from './documents.js';

/** Lists an agent's sources; an agent of another workspace is a 404. */
export async function listAgentSources(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  agentId: string,
): Promise<TSource[]> {
  await requireAgent(scope.db, scope.workspaceId, agentId);
  const rows = await withCounts(scope.db)
    .where('sources.workspace_id', '=', scope.workspaceId)
    .where('sources.agent_id', '=', agentId)
    .orderBy('sources.id')
    .execute();
  return rows.map(toSource);
}

/** Reads one source of the workspace. */
export async function getSource(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  sourceId: string,
): Promise<TSource> {
  const row = await withCounts(scope.db)
    .where('sources.workspace_id', '=', scope.workspaceId)
    .where('sources.id', '=', sourceId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return toSource(row);
}

/** Changes a synced site's `plugin_base` (only sources a site plugin created have one). Audited. */
export async function updateSource(
  scope: TenantScope,
  sourceId: string,
  input: TSourceUpdate,
): Promise<TSource> {
  await scope.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('sources')
      .select(['id', 'type', 'plugin_base'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', sourceId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw notFound();
    // Both sources a site plugin creates (site content, products) know where its routes are:
    // a shop that syncs only products must be able to correct it too.
    if (current.plugin_base === null) {
      throw new AppError('validation_failed', {
        message: 'Only the sources of a synced site have a plugin_base.',
        errors: { plugin_base: ['Only the sources of a synced site have a plugin_base.'] },
      });
    }
    await trx
      .updateTable('sources')
      .set({ plugin_base: input.plugin_base, updated_at: new Date() })
      .where('id', '=', sourceId)
      .where('workspace_id', '=', scope.workspaceId)
      .execute();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'source.updated',
      target: { type: 'source', id: sourceId },
      metadata: { plugin_base: { from: current.plugin_base, to: input.plugin_base } },
      requestId: scope.requestId,
    });
  });
  return getSource(scope, sourceId);
}

/** Source types an admin manages here; `site` and `products` belong to a site plugin's syncs. */
const ADMIN_SOURCE_TYPES: ReadonlySet<string> = new Set(['text', 'url']);

/**
 * Adds a `text` or `url` source to an agent of the workspace. A text source stores its one
 * document and queues its indexing; a url source is queued for a guarded fetch. Audited, and
 * the job exists exactly when the source commits.
 */
export async function createSource(
  scope: TenantScope & { queue: JobQueue },
  agentId: string,
  input: TSourceCreate,
): Promise<TSource> {
  const sourceId = newId();
  await scope.db.transaction().execute(async (trx) => {
    await requireAgent(trx, scope.workspaceId, agentId);
    const name = input.name || (input.type === 'url' ? input.url : 'Pasted text');
    await trx
      .insertInto('sources')
      .values({
        id: sourceId,
        workspace_id: scope.workspaceId,
        agent_id: agentId,
        type: input.type,
        name,
        status: input.type === 'text' ? 'indexing' : 'queued',
        config: JSON.stringify(input.type === 'url' ? { url: input.url } : {}),
      })
      .execute();
    if (input.type === 'text') {
      const hash = sha256Hex(input.text);
      const text = input.text;
      await upsertDocuments(
        trx,
        scope.queue,
        { id: sourceId, workspace_id: scope.workspaceId, agent_id: agentId },
        [
          {
            externalId: 'text',
            hash,
            toDocument: () => ({
              externalId: 'text',
              kind: 'text',
              title: name,
              url: null,
              language: null,
              text,
              hash,
              metadata: {},
              modifiedAt: null,
            }),
          },
        ],
      );
    } else {
      await scope.queue.send(fetchSourceJob, { sourceId }, { key: sourceId, db: trx });
    }
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'source.created',
      target: { type: 'source', id: sourceId },
      metadata: {
        agent_id: agentId,
        type: input.type,
        name,
        ...(input.type === 'url' ? { url: input.url } : {}),
      },
      requestId: scope.requestId,
    });
  });
  return getSource(scope, sourceId);
}

/** Deletes a source with its documents and chunks (by cascade). Audited. */
export async function deleteSource(scope: TenantScope, sourceId: string): Promise<void> {
  await scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('sources')
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', sourceId)
      .returning(['id', 'agent_id', 'type', 'name'])
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'source.deleted',
      target: { type: 'source', id: row.id },
      metadata: { agent_id: row.agent_id, type: row.type, name: row.name },
      requestId: scope.requestId,
    });
  });
}

/**
 * Re-indexes a source: a url source is queued for a fresh fetch (its page is re-indexed only
 * if its content hash changed); a text source's document is queued only if it is not indexed
 * at its current hash. Site plugin sources are refreshed by their syncs (422). Audited.
 */
export async function reindexSource(
  scope: TenantScope & { queue: JobQueue },
  sourceId: string,
): Promise<TSource> {
  await scope.db.transaction().execute(async (trx) => {
    const source = await trx
      .selectFrom('sources')
      .select(['id', 'type'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', sourceId)
      .forUpdate()
      .executeTakeFirst();
    if (!source) throw notFound();
    if (!ADMIN_SOURCE_TYPES.has(source.type)) {
      const message = 'Only text and url sources can be re-indexed; a site plugin re-syncs its own.';
      throw new AppError('validation_failed', { message, errors: { type: [message] } });
    }
    let queued = 0;
    if (source.type === 'url') {
      await trx
        .updateTable('sources')
        .set({ status: 'queued', error: null, updated_at: new Date() })
        .where('id', '=', sourceId)
        .execute();
      await scope.queue.send(fetchSourceJob, { sourceId }, { key: sourceId, db: trx });
      queued = 1;
    } else {
      const stale = await trx
        .selectFrom('documents')
        .select('id')
        .where('source_id', '=', sourceId)
        .where((eb) =>
          eb.or([
            eb('index_status', '<>', 'indexed'),
            eb('indexed_hash', 'is', null),
            eb('indexed_hash', '<>', eb.ref('content_hash')),
          ]),
        )
        .execute();
      if (stale.length > 0) {
        await trx
          .updateTable('sources')
          .set({ status: 'indexing', error: null, updated_at: new Date() })
          .where('id', '=', sourceId)
          .execute();
        await scope.queue.sendMany(
          indexDocumentJob,
          stale.map((doc) => ({ payload: { documentId: doc.id }, key: doc.id })),
          { db: trx },
        );
      }
      queued = stale.length;
    }
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'source.reindexed',
      target: { type: 'source', id: sourceId },
      metadata: { type: source.type, queued },
      requestId: scope.requestId,
    });
  });
  return getSource(scope, sourceId);
}

function withCounts(db: Queryable | Kysely<DB>) {
  return db
    .selectFrom('sources')
    .selectAll('sources')
    .select((eb) => [
      eb
        .selectFrom('documents')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('documents.source_id', '=', 'sources.id')
        .as('document_count'),
      sql<
        number | null
      >`jsonb_array_length(case when jsonb_typeof(sources.config->'coupons') = 'array' then sources.config->'coupons' end)`.as(
        'coupon_count',
      ),
    ]);
}

function toSource(row: SourceRow & { document_count: string | null; coupon_count: number | null }): TSource {
  return {
    id: row.id,
    agent_id: row.agent_id,
    type: row.type,
    name: row.name,
    status: row.status,
    error: row.error,
    site_url: row.site_url,
    plugin_version: row.plugin_version,
    plugin_base: row.plugin_base,
    last_synced_at: iso(row.last_synced_at),
    document_count: Number(row.document_count ?? 0),
    coupon_count: row.coupon_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
