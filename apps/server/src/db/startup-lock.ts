import type pg from 'pg';
import { withProcessLock } from './process-lock.js';

/** Any fixed number, distinct from the migration lock's. */
const STARTUP_LOCK_KEY = 7_204_113_902;

/**
 * Runs `fn` holding a PostgreSQL advisory lock, so processes starting together on one
 * database (service, workers, CLI) take turns creating extensions and the queue schema,
 * which are not safe to create concurrently. Callers in one process take turns on an
 * in-process lock first: on the embedded store (one process, by the DATA_DIR lock) that is the
 * only lock, since its connections share one backend session, where an advisory lock excludes nobody.
 */
export async function withStartupLock<T>(
  pool: pg.Pool,
  mode: 'embedded' | 'postgres',
  fn: () => Promise<T>,
): Promise<T> {
  return withProcessLock(pool, STARTUP_LOCK_KEY, () =>
    mode === 'embedded' ? fn() : withAdvisoryLock(pool, fn),
  );
}

async function withAdvisoryLock<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [STARTUP_LOCK_KEY]);
    try {
      return await fn();
    } finally {
      await client.query('select pg_advisory_unlock($1)', [STARTUP_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}
