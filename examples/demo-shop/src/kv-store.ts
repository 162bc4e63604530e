// A KeyValueStore (the SDK's pluggable store) over the shop's own `kv` table: the sync
// client's cursor and the staged coupons survive a restart, and several shop processes on one
// PostgreSQL could share it. Expiry is checked on read, against the injected clock.
import type { KeyValueStore } from '@service/site-plugin';
import type { Sql } from './database.js';
import { dateOrNull, text } from './rows.js';

/** A {@link KeyValueStore} backed by the `kv` table; `now` decides what has expired. */
export function createDatabaseKvStore(db: Sql, now: () => Date = () => new Date()): KeyValueStore {
  const live = (row: Record<string, unknown>): string | null => {
    const expiresAt = dateOrNull(row, 'expires_at');
    return expiresAt !== null && expiresAt.getTime() <= now().getTime() ? null : text(row, 'value');
  };
  return {
    async get(key) {
      const result = await db.query<Record<string, unknown>>(
        'select value, expires_at from kv where key = $1',
        [key],
      );
      const row = result.rows[0];
      return row ? live(row) : null;
    },
    async set(key, value, ttlSeconds) {
      const at = now();
      const expiresAt = ttlSeconds === undefined ? null : new Date(at.getTime() + ttlSeconds * 1000);
      // Sweep what has expired, so staged coupons nobody collected do not pile up.
      await db.query('delete from kv where expires_at is not null and expires_at <= $1', [at]);
      await db.query(
        `insert into kv (key, value, expires_at) values ($1, $2, $3)
         on conflict (key) do update set value = excluded.value, expires_at = excluded.expires_at`,
        [key, value, expiresAt],
      );
    },
    async delete(key) {
      await db.query('delete from kv where key = $1', [key]);
    },
    async take(key) {
      // One statement: two carts loading at once cannot both collect a staged coupon.
      const result = await db.query<Record<string, unknown>>(
        'delete from kv where key = $1 returning value, expires_at',
        [key],
      );
      const row = result.rows[0];
      return row ? live(row) : null;
    },
  };
}
