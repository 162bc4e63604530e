import type { TSource, TSourceCreate, TSourceUpdate } from '@service/contract';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import { AppError, notFound } from '../../errors/app-error.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { fetchSourceSpec, indexDocumentSpec } from '../../queue/job-specs.js';
import { newId } from '../../security/ids.js';
import { validateSelect } from '../../sql-source/validate-select.js';
import { recordAudit } from '../audit.js';
import { assertPlanAllows } from '../billing/plan-limits.js';
import type { TenantScope } from '../context.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';
import { requireAgent } from '../require-agent.js';
import { forgetWidgetAgents } from '../widget/widget-agent-cache.js';
import { storeSourceDocument } from './documents.js';
import { KB_SOURCE_TYPE, type KbIndexing, syncKbForAgent } from './kb-index.js';
import { auditDetails, defaultName, storedConfig } from './source-config.js';
import { type SourceView, toSource, withCounts } from './source-view.js';

/**
 * A page of an agent's sources, oldest first; keyset on the id over `sources (workspace_id,
 * agent_id, id)`. Another workspace's agent is a 404; the cursor is bound to the agent, so
 * another agent's cursor is a 422.
 */
export async function listAgentSources(
  scope: SourceView,
  agentId: string,
  page: PageRequest,
): Promise<Page<TSource>> {
  await requireAgent(scope.db, scope.workspaceId, agentId);
  const binding = { list: `sources:${page.order}`, workspaceId: scope.workspaceId, parentId: agentId };
  const after = pageStart(page, binding);
  let query = withCounts(scope.db, scope.embeddingsKey ?? null)
    .where('sources.workspace_id', '=', scope.workspaceId)
    .where('sources.agent_id', '=', agentId)
    .orderBy('sources.id', page.order)
    .limit(page.limit + 1);
  if (after !== undefined) query = query.where('sources.id', afterOperator(page), after);
  return pageOf(await query.execute(), page, binding, (row) => toSource(row, scope.embeddingsKey ?? null));
}

