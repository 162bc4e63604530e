import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import { systemClock } from '../src/clock.js';
import type { Database } from '../src/db/database.js';
import type { DB } from '../src/db/schema.js';
import { createLogger } from '../src/logger.js';
import {
  defineJob,
  type JobContextOf,
  JobQueue,
  type JobRun,
  type JobServices,
} from '../src/queue/job-queue.js';
import { createTestDatabase, TEST_ENGINE } from './support/test-database.js';

const logLines: string[] = [];
const log = createLogger('info', { write: (line: string) => logLines.push(line) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ZDocPayload = z.strictObject({ docId: z.string().min(1) });
/** What a worker hands every handler; these test jobs use none of it. */
const SERVICES: JobServices = { clock: systemClock, appKey: randomBytes(32) };

/** Polls `check` until it returns true; fails after `timeoutMs` with `what`. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** Waits for `promise`, failing after `timeoutMs` (the timer never outlives the wait). */
async function within<T>(what: string, promise: Promise<T>, timeoutMs = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The handlers' side effect: an upsert, so running one twice leaves the same state. */
async function recordEffect(db: Kysely<DB>, docId: string, note: string): Promise<void> {
  await sql`insert into test_job_effects (doc_id, note) values (${docId}, ${note})
    on conflict (doc_id) do update set note = excluded.note`.execute(db);
}

async function effects(db: Kysely<DB>): Promise<Array<{ doc_id: string; note: string }>> {
  const result = await sql<{ doc_id: string; note: string }>`
    select doc_id, note from test_job_effects order by doc_id`.execute(db);
  return result.rows;
}

/** A promise with its resolver, to hold a handler until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe(`job queue (${TEST_ENGINE})`, () => {
  let database: Database;
  let queue: JobQueue;
  let stopped = false;
  const started = gate();
  const release = gate();
  const events: string[] = [];

  const recordJob = defineJob({
    name: 'test-record',
    payload: ZDocPayload,
    retryLimit: 0,
    async handle(payload, context: JobContextOf<never>) {
      await recordEffect(context.db, payload.docId, `indexed ${payload.docId}`);
    },
  });
  const statelyJob = defineJob({
    name: 'test-stately',
    payload: ZDocPayload,
    policy: 'stately',
    retryLimit: 0,
    async handle(payload, context) {
      await recordEffect(context.db, payload.docId, 'stately');
    },
  });
  const blockingJob = defineJob({
    name: 'test-blocking',
    payload: ZDocPayload,
    retryLimit: 0,
    async handle(payload, context) {
      started.open();
      await release.promise;
      await recordEffect(context.db, payload.docId, 'slow');
      events.push('handled');
    },
  });

  before(async () => {
    database = await createTestDatabase();
    await sql`create table test_job_effects (doc_id text primary key, note text not null)`.execute(
      database.db,
    );
    queue = await JobQueue.start({
      pool: database.pool,
      db: database.db,
      log,
      definitions: [recordJob, statelyJob, blockingJob],
      maintenance: false,
    });
  });

  after(async () => {
    release.open();
    if (!stopped) await queue.stop(5_000);
    await database.close();
  });

  test('send() validates the payload and the job name, and enqueues nothing then', async () => {
    await assert.rejects(queue.send(recordJob, { docId: '' }), z.ZodError);
    const unknown = defineJob({ name: 'test-unknown', payload: ZDocPayload, async handle() {} });
    await assert.rejects(queue.send(unknown, { docId: 'x' }), /test-unknown is not registered/);
    assert.equal(await queue.countJobs('test-record', 'created'), 0);
  });

  test("policy 'stately' collapses a second send with the same key while the first is queued", async () => {
    const first = await queue.send(statelyJob, { docId: 's1' }, { key: 's1' });
    assert.equal(typeof first, 'string');
    assert.equal(await queue.send(statelyJob, { docId: 's1' }, { key: 's1' }), null);
    const other = await queue.send(statelyJob, { docId: 's2' }, { key: 's2' });
    assert.equal(typeof other, 'string');
    assert.notEqual(other, first);
    assert.equal(await queue.countJobs('test-stately', 'created'), 2);
  });

  test('the worker processes queued and new jobs', async () => {
    await queue.work(SERVICES, { pollingIntervalSeconds: 0.5 });
    assert.equal(typeof (await queue.send(recordJob, { docId: 'a' })), 'string');
    assert.equal(typeof (await queue.send(recordJob, { docId: 'b' })), 'string');
    await eventually('the record jobs to complete', async () => {
      return (await queue.countJobs('test-record', 'completed')) === 2;
    });
    await eventually('the stately jobs to complete', async () => {
      return (await queue.countJobs('test-stately', 'completed')) === 2;
    });
    assert.deepEqual(await effects(database.db), [
      { doc_id: 'a', note: 'indexed a' },
      { doc_id: 'b', note: 'indexed b' },
      { doc_id: 's1', note: 'stately' },
      { doc_id: 's2', note: 'stately' },
    ]);
    assert.equal(await queue.countJobs('test-record', 'failed'), 0);
  });

  test('a job whose payload no longer parses is dropped without running its handler', async () => {
    // Another build (older or newer) enqueues the same job name with a different payload.
    const foreign = defineJob({
      name: 'test-record',
      payload: z.object({ docId: z.number() }),
      retryLimit: 0,
      async handle() {},
    });
    const sender = await JobQueue.start({
      pool: database.pool,
      db: database.db,
      log,
      definitions: [foreign],
      maintenance: false,
    });
    try {
      await sender.send(foreign, { docId: 42 });
    } finally {
      await sender.stop(1_000);
    }
    await eventually('the foreign job to be dropped', async () => {
      return logLines.some((line) => line.includes('job payload is invalid'));
    });
    await eventually('the foreign job to leave the queue', async () => {
      const states: Array<'created' | 'active' | 'retry'> = ['created', 'active', 'retry'];
      const pending = await Promise.all(states.map((state) => queue.countJobs('test-record', state)));
      return pending.every((count) => count === 0);
    });
    assert.equal((await effects(database.db)).length, 4, 'the handler did not run');
  });

  test('a handler run twice leaves the same state', async () => {
    const context: JobRun = { db: database.db, log, jobId: 'direct', attempt: 1 };
    await recordJob.handle({ docId: 'twice' }, context);
    const once = await effects(database.db);
    await recordJob.handle({ docId: 'twice' }, { ...context, attempt: 2 });
    assert.deepEqual(await effects(database.db), once);
    assert.equal(once.filter((row) => row.doc_id === 'twice').length, 1);
  });

  test('stop() waits for the job in flight to finish', async () => {
    await queue.send(blockingJob, { docId: 'slow' });
    await within('the blocking job to start', started.promise);
    const stopping = queue.stop(30_000).then(() => {
      events.push('stopped');
    });
    stopped = true;
    // Give stop() the chance to return early if it did not wait; it must not.
    await sleep(1_000);
    assert.deepEqual(events, []);
    release.open();
    await within('stop() to resolve', stopping);
    assert.deepEqual(events, ['handled', 'stopped']);
    assert.deepEqual(
      (await effects(database.db)).find((row) => row.doc_id === 'slow'),
      { doc_id: 'slow', note: 'slow' },
    );
    await eventually('the job to be marked completed', async () => {
      return (await queue.countJobs('test-blocking', 'completed')) === 1;
    });
  });
});

describe(`job queue draining (${TEST_ENGINE})`, () => {
  test('a worker takes the next job at once while its queue has jobs, not one job per polling interval', async () => {
    const database = await createTestDatabase();
    const done: string[] = [];
    const drainJob = defineJob({
      name: 'test-drain',
      payload: ZDocPayload,
      retryLimit: 0,
      async handle(payload) {
        done.push(payload.docId);
      },
    });
    const queue = await JobQueue.start({
      pool: database.pool,
      db: database.db,
      log,
      definitions: [drainJob],
      maintenance: false,
    });
    try {
      for (let i = 0; i < 20; i += 1) await queue.send(drainJob, { docId: `d${i}` });
      // A 60 s interval: one job per interval would need 20 minutes; draining needs no wait.
      await queue.work(SERVICES, { pollingIntervalSeconds: 60 });
      await eventually('the 20 jobs to complete', async () => done.length === 20, 20_000);
      assert.equal(await queue.countJobs('test-drain', 'failed'), 0);
    } finally {
      await queue.stop(5_000);
      await database.close();
    }
  });
});

describe(`job queue: an invalid payload among valid ones (${TEST_ENGINE})`, () => {
  /** Starts a queue with one recording job on a fresh database and enqueues `jobs` in order. */
  async function setUp(name: string, jobs: Array<{ valid: string } | { invalid: number }>) {
    const database = await createTestDatabase();
    const done: string[] = [];
    const job = defineJob({
      name,
      payload: ZDocPayload,
      retryLimit: 0,
      async handle(payload) {
        done.push(payload.docId);
      },
    });
    // Another build enqueues the same job name; its payloads may be ones this build cannot parse.
    const foreign = defineJob({
      name,
      payload: z.object({ docId: z.union([z.string(), z.number()]) }),
      retryLimit: 0,
      async handle() {},
    });
    const sender = await JobQueue.start({
      pool: database.pool,
      db: database.db,
      log,
      definitions: [foreign],
      maintenance: false,
    });
    try {
      for (const entry of jobs) {
        await sender.send(foreign, { docId: 'valid' in entry ? entry.valid : entry.invalid });
      }
    } finally {
      await sender.stop(1_000);
    }
    const queue = await JobQueue.start({
      pool: database.pool,
      db: database.db,
      log,
      definitions: [job],
      maintenance: false,
    });
    return {
      queue,
      done,
      async close() {
        await queue.stop(5_000);
        await database.close();
      },
    };
  }

  test('in one batch, the valid jobs after an invalid one all run; the invalid one completes unrun', async () => {
    // pg-boss hands a batch over in no set order: with nine valid jobs beside the invalid one,
    // some valid ones come after it in all but one order in ten.
    const valid = Array.from({ length: 9 }, (_, i) => `b${i}`);
    const { queue, done, close } = await setUp('test-batch', [
      { invalid: 1 },
      ...valid.map((docId) => ({ valid: docId })),
    ]);
    try {
      const dropped = logLines.filter((line) => line.includes('job payload is invalid')).length;
      await queue.work(SERVICES, { pollingIntervalSeconds: 60, batchSize: 10 });
      await eventually(
        'the batch to complete',
        async () => (await queue.countJobs('test-batch', 'completed')) === 10,
      );
      assert.deepEqual([...done].sort(), valid);
      assert.equal(await queue.countJobs('test-batch', 'failed'), 0);
      assert.equal(
        logLines.filter((line) => line.includes('job payload is invalid')).length,
        dropped + 1,
        'the invalid job is logged once',
      );
    } finally {
      await close();
    }
  });

  test('after an invalid job the worker is woken at once for the next one, not after a polling interval', async () => {
    const { queue, done, close } = await setUp('test-wake', [
      { valid: 'w0' },
      { invalid: 2 },
      { valid: 'w1' },
      { valid: 'w2' },
    ]);
    try {
      // A 60 s interval: a worker left asleep after the invalid job would not finish in time.
      await queue.work(SERVICES, { pollingIntervalSeconds: 60 });
      await eventually('the jobs after the invalid one to run', async () => done.length === 3, 20_000);
      assert.deepEqual(done, ['w0', 'w1', 'w2']);
      assert.equal(await queue.countJobs('test-wake', 'completed'), 4);
    } finally {
      await close();
    }
  });
});
