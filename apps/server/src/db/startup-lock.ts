import type pg from 'pg';

/** Any fixed number, distinct from the migration lock's. */
const STARTUP_LOCK_KEY = 7_204_113_902;

/**
 * Runs `fn` holding a PostgreSQL advisory lock, so processes starting together on one
 * database (service, workers, CLI) take turns creating extensions and the queue schema,
 * which are not safe to create concurrently. On the embedded store the DATA_DIR lock
 * already allows one process, and its single connection must stay free for `fn`.
 */
export async function withStartupLock<T>(
  pool: pg.Pool,
  mode: 'embedded' | 'postgres',
  fn: () => Promise<T>,
): Promise<T> {
  if (mode === 'embedded') return fn();
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
