/** Which pool a connection to the embedded store belongs to; the store thread favours `interactive`. */
export type StoreLane = 'interactive' | 'background';

/**
 * How the store thread picks the next group when connections wait (`EMBEDDED_STORE_SCHEDULING`):
 * `interactive-first` lets waiting interactive groups go first (at most
 * {@link INTERACTIVE_BURST} in a row while a background group waits); `fifo` runs them in arrival order.
 */
export type StoreScheduling = 'interactive-first' | 'fifo';

/** Interactive groups run in a row, at most, before a waiting background group gets its turn. */
export const INTERACTIVE_BURST = 8;

/**
 * How long, after an interactive group, a waiting background group is held back for the next
 * interactive one (`interactive-first` only). A request's statements come one at a time, each
 * after the main thread has read the last one's answer; without the pause, a background group
 * (a batch of chunks, a job poll) would slip in between and the request would wait for it at
 * every statement.
 */
export const INTERACTIVE_GRACE_MS = 4;

/** What the store thread is started with (`workerData`). */
export type StoreWorkerData = {
  /** The data directory, or null for a store in memory (tests). */
  pgdata: string | null;
  /** A data-dir dump (tar) to start from, for a store in memory. */
  loadDump: string | null;
  cacheMb: number | null;
  scheduling: StoreScheduling;
};

/** Main thread → store thread. */
export type StoreRequest =
  /** Frontend protocol messages of one connection, up to and including a Sync, Query or Flush. */
  | { type: 'exec'; conn: number; lane: StoreLane; bytes: Uint8Array }
  /** The connection closed: its waiting groups are dropped and its open transaction rolled back. */
  | { type: 'end'; conn: number }
  | { type: 'dump' }
  | { type: 'close' };

/** Store thread → main thread. */
export type StoreReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  /** The backend's answer to one `exec`, raw protocol bytes. */
  | { type: 'result'; conn: number; bytes: Uint8Array }
  | { type: 'dumped'; bytes: Uint8Array }
  | { type: 'closed' };
