import type { TSourceFailure } from '@service/contract';
import type { Queryable } from '../../db/queryable.js';
import { notFound } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { iso, type TenantScope } from '../context.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';

/** A page a fetch could not store, with the fetcher's or reader's reason verbatim. */
export type PageFailure = { url: string; reason: string };

/**
 * A page of the source's failed pages (those of the running fetch, or of the last one), in the
 * order they failed; keyset on the id. Another workspace's source is a 404; the cursor is bound
 * to the source.
 */
export async function listSourceFailures(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  sourceId: string,
  page: PageRequest,
): Promise<Page<TSourceFailure>> {
  const source = await scope.db
    .selectFrom('sources')
    .select('id')
    .where('workspace_id', '=', scope.workspaceId)
    .where('id', '=', sourceId)
    .executeTakeFirst();
  if (!source) throw notFound();
  const binding = {
    list: `source_failures:${page.order}`,
    workspaceId: scope.workspaceId,
    parentId: sourceId,
  };
  const after = pageStart(page, binding);
  let query = scope.db
    .selectFrom('source_failures')
    .select(['id', 'url', 'reason', 'at'])
    .where('source_id', '=', sourceId)
    .orderBy('id', page.order)
    .limit(page.limit + 1);
  if (after !== undefined) query = query.where('id', afterOperator(page), after);
  return pageOf(await query.execute(), page, binding, (row) => ({
    url: row.url,
    reason: row.reason,
    at: iso(row.at),
  }));
}

/** Records failed pages of the source's running fetch (in the caller's transaction). */
export async function recordFailures(
  db: Queryable,
  sourceId: string,
  failures: readonly PageFailure[],
  at: Date,
): Promise<void> {
  if (failures.length === 0) return;
  await db
    .insertInto('source_failures')
    .values(failures.map((failure) => ({ id: newId(), source_id: sourceId, ...failure, at })))
    .execute();
}

/** Forgets the failures of the source's earlier fetches (a fetch starts its own list). */
export async function clearFailures(db: Queryable, sourceId: string): Promise<void> {
  await db.deleteFrom('source_failures').where('source_id', '=', sourceId).execute();
}
