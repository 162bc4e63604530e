import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { PoolTestTask } from '../../test/support/pool-test-worker.js';
import { type BoundedPool, createBoundedPool, type PoolLimits, WorkerLimitError } from './bounded-pool.js';

const WORKER = new URL('../../test/support/pool-test-worker.ts', import.meta.url);

describe('bounded pool', () => {
  const pools: Array<BoundedPool<PoolTestTask, string>> = [];
  const open = (limits: Partial<PoolLimits> = {}) => {
    const pool = createBoundedPool<PoolTestTask, string>(WORKER, {
      workers: 1,
      heapMb: 64,
      timeoutMs: 20_000,
      ...limits,
    });
    pools.push(pool);
    return pool;
  };
  after(() => Promise.all(pools.map((pool) => pool.close())));

  /** Asserts `promise` rejects with a WorkerLimitError of `limit` whose message matches. */
  const rejectsWith = async (promise: Promise<string>, limit: string, message: RegExp) => {
    await assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof WorkerLimitError, String(error));
      assert.equal(error.limit, limit);
      assert.match(error.message, message);
      return true;
    });
  };

  test('a task runs in a thread and answers', async () => {
    assert.equal(await open().run({ kind: 'echo', value: 'hello' }), 'hello from a thread');
  });

  test('a task that overruns is terminated with the timeout reason; the next task still runs', async () => {
    const pool = open({ timeoutMs: 1500 });
    await rejectsWith(pool.run({ kind: 'spin' }), 'timeout', /^it takes longer than 1\.5 s to read$/);
    assert.equal(await pool.run({ kind: 'echo', value: 'after' }), 'after from a thread');
  });

  test('a task that exhausts the heap is reported with the heap reason; the next task still runs', async () => {
    const pool = open({ heapMb: 64 });
    await rejectsWith(pool.run({ kind: 'allocate' }), 'heap', /^it needs more than 64 MB of memory to read$/);
    assert.equal(await pool.run({ kind: 'echo', value: 'after' }), 'after from a thread');
  });

  test('a task whose buffers outgrow the budget (as much as the heap) is reported with the heap reason', async () => {
    const pool = open({ heapMb: 64 });
    await rejectsWith(pool.run({ kind: 'buffers' }), 'heap', /^it needs more than 64 MB of memory to read$/);
    assert.equal(await pool.run({ kind: 'echo', value: 'after' }), 'after from a thread');
  });

  test('a thread that exits mid-task fails that task alone', async () => {
    const pool = open();
    await rejectsWith(pool.run({ kind: 'exit' }), 'crashed', /^the reader stopped unexpectedly/);
    assert.equal(await pool.run({ kind: 'echo', value: 'after' }), 'after from a thread');
  });

  test('a thread that dies between tasks is replaced; the process and the next task are unaffected', async () => {
    const pool = open();
    assert.equal(await pool.run({ kind: 'throw-later' }), 'answered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await pool.run({ kind: 'echo', value: 'after' }), 'after from a thread');
  });

  test("a task's own error passes through as it is", async () => {
    const pool = open();
    await assert.rejects(pool.run({ kind: 'throw', message: 'bad input' }), (error: unknown) => {
      assert.ok(!(error instanceof WorkerLimitError));
      assert.match(String(error), /bad input/);
      return true;
    });
  });

  test('at most `workers` tasks run at once; the others wait their turn', async () => {
    const pool = open({ workers: 2 });
    const counters = new Int32Array(new SharedArrayBuffer(8));
    const results = await Promise.all(
      Array.from({ length: 6 }, () => pool.run({ kind: 'track', counters, ms: 150 })),
    );
    assert.deepEqual(results, Array(6).fill('tracked'));
    assert.equal(Atomics.load(counters, 1), 2);
    assert.equal(Atomics.load(counters, 0), 0);
  });

  test('the time limit counts from when a task gets its thread, not while it waits', async () => {
    // Counted from the call, the second task would time out at 3 s, while the first still held
    // the one thread for 2 s and it needed 2 s more.
    const pool = open({ timeoutMs: 3000 });
    await pool.run({ kind: 'echo', value: 'warm' });
    const both = await Promise.all([
      pool.run({ kind: 'sleep', ms: 2000 }),
      pool.run({ kind: 'sleep', ms: 2000 }),
    ]);
    assert.deepEqual(both, ['slept', 'slept']);
  });

  test('closing fails the waiting tasks and refuses new ones', async () => {
    const pool = createBoundedPool<PoolTestTask, string>(WORKER, {
      workers: 1,
      heapMb: 64,
      timeoutMs: 20_000,
    });
    const running = pool.run({ kind: 'sleep', ms: 500 });
    const waiting = pool.run({ kind: 'echo', value: 'late' });
    await pool.close();
    await assert.rejects(running);
    await assert.rejects(waiting);
    await assert.rejects(pool.run({ kind: 'echo', value: 'closed' }), /the extraction pool is closed/);
  });
});
