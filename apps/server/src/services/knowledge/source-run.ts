import type { TSourceProgress, TSourceRunCounts } from '@service/contract';
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { SourceRow } from '../../db/schema.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { maintainStoreSpec } from '../../queue/job-specs.js';
import { publishSourceProgress } from '../events/source-events.js';
import { type IndexedSource, onSourcesIndexed } from './evaluation-trigger.js';
import { clearFailures, type PageFailure, recordFailures } from './source-failures.js';

/** The source columns a fetch needs. */
export type SourceRef = Pick<SourceRow, 'id' | 'workspace_id' | 'agent_id' | 'type' | 'config'>;

/** What one fetch of a source did, as `progress.last_run` shows it. */
export type RunSummary = Omit<NonNullable<TSourceProgress['last_run']>, 'finished_at'>;

/** A running fetch's counts, without its start time. */
export type RunCounts = Omit<TSourceRunCounts, 'started_at'>;

/**
 * Marks a source as being fetched (`fetching`), with zero live counts (`progress.run`), and
 * forgets the failed pages of earlier fetches. Index jobs finishing meanwhile never settle a
 * `fetching` source: only the end of the fetch ({@link finishRun}) hands it to `indexing`.
 */
export async function startRun(db: Queryable, clock: Clock, sourceId: string): Promise<void> {
  const now = clock.now();
  const run: TSourceRunCounts = {
    started_at: now.toISOString(),
    found: 0,
    fetched: 0,
    failed: 0,
    skipped: 0,
  };
  await db
    .updateTable('sources')
    .set({
      status: 'fetching',
      updated_at: now,
      progress: sql<string>`jsonb_set(progress, '{run}', ${JSON.stringify(run)}::jsonb)`,
    })
    .where('id', '=', sourceId)
    .execute();
  await clearFailures(db, sourceId);
  await publishSourceProgress(db, [sourceId], now);
}

/**
 * Records how far the running fetch is (`progress.run`, kept only while the source is
 * `fetching`) and the pages that failed since the last call.
 */
export async function recordRunProgress(
  db: Queryable,
  clock: Clock,
  sourceId: string,
  counts: RunCounts,
  failures: readonly PageFailure[],
): Promise<void> {
  const update = sql`jsonb_build_object('found', ${counts.found}::int, 'fetched', ${counts.fetched}::int,
    'failed', ${counts.failed}::int, 'skipped', ${counts.skipped}::int)`;
  await db
    .updateTable('sources')
    .set({
      progress: sql<string>`jsonb_set(progress, '{run}', coalesce(progress->'run', '{}') || ${update})`,
    })
    .where('id', '=', sourceId)
    .where('status', '=', 'fetching')
    .execute();
  await recordFailures(db, sourceId, failures, clock.now());
  await publishSourceProgress(db, [sourceId], clock.now());
}

/** Marks the source failed with the reason, verbatim; documents from earlier fetches stay. */
export async function failRun(db: Queryable, clock: Clock, sourceId: string, reason: string): Promise<void> {
  await db
    .updateTable('sources')
    .set({
      status: 'failed',
      error: reason,
      updated_at: clock.now(),
      progress: sql<string>`progress - 'run'`,
    })
    .where('id', '=', sourceId)
    .execute();
  await publishSourceProgress(db, [sourceId], clock.now());
}

/**
 * Records a finished fetch: the summary as `progress.last_run`, the error cleared, and the status
 * `fetching` → `indexing`, then `indexed` at once when nothing is left to index or embed (a fetch
 * that stored nothing new). A source set back to `queued` by a re-index during the fetch stays
 * `queued` for the fetch that follows. Takes the source row's lock first, so an index job that
 * settles at the same moment waits and then sees this fetch's outcome.
 */
