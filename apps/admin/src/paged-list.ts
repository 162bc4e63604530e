import { LIST_PAGE_MAX, listPage } from '@service/contract';
import { useCallback, useRef, useState } from 'preact/hooks';
import type { z } from 'zod';
import { ApiError, apiPage } from './api';

/** How many rows the console asks for at a time. */
export const CONSOLE_PAGE_SIZE = 25;

/** A list read from the service a page at a time. */
export type PagedList<T> = {
  /** The rows loaded so far; null until the first page answers. */
  items: T[] | null;
  /** Whether the service has rows beyond those loaded. */
  hasMore: boolean;
  isLoadingMore: boolean;
  error: string | null;
  /** Reads the list again from its start, as many rows as are shown now (for live progress). */
  reload: () => Promise<void>;
  /** Appends the next page. */
  loadMore: () => Promise<void>;
  /** Replaces a loaded row by id (an answer that carries the changed row). */
  replace: (item: T) => void;
};

/**
 * Reads `path` (a paged admin list) `CONSOLE_PAGE_SIZE` rows at a time through its cursor. Only
 * the rows asked for are read, so a list stays fast with 10,000 rows behind it.
 */
export function usePagedList<T extends { id: string }>(
  path: string,
  item: z.ZodType<T>,
  failure: string,
): PagedList<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [isLoadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The row count shown, for reload (a ref: a poll's closure must see the latest).
  const shown = useRef(0);
  const schema = listPage(item);

  const fail = (caught: unknown) => {
    // A 401 ends the session; the sign-in screen says so.
    if (caught instanceof ApiError && caught.status === 401) return;
    setError(caught instanceof Error ? caught.message : failure);
  };

  const reload = useCallback(async () => {
    try {
      const want = Math.max(shown.current, CONSOLE_PAGE_SIZE);
      const rows: T[] = [];
      let next: string | null = null;
      do {
        const limit = Math.min(LIST_PAGE_MAX, want - rows.length);
        const page: z.infer<typeof schema> = await apiPage(pathWith(path, limit, next), schema);
        rows.push(...page.data);
        next = page.meta.next_cursor;
      } while (next !== null && rows.length < want);
      shown.current = rows.length;
      setItems(rows);
      setCursor(next);
      setError(null);
    } catch (caught) {
      fail(caught);
    }
  }, [path]);

  const loadMore = async () => {
    if (cursor === null) return;
    setLoadingMore(true);
    try {
      const page = await apiPage(pathWith(path, CONSOLE_PAGE_SIZE, cursor), schema);
      setItems((current) => {
        const rows = [...(current ?? []), ...page.data];
        shown.current = rows.length;
        return rows;
      });
      setCursor(page.meta.next_cursor);
      setError(null);
    } catch (caught) {
      fail(caught);
    } finally {
      setLoadingMore(false);
    }
  };

  const replace = (next: T) =>
    setItems((current) => current?.map((row) => (row.id === next.id ? next : row)) ?? null);

  return { items, hasMore: cursor !== null, isLoadingMore, error, reload, loadMore, replace };
}

function pathWith(path: string, limit: number, cursor: string | null): string {
  const query = new URLSearchParams({ limit: String(limit) });
  if (cursor !== null) query.set('cursor', cursor);
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}
