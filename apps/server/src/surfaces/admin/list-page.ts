import type { TListQuery } from '@service/contract';
import type { AppDeps } from '../../app-deps.js';
import { listCursorKey } from '../../security/list-cursor.js';
import type { PageRequest } from '../../services/list-page.js';

// One derived key per app key (HKDF is cheap, but every list request would repeat it).
const keys = new WeakMap<Buffer, Buffer>();

/** The page a list request asks for, with the key its cursors are signed and checked with. */
export function pageRequestOf(deps: Pick<AppDeps, 'config'>, query: TListQuery): PageRequest {
  const appKey = deps.config.appKey;
  let cursorKey = keys.get(appKey);
  if (!cursorKey) {
    cursorKey = listCursorKey(appKey);
    keys.set(appKey, cursorKey);
  }
  return { limit: query.limit, order: query.order, cursor: query.cursor, cursorKey };
}

/** The wire form of a page: `{data, meta: {next_cursor}}`. */
export function pageBody<T>(page: { items: T[]; nextCursor: string | null }) {
  return { data: page.items, meta: { next_cursor: page.nextCursor } };
}
