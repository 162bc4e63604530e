import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestDatabase, TEST_ENGINE } from './support/test-database.js';

/**
 * Closing the store while queries wait for a connection: pg's Pool.end() never answers a query
 * still queued for a client, so the store lets queued and running queries finish before it ends
 * its pools. Seen as a process that never exited: the job workers' last fetches waited behind
 * each other on the one background connection when the service stopped.
 */
describe(`closing the store with queries queued (${TEST_ENGINE})`, () => {
  test('every query queued on the background pool when close() is called is answered', async () => {
    const database = await createTestDatabase();
    const pool = database.background.pool;
    const queries = Array.from({ length: 20 }, (_, i) =>
      pool.query<{ n: number }>('select $1::int as n from pg_sleep(0.01)', [i]).then(
        (result) => result.rows[0]?.n,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
    );
    const waitingAtClose = pool.waitingCount;
    await database.close();
    // Each settles: with the pools ended first, the queued ones would never settle and this
    // await would keep the test (and a stopping service) waiting for good.
    const outcomes = await Promise.all(queries);
    if (TEST_ENGINE === 'pglite')
      assert.ok(waitingAtClose > 0, 'queries were queued behind the one connection');
    assert.deepEqual(
      outcomes,
      Array.from({ length: 20 }, (_, i) => i),
      'every queued query ran before the pools ended',
    );
  });
});
