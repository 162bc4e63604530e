/** Helpers shared by the knowledge page's parts. */

/** Statuses of a source still on its way: the page asks again while one is shown. */
export const BUSY = new Set(['queued', 'fetching', 'indexing']);
/** How often the list is read again while a source is busy. */
export const POLL_MS = 1500;

export const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
export const messageOf = (error: unknown, fallback: string) =>
  error instanceof Error ? error.message : fallback;
