import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { z } from 'zod';
import { systemClock } from '../src/clock.js';
import type { Database } from '../src/db/database.js';
import { createLogger } from '../src/logger.js';
import { deadLetterQueueOf } from '../src/queue/job-failures.js';
import { defineJob, JobQueue } from '../src/queue/job-queue.js';
import { createTestDatabase, TEST_ENGINE } from './support/test-database.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ZPayload = z.strictObject({ id: z.string().min(1) });

/** Polls `check` until it returns true; fails after `timeoutMs` with `what`. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/**
 * Where several processes share the queue (PostgreSQL), a running job holds a short lease its
 * worker renews; one whose worker stopped renewing expires after the lease and is retried, or
 * given up on its last attempt. Shown here with a 3-second lease and a 1-second sweep on the test
 * engine.
 */
describe(`job leases (${TEST_ENGINE})`, () => {
  let database: Database;
  let queue: JobQueue;
  const runs: string[] = [];
  const givenUp: Array<{ id: string; reason: string }> = [];

  const longJob = defineJob({
    name: 'test-lease-long',
    payload: ZPayload,
    retryLimit: 1,
    retryDelaySeconds: 1,
    retryBackoff: false,
    async handle({ id }) {
      runs.push(`start ${id}`);
      await sleep(7_000);
      runs.push(`end ${id}`);
    },
  });
  const orphanJob = defineJob({
    name: 'test-lease-orphan',
    payload: ZPayload,
    retryLimit: 1,
    retryDelaySeconds: 1,
    retryBackoff: false,
    async handle({ id }) {
      runs.push(`orphan ${id}`);
    },
    async giveUp({ id }, _context, reason) {
      givenUp.push({ id, reason });
      return true;
    },
  });

  const settled: string[] = [];
  let finishSettling = () => {};
  const settling = new Promise<void>((resolve) => {
    finishSettling = resolve;
  });
  const failingJob = defineJob({
    name: 'test-lease-failing',
    payload: ZPayload,
    retryLimit: 0,
    async handle() {
      throw new Error('always fails');
    },
    async giveUp({ id }) {
      settled.push(`start ${id}`);
      await settling;
      settled.push(`end ${id}`);
      return true;
    },
  });

  before(async () => {
    database = await createTestDatabase();
    queue = await JobQueue.start({
      pool: database.pool,
      db: database.db,
      log: createLogger('silent'),
      definitions: [longJob, orphanJob, failingJob],
      lease: { seconds: 3, sweepSeconds: 1 },
    });
  });
  after(async () => {
    finishSettling();
    await queue.stop(10_000);
    await database.close();
  });

  /** The job's expiry, in seconds counted from its start. */
  const expirySeconds = async (name: string) => {
    const result = await sql<{ seconds: number }>`
      select extract(epoch from expire_in)::float as seconds from pgboss.job
      where name = ${name} and state = 'active'`.execute(database.db);
    return result.rows[0]?.seconds;
  };
  const stateOf = async (name: string) => {
    const result = await sql<{ state: string; retry_count: number }>`
      select state, retry_count from pgboss.job where name = ${name}`.execute(database.db);
    return result.rows;
  };

  /** Leaves a job as a worker that died leaves it: active, its last lease running out now. */
  const leaveOrphaned = async (id: string, retryCount: number) => {
    await sql`update pgboss.job set state = 'active', started_on = now(), retry_count = ${retryCount},
      expire_in = interval '1 second' where id = ${id}::uuid`.execute(database.db);
  };

  /**
   * Leaves a job as a worker that died right after fetching it leaves it: active since
   * `secondsAgo`, with its queue's whole 15-minute expiry (never leased).
   */
  const leaveUnleased = async (id: string, secondsAgo: number) => {
    await sql`update pgboss.job set state = 'active',
      started_on = now() - make_interval(secs => ${secondsAgo}), expire_in = interval '15 minutes'
      where id = ${id}::uuid`.execute(database.db);
  };
  let arranged = 0;

  test('arrange, before any worker runs: a long job, and four jobs whose worker died', async () => {
    assert.ok(await queue.send(longJob, { id: 'long' }));
    const orphan = await queue.send(orphanJob, { id: 'orphan' });
    const last = await queue.send(orphanJob, { id: 'last' });
    const unleased = await queue.send(orphanJob, { id: 'unleased' });
    const fresh = await queue.send(orphanJob, { id: 'fresh' });
    assert.ok(orphan && last && unleased && fresh);
    await leaveOrphaned(orphan, 0);
    await leaveOrphaned(last, 1);
    await leaveUnleased(unleased, 7);
    await leaveUnleased(fresh, 0);
    arranged = Date.now();
    assert.ok(await queue.send(failingJob, { id: 'failing' }));
    await queue.work({ clock: systemClock, appKey: randomBytes(32) }, { pollingIntervalSeconds: 1 });
  });

  test('a job fetched a moment ago is left to the worker that may still lease it', async () => {
    await sleep(2_500); // two sweeps
    const fresh = await sql<{ state: string; retry_count: number }>`
      select state, retry_count from pgboss.job where name = 'test-lease-orphan' and data->>'id' = 'fresh'`.execute(
      database.db,
    );
    // Two leases (6 s) after its start it is due; checked only while that is surely not yet so.
    if (Date.now() - arranged < 5_000) {
      assert.deepEqual(fresh.rows[0], { state: 'active', retry_count: 0 });
      assert.ok(!runs.includes('orphan fresh'));
    }
  });

  test('a job running past its lease is kept alive by its worker, and runs once', async () => {
    await eventually('the long job to start', async () => runs.includes('start long'));
    const early = await expirySeconds('test-lease-long');
    assert.ok(
      early !== undefined && early < 60,
      `the queue's 15-minute expiry is cut to the lease: ${early}`,
    );
    await sleep(3_000);
    const later = await expirySeconds('test-lease-long');
    assert.ok(later !== undefined && later > early, `renewed: ${early} then ${later}`);
    await eventually('the long job to end', async () => runs.includes('end long'));
    await eventually(
      'it to complete',
      async () => (await stateOf('test-lease-long'))[0]?.state === 'completed',
    );
    assert.deepEqual(
      runs.filter((run) => run.endsWith('long')),
      ['start long', 'end long'],
      'never retried while its worker renewed the lease',
    );
  });

  test('a job whose worker died is retried once its lease runs out, then given up on its last attempt', async () => {
    await eventually('the orphan to run again', async () => runs.includes('orphan orphan'));
    const retried = await sql<{ retry_count: number }>`
      select retry_count from pgboss.job where name = 'test-lease-orphan' and data->>'id' = 'orphan'`.execute(
      database.db,
    );
    assert.equal(retried.rows[0]?.retry_count, 1, 'the expired attempt counted');
    await eventually('the last attempt to be given up', async () => givenUp.length > 0);
    assert.deepEqual(givenUp, [{ id: 'last', reason: 'ran out of time' }]);
    assert.ok(!runs.includes('orphan last'), 'no attempt was left to run');
  });

  test('a job whose worker died before its first lease is retried two leases after its start, not after 15 minutes', async () => {
    await eventually('the unleased job to run again', async () => runs.includes('orphan unleased'));
    const jobOf = async (id: string) =>
      (
        await sql<{ state: string; retry_count: number }>`
          select state, retry_count from pgboss.job where name = 'test-lease-orphan' and data->>'id' = ${id}`.execute(
          database.db,
        )
      ).rows[0];
    assert.deepEqual(
      await jobOf('unleased'),
      { state: 'completed', retry_count: 1 },
      'the lost attempt counted',
    );
    await eventually('the fresh one to be retried after two leases', async () =>
      runs.includes('orphan fresh'),
    );
    assert.equal((await jobOf('fresh'))?.retry_count, 1);
  });

  test('settling a job that failed for good holds the lease too, not the 15-minute expiry', async () => {
    await eventually('its give-up to start', async () => settled.includes('start failing'));
    const early = await expirySeconds(deadLetterQueueOf('test-lease-failing'));
    assert.ok(early !== undefined && early < 60, `the dead-letter entry's expiry is the lease: ${early}`);
    finishSettling();
    await eventually('its give-up to end', async () => settled.includes('end failing'));
    assert.deepEqual(settled, ['start failing', 'end failing'], 'settled once');
  });
});
