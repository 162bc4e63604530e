import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';

/**
 * A run's batches may be this far apart; an idle run is forgotten (and opens afresh if it
 * resumes). A finished run is remembered as long, so its final batch sent again is harmless.
 */
export const FULL_SYNC_IDLE_HOURS = 24;
/** Open runs kept per source; opening one more forgets the least recently active. */
export const FULL_SYNC_OPEN_RUNS_MAX = 20;

/** A batch's `full_sync` field: its run, whether it is the last batch, the post types it covers. */
export type FullSyncBatch = { id: string; final: boolean; post_types?: string[] | undefined };

/**
 * Records a batch of a full sync run (opening the run on its first batch, or on a batch of a run
 * forgotten after a day idle). A batch of a run that finished less than a day ago only upserts
 * (a final batch retried after a lost answer deletes nothing more); after that its id opens a
 * new run and marks the batch's items as listed by the run. On the final
 * batch it removes the source's documents, with their chunks, that the run did not list and
 * returns how many. A document survives when a batch of this run listed it (even one before the
 * run was forgotten and reopened), or when anything listed, created or changed it after the run
 * started (another run's batch, a delta, a plain sync): so a post a delta created during the run
 * stays. With `post_types`, only posts of those types are removed.
 * Call after the batch's upsert, in the same transaction.
 */
export async function recordFullSyncBatch(
  trx: Queryable,
  sourceId: string,
  batch: FullSyncBatch,
  items: ReadonlyArray<{ externalId: string }>,
): Promise<number> {
  // The source row lock orders one source's batches: a final batch never interleaves with another.
  await trx.selectFrom('sources').select('id').where('id', '=', sourceId).forUpdate().execute();
  await trx
    .deleteFrom('full_sync_runs')
    .where('source_id', '=', sourceId)
    .where('last_batch_at', '<', sql<Date>`now() - make_interval(hours => ${FULL_SYNC_IDLE_HOURS})`)
    .execute();
  const existing = await trx
    .selectFrom('full_sync_runs')
    .select('finished_at')
    .where('source_id', '=', sourceId)
    .where('run_id', '=', batch.id)
    .executeTakeFirst();
  // A batch of a finished run (a final whose answer was lost, sent again) removes nothing more.
  if (existing?.finished_at) return 0;
  await trx
    .insertInto('full_sync_runs')
    .values({ source_id: sourceId, run_id: batch.id })
    .onConflict((oc) => oc.columns(['source_id', 'run_id']).doUpdateSet({ last_batch_at: sql<Date>`now()` }))
    .execute();
  await trx
    .deleteFrom('full_sync_runs')
    .where('source_id', '=', sourceId)
    .where(
      'run_id',
      'not in',
      trx
        .selectFrom('full_sync_runs')
        .select('run_id')
        .where('source_id', '=', sourceId)
        .orderBy('last_batch_at', 'desc')
        .orderBy('run_id')
        .limit(FULL_SYNC_OPEN_RUNS_MAX),
    )
    .execute();
  if (items.length > 0) {
    await trx
      .updateTable('documents')
      .set({ full_sync_run_id: batch.id, full_sync_listed_at: sql<Date>`now()` })
      .where('source_id', '=', sourceId)
      .where('external_id', 'in', [...new Set(items.map((item) => item.externalId))])
      .execute();
  }
  if (!batch.final) return 0;
  let stale = trx
    .deleteFrom('documents')
    .where('source_id', '=', sourceId)
    .where((eb) => eb.or([eb('full_sync_run_id', 'is', null), eb('full_sync_run_id', '<>', batch.id)]))
    // Listed (by any run), created or changed since this run started: kept. Compared in SQL, on
    // the database's clock (a JavaScript Date would also drop the microseconds).
    .where(
      sql<boolean>`greatest(created_at, updated_at, full_sync_listed_at) < (
        select started_at from full_sync_runs where source_id = ${sourceId} and run_id = ${batch.id})`,
    );
  if (batch.post_types) {
    stale = stale.where(sql<boolean>`metadata->>'post_type' = any(${batch.post_types}::text[])`);
  }
  const removed = await stale.returning('id').execute();
  // The run is over: its id, if sent again, opens a new run that owes nothing to this one.
  await trx
    .updateTable('documents')
    .set({ full_sync_run_id: null })
    .where('source_id', '=', sourceId)
    .where('full_sync_run_id', '=', batch.id)
    .execute();
  await trx
    .updateTable('full_sync_runs')
    .set({ finished_at: sql<Date>`now()`, last_batch_at: sql<Date>`now()` })
    .where('source_id', '=', sourceId)
    .where('run_id', '=', batch.id)
    .execute();
  return removed.length;
}
