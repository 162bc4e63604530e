import type { KeyValueStore } from './site-store.js';

/** Options of {@link createMemoryStore}; `now` is injectable so tests need no real clock. */
export type MemoryStoreOptions = { now?: () => Date };

/** The in-memory {@link KeyValueStore}, with `take` and a count of the keys it holds. */
export type MemoryStore = KeyValueStore & {
  take(key: string): Promise<string | null>;
  /** Keys held right now, expired ones not yet swept included (for tests and metrics). */
  size(): number;
};

type Entry = { value: string; expiresAt: number | null };

// Sweep every expired key when the map has doubled since the last sweep (amortised O(1) per
// write) or when a minute has passed on the injected clock, whichever comes first.
const SWEEP_MIN_SIZE = 1024;
const SWEEP_INTERVAL_MS = 60_000;

/**
 * A {@link KeyValueStore} in this process's memory, for one process only: with several
 * processes or servers each has its own map, so a coupon staged by one is invisible to the
 * others (use Redis or a database table there). Keys expire by the injected clock, `take` reads
 * and deletes at once, and expired keys are swept so the map cannot grow without bound.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const clock = options.now ?? (() => new Date());
  const entries = new Map<string, Entry>();
  let lastSweep = clock().getTime();
  let sweepAtSize = SWEEP_MIN_SIZE;

  const isExpired = (entry: Entry, now: number): boolean =>
    entry.expiresAt !== null && entry.expiresAt <= now;

  const sweepIfDue = (now: number): void => {
    if (entries.size < sweepAtSize && now - lastSweep < SWEEP_INTERVAL_MS) return;
    for (const [key, entry] of entries) if (isExpired(entry, now)) entries.delete(key);
    lastSweep = now;
    sweepAtSize = Math.max(SWEEP_MIN_SIZE, entries.size * 2);
  };

  const read = (key: string): string | null => {
    const now = clock().getTime();
    sweepIfDue(now);
    const entry = entries.get(key);
    if (!entry) return null;
    if (isExpired(entry, now)) {
      entries.delete(key);
      return null;
    }
    return entry.value;
  };

  return {
    async get(key) {
      return read(key);
    },
    async set(key, value, ttlSeconds) {
      const now = clock().getTime();
      sweepIfDue(now);
      const expiresAt = ttlSeconds === undefined ? null : now + ttlSeconds * 1000;
      entries.set(key, { value, expiresAt });
    },
    async delete(key) {
      entries.delete(key);
    },
    async take(key) {
      const value = read(key);
      entries.delete(key);
      return value;
    },
    size() {
      return entries.size;
    },
  };
}