export async function finishRun(
  db: Queryable,
  clock: Clock,
  sourceId: string,
  summary: RunSummary,
  embeddingsKey?: string | null,
  evaluations?: EvaluationTrigger,
): Promise<void> {
  const now = clock.now();
  await lockSources(db, [sourceId]);
  await db
    .updateTable('sources')
    .set({
      status: sql<string>`case when status = 'fetching' then 'indexing' else status end`,
      error: null,
      last_synced_at: now,
      updated_at: now,
      progress: JSON.stringify({ last_run: { ...summary, finished_at: now.toISOString() } }),
    })
    .where('id', '=', sourceId)
    .execute();
  await settleLocked(db, [sourceId], {
    embeddingsKey: embeddingsKey ?? null,
    embeddingsFailed: false,
    evaluations,
  });
  await publishSourceProgress(db, [sourceId], now);
}

/** Deletes the source's documents (and, by cascade, chunks) whose external id is not kept. */
export async function removeDocumentsExcept(
  db: Queryable,
  sourceId: string,
  keep: readonly string[],
): Promise<number> {
  const result = await db
    .deleteFrom('documents')
    .where('source_id', '=', sourceId)
    .where(sql<boolean>`external_id <> all(${[...keep]}::text[])`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What a source's `error` says when its embedding run gave up (the source stays usable). */
export const VECTORS_FAILED_NOTE = 'vectors could not be computed; full-text search only';

/** How {@link settleSources} decides that a source's vectors are written. */
export type SettleOptions = {
  /** The active embedding provider's key; null or absent when vectors are off. */
  embeddingsKey?: string | null;
  /** The embedding run gave up: settle without vectors and say so in `error`. */
  embeddingsFailed?: boolean;
  /** Where sources that become `indexed` queue their agents' re-index evaluations; absent: none. */
  evaluations?: EvaluationTrigger;
};

/** The queue and clock a settle hands {@link onSourcesIndexed}. */
export type EvaluationTrigger = { queue: JobQueue; clock: Clock };

/**
 * Settles `indexing` sources whose work is done: no document waits for its index job and (with
 * embeddings on) every chunk of their documents has its vector. A source then becomes `indexed`
 * (error null), `indexed` with `error` "N of M documents could not be indexed" when some index
 * jobs gave up (followed by the first failed document's title and reason, when a reason is
 * known), or `failed` when every one of its documents did. `fetching` and `queued` sources
 * are left alone: their fetch settles them when it finishes.
 *
 * Called after each index job commits, after each embedding run and when documents are removed.
 * Each call takes the sources' row locks first, in its own statement, so the check that follows
 * sees every commit before it: two jobs finishing together cannot both miss each other's work.
 * Pass a transaction that holds no document row locks (the index job calls it after its own
 * transaction), or the database handle. Returns how many sources it settled.
 */
export async function settleSources(
  db: Queryable,
  sourceIds: readonly string[],
  options: SettleOptions = {},
): Promise<number> {
  const ids = [...new Set(sourceIds)];
  if (ids.length === 0) return 0;
  const settle = async (trx: Queryable) => {
    await lockSources(trx, ids);
    return settleLocked(trx, ids, {
      embeddingsKey: options.embeddingsKey ?? null,
      embeddingsFailed: options.embeddingsFailed ?? false,
      evaluations: options.evaluations,
    });
  };
  if (db.isTransaction) return settle(db);
  return db.transaction().execute(settle);
}

/**
 * Hands an agent's sources that read `indexed` with the vector note (an earlier embedding run
 * gave up) back to `indexing`, for the settle that follows a run that wrote vectors: they become
 * `indexed` without the note once every chunk has its vector. Returns their ids.
 */
export async function reopenVectorlessSources(
  db: Queryable,
  clock: Clock,
  agentId: string,
): Promise<string[]> {
  const rows = await db
    .updateTable('sources')
    .set({ status: 'indexing', updated_at: clock.now() })
    .where('agent_id', '=', agentId)
    .where('status', '=', 'indexed')
    .where(sql<boolean>`position(${VECTORS_FAILED_NOTE} in coalesce(error, '')) > 0`)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Takes the sources' row locks in id order (so two callers never deadlock). */
async function lockSources(db: Queryable, ids: readonly string[]): Promise<void> {
  await db
    .selectFrom('sources')
    .select('id')
    .where('id', 'in', [...ids].sort())
    .orderBy('id')
    .forUpdate()
    .execute();
}

async function settleLocked(
  db: Queryable,
  ids: readonly string[],
  options: {
    embeddingsKey: string | null;
    embeddingsFailed: boolean;
    evaluations?: EvaluationTrigger | undefined;
  },
): Promise<number> {
  const { embeddingsKey, embeddingsFailed } = options;
  // Chunks of the source's documents without a vector under the active provider.
  const vectorsMissing = embeddingsKey
    ? sql<boolean>`exists (
        select 1 from chunks c join documents d on d.id = c.document_id
        where d.source_id = s.id
          and not exists (
            select 1 from embeddings e
            where e.agent_id = c.agent_id and e.model = ${embeddingsKey} and e.content_hash = c.content_hash))`
    : sql<boolean>`false`;
  const vectorNote = embeddingsFailed ? sql<string>`${VECTORS_FAILED_NOTE}::text` : sql<string>`null`;
  const result = await sql<IndexedSource & { status: string }>`
    update sources s set
      status = case when n.failed > 0 and n.indexed = 0 then 'failed' else 'indexed' end,
      error = nullif(concat_ws('; ',
        case when n.failed > 0 then n.failed || ' of ' || n.total || ' documents could not be indexed'
          || coalesce(' (' || n.first_reason || ')', '') end,
        ${vectorNote}), ''),
      updated_at = now()
    from (
      select src.id,
        count(d.id) as total,
        count(d.id) filter (where d.index_status = 'indexed') as indexed,
        count(d.id) filter (where d.index_status = 'failed') as failed,
        count(d.id) filter (where d.index_status = 'pending') as pending,
        (array_agg('"' || d.title || '": ' || d.index_error order by d.title, d.id)
          filter (where d.index_status = 'failed' and d.index_error is not null))[1] as first_reason
      from sources src left join documents d on d.source_id = src.id
      where src.id = any(${[...ids]}::text[])
      group by src.id
    ) n
    where s.id = n.id
      and s.status = 'indexing'
      -- In a CASE the vector check runs only once nothing is pending: a bare NOT EXISTS here
      -- is planned as an anti-join over all the source's chunks on every call (measured: most
      -- of the embedded store's time while a large source was indexed).
      and case when n.pending = 0 then not (${vectorsMissing}) else false end
    returning s.id, s.agent_id, s.status`.execute(db);
  await afterSourcesSettled(db, result.rows, options.evaluations);
  // The settled status reaches the console's streams (when the caller passed its clock).
  const clock = options.evaluations?.clock;
  if (clock)
    await publishSourceProgress(
      db,
      result.rows.map((row) => row.id),
      clock.now(),
    );
  return result.rows.length;
}

/**
 * The hook on a source's transition to `indexed`: the sources that just became `indexed` (not
 * `failed`) queue their agents' re-index evaluations, in the settling transaction.
 */
async function afterSourcesSettled(
  db: Queryable,
  settled: ReadonlyArray<IndexedSource & { status: string }>,
  evaluations: EvaluationTrigger | undefined,
): Promise<void> {
  const indexed = settled.filter((source) => source.status === 'indexed');
  if (!evaluations || indexed.length === 0) return;
  await onSourcesIndexed(db, evaluations.queue, evaluations.clock, indexed);
  // The tables the run filled get fresh planner statistics now: on the embedded store (no
  // autovacuum) they would otherwise wait for the next scheduled maintenance, and searches on
  // the new chunks are planned with the old counts meanwhile.
  await evaluations.queue.send(maintainStoreSpec, { reason: 'indexed' }, { db });
}
