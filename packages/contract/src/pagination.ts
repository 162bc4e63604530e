import { z } from 'zod';
import { zText } from './text.js';

/** Largest page of the console's lists (agents, tokens, KB articles, an agent's sources). */
export const LIST_PAGE_MAX = 100;
/**
 * Page size when `limit` is absent: the largest, so a workspace with at most this many rows gets
 * them all in one answer, as before these lists paged.
 */
export const LIST_PAGE_DEFAULT = LIST_PAGE_MAX;

/** Orders of a paged list: `asc` oldest first (the default), `desc` newest first. */
export const LIST_ORDERS = ['asc', 'desc'] as const;

/** Query of a paged list: `cursor` is `meta.next_cursor` of the previous page, asked with the same `order`. */
export const ZListQuery = z.object({
  cursor: zText().min(1).max(300).optional().describe('Opaque: meta.next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(LIST_PAGE_MAX).default(LIST_PAGE_DEFAULT),
  order: z.enum(LIST_ORDERS).default('asc').describe('asc: oldest first (default); desc: newest first'),
});
export type TListQuery = z.infer<typeof ZListQuery>;

/** What a paged list says beside its rows: the cursor of the next page, null on the last. */
export const ZPageMeta = z.object({ next_cursor: zText().nullable() });
export type TPageMeta = z.infer<typeof ZPageMeta>;

/** A page of a list: `{data: Item[], meta: {next_cursor}}`. */
export function listPage<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), meta: ZPageMeta });
}
