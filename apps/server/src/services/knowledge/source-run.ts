import type { TSourceProgress } from '@service/contract';
import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { SourceRow } from '../../db/schema.js';

/** The source columns a fetch needs. */
export type SourceRef = Pick<SourceRow, 'id' | 'workspace_id' | 'agent_id' | 'type' | 'config'>;

/** What one fetch of a source did, as `progress.last_run` shows it. */
export type RunSummary = Omit<NonNullable<TSourceProgress['last_run']>, 'finished_at'>;

/** Marks a source as being fetched. */
export async function startRun(db: Queryable, sourceId: string): Promise<void> {
  await db
    .updateTable('sources')
    .set({ status: 'indexing', updated_at: new Date() })
    .where('id', '=', sourceId)
    .execute();
}

/** Marks the source failed with the reason, verbatim; documents from earlier fetches stay. */
export async function failRun(db: Queryable, sourceId: string, reason: string): Promise<void> {
  await db
    .updateTable('sources')
    .set({ status: 'failed', error: reason, updated_at: new Date() })
    .where('id', '=', sourceId)
    .execute();
}

/**
 * Records a finished fetch: the summary as `progress.last_run`, the error cleared, and the status
 * `indexing` while any document waits for its index job (the job flips it to `indexed`), else
 * `indexed`.
 */
export async function finishRun(db: Queryable, sourceId: string, summary: RunSummary): Promise<void> {
  const now = new Date();
  const pending = await db
    .selectFrom('documents')
    .select('id')
    .where('source_id', '=', sourceId)
    .where('index_status', '<>', 'indexed')
    .limit(1)
    .executeTakeFirst();
  await db
    .updateTable('sources')
    .set({
      status: pending ? 'indexing' : 'indexed',
      error: null,
      last_synced_at: now,
      updated_at: now,
      progress: JSON.stringify({ last_run: { ...summary, finished_at: now.toISOString() } }),
    })
    .where('id', '=', sourceId)
    .execute();
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

/**
 * Marks `indexing` sources `indexed` once none of their documents waits for its index job
 * (the index job calls it for its document's source; removals call it too).
 */
export async function settleSources(db: Queryable, sourceIds: readonly string[]): Promise<void> {
  if (sourceIds.length === 0) return;
  await db
    .updateTable('sources')
    .set({ status: 'indexed', updated_at: new Date() })
    .where('id', 'in', [...new Set(sourceIds)])
    .where('status', '=', 'indexing')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('documents')
            .select('documents.id')
            .whereRef('documents.source_id', '=', 'sources.id')
            .where('documents.index_status', '<>', 'indexed'),
        ),
      ),
    )
    .execute();
}