/** Reads one source of the workspace. */
export async function getSource(scope: SourceView, sourceId: string): Promise<TSource> {
  const row = await withCounts(scope.db, scope.embeddingsKey ?? null)
    .where('sources.workspace_id', '=', scope.workspaceId)
    .where('sources.id', '=', sourceId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return toSource(row, scope.embeddingsKey ?? null);
}

/** Changes a synced site's `plugin_base` (only sources a site plugin created have one). Audited. */
export async function updateSource(
  scope: TenantScope & Pick<SourceView, 'embeddingsKey'>,
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
      .set({ plugin_base: input.plugin_base, updated_at: scope.clock.now() })
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
  forgetWidgetAgents();
  return getSource(scope, sourceId);
}

/** Sources whose content the service fetches itself (a job re-fetches them on re-index). */
const FETCHED_TYPES: ReadonlySet<string> = new Set(['url', 'crawl', 'sitemap', 'sql']);
/** Sources whose text is stored with them (re-index needs no new input). */
const STORED_TYPES: ReadonlySet<string> = new Set(['text', 'upload']);

/**
 * Adds a source to an agent of the workspace: a text source stores its one document and queues
 * its indexing; url, crawl, sitemap and sql sources are queued for a fetch (through the
 * crawl-safety guard). An SQL query must be a single read-only SELECT (422 otherwise) and the
 * password is sealed with APP_KEY before it is stored. Audited (never with the password), and
 * the job exists exactly when the source commits.
 */
export async function createSource(
  scope: TenantScope & Pick<SourceView, 'embeddingsKey'> & { queue: JobQueue; appKey: Buffer },
  agentId: string,
  input: TSourceCreate,
): Promise<TSource> {
  const sourceId = newId();
  if (input.type === 'sql') {
    const check = validateSelect(input.query, input.engine);
    if (!check.ok) {
      throw new AppError('validation_failed', { message: check.reason, errors: { query: [check.reason] } });
    }
    // What is stored and run is the one statement the check returned (no trailing semicolon).
    input = { ...input, query: check.sql };
  }
  await scope.db.transaction().execute(async (trx) => {
    await requireAgent(trx, scope.workspaceId, agentId);
    await assertPlanAllows(trx, scope.workspaceId, { sources: 1 });
    const name = input.name || defaultName(input);
    await trx
      .insertInto('sources')
      .values({
        id: sourceId,
        workspace_id: scope.workspaceId,
        agent_id: agentId,
        type: input.type,
        name,
        status: input.type === 'text' ? 'indexing' : 'queued',
        config: JSON.stringify(storedConfig(input, sourceId, scope.appKey)),
      })
      .execute();
    if (input.type === 'text') {
      await storeSourceDocument(
        trx,
        scope.queue,
        { id: sourceId, workspace_id: scope.workspaceId, agent_id: agentId },
        { externalId: 'text', kind: 'text', title: name, text: input.text, metadata: {} },
      );
    } else {
      await scope.queue.send(fetchSourceSpec, { sourceId }, { key: sourceId, db: trx });
    }
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'source.created',
      target: { type: 'source', id: sourceId },
      metadata: { agent_id: agentId, type: input.type, name, ...auditDetails(input) },
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
  forgetWidgetAgents();
}

/**
 * Re-indexes a source. Fetched sources (url, crawl, sitemap, sql) are queued for a fresh fetch,
 * which re-indexes only documents whose content hash changed and removes pages or rows that are
 * gone; stored ones (text, upload) queue only documents not indexed at their current hash; a kb
 * source is rebuilt from the workspace's published articles.
 * Site plugin sources are refreshed by their syncs (422). Audited.
 */
export async function reindexSource(scope: TenantScope & KbIndexing, sourceId: string): Promise<TSource> {
  await scope.db.transaction().execute(async (trx) => {
    const source = await trx
      .selectFrom('sources')
      .select(['id', 'type', 'agent_id'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', sourceId)
      .forUpdate()
      .executeTakeFirst();
    if (!source) throw notFound();
    let queued = 0;
    if (FETCHED_TYPES.has(source.type)) {
      await trx
        .updateTable('sources')
        .set({ status: 'queued', error: null, updated_at: scope.clock.now() })
        .where('id', '=', sourceId)
        .execute();
      await scope.queue.send(fetchSourceSpec, { sourceId }, { key: sourceId, db: trx });
      queued = 1;
    } else if (STORED_TYPES.has(source.type)) {
      queued = await queueStaleDocuments(trx, scope.queue, scope.clock, sourceId);
    } else if (source.type === KB_SOURCE_TYPE) {
      // The agent's copy of the published articles is rebuilt from the articles themselves.
      const synced = await syncKbForAgent(trx, scope.queue, {
        workspaceId: scope.workspaceId,
        clock: scope.clock,
        agentId: source.agent_id,
        publicBaseUrl: scope.publicBaseUrl,
        embeddingsKey: scope.embeddingsKey,
      });
      queued = synced.queued + (await queueStaleDocuments(trx, scope.queue, scope.clock, sourceId));
    } else {
      const message = 'Sources of a site plugin are refreshed by its syncs and cannot be re-indexed here.';
      throw new AppError('validation_failed', { message, errors: { type: [message] } });
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

/** Queues the index job of every document of the source not indexed at its current hash. */
async function queueStaleDocuments(
  trx: Queryable,
  queue: JobQueue,
  clock: Clock,
  sourceId: string,
): Promise<number> {
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
  if (stale.length === 0) return 0;
  // Documents whose index job gave up are pending again: the source waits for their new jobs.
  await trx
    .updateTable('documents')
    .set({ index_status: 'pending' })
    .where('source_id', '=', sourceId)
    .where('index_status', '=', 'failed')
    .execute();
  await trx
    .updateTable('sources')
    .set({ status: 'indexing', error: null, updated_at: clock.now() })
    .where('id', '=', sourceId)
    .execute();
  await queue.sendMany(
    indexDocumentSpec,
    stale.map((doc) => ({ payload: { documentId: doc.id }, key: doc.id })),
    { db: trx },
  );
  return stale.length;
}
