import { validationError } from '../errors/app-error.js';
import { type CursorBinding, decodeListCursor, encodeListCursor } from '../security/list-cursor.js';

/**
 * A page asked of a list: how many rows, in which order of id (`asc`: oldest first), after
 * which cursor, and the key cursors are signed with. Services put the order in the cursor's
 * binding (`list:order`), so a cursor only continues the order it was made in.
 */
export type PageRequest = {
  limit: number;
  order: 'asc' | 'desc';
  cursor?: string | undefined;
  cursorKey: Buffer;
};

/** The comparison that keeps the rows after the cursor's id in the page's order. */
export function afterOperator(page: Pick<PageRequest, 'order'>): '>' | '<' {
  return page.order === 'asc' ? '>' : '<';
}

/** A page of rows and the cursor of the next one (null on the last page). */
export type Page<T> = { items: T[]; nextCursor: string | null };

/**
 * The id a page starts after (undefined for the first page). A cursor this service did not issue
 * for this list, workspace and parent is 422 on `cursor`: a cursor of workspace A used in B never
 * reaches B's query, so it cannot tell anything about A.
 */
export function pageStart(page: PageRequest, binding: CursorBinding): string | undefined {
  if (page.cursor === undefined) return undefined;
  const lastId = decodeListCursor(page.cursorKey, binding, page.cursor);
  if (lastId === null) {
    throw validationError({ cursor: ['The cursor is not valid; use meta.next_cursor of a previous page.'] });
  }
  return lastId;
}

/**
 * Cuts `rows` (fetched with `limit + 1`, in the page's order of id) to the page and signs the next cursor,
 * which exists only when a row beyond the page was found (so a full last page has none).
 */
export function pageOf<Row extends { id: string }, T>(
  rows: Row[],
  page: PageRequest,
  binding: CursorBinding,
  convert: (row: Row) => T,
): Page<T> {
  const kept = rows.slice(0, page.limit);
  const last = kept.at(-1);
  const nextCursor =
    rows.length > page.limit && last ? encodeListCursor(page.cursorKey, binding, last.id) : null;
  return { items: kept.map(convert), nextCursor };
}
