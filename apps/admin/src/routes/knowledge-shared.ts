import type { TUploadMetadata } from '@service/contract';

/** Helpers shared by the knowledge page's parts. */

/** Statuses of a source still on its way: the page asks again while one is shown. */
export const BUSY = new Set(['queued', 'fetching', 'indexing']);
/** How often the list is read again while a source is busy. */
export const POLL_MS = 1500;

export const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
export const messageOf = (error: unknown, fallback: string) =>
  error instanceof Error ? error.message : fallback;

/** How much of a file the service read, in its type's units: `2 pages read`, `1 sheet, 5 rows read`. */
export function extentOf(
  meta: Pick<TUploadMetadata, 'pages_read' | 'sheets_read' | 'rows_read' | 'paragraphs_read'>,
): string | null {
  const parts: string[] = [];
  if (meta.pages_read !== undefined) parts.push(plural(meta.pages_read, 'page'));
  if (meta.sheets_read !== undefined) parts.push(plural(meta.sheets_read, 'sheet'));
  if (meta.rows_read !== undefined) parts.push(plural(meta.rows_read, 'row'));
  if (meta.paragraphs_read !== undefined) parts.push(plural(meta.paragraphs_read, 'paragraph'));
  return parts.length > 0 ? `${parts.join(', ')} read` : null;
}
