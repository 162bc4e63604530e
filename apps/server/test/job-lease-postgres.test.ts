import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { systemClock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { JobQueue } from '../src/queue/job-queue.js';
import { leaseProbeJob, openProbeDatabase, PROBE_LEASE } from './support/lease-probe.js';
import { localPostgresUrl } from './support/local-databases.js';
import { childEnv, ROOT } from './support/processes.js';
import { withDatabase } from './support/template.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The suite's server: TEST_DATABASE_URL, else the machine's PostgreSQL on 127.0.0.1. */
const serverUrl = process.env.TEST_DATABASE_URL || localPostgresUrl();

async function isReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const reachable = await isReachable(serverUrl);

/**
 * On PostgreSQL several processes share the queue, so a job `active` at start may be running
 * elsewhere. A worker process killed mid-job stops renewing the job's lease: another worker
 * retries it once the lease runs out, long before the queue's 15-minute expiry.
 */
describe('a job whose worker process is killed on PostgreSQL is retried after its lease', {
  skip: reachable ? false : `PostgreSQL is not reachable at ${new URL(serverUrl).host}`,
}, () => {
  // Named like the runner's other databases, so its cleanup drops it even if this file dies.
  const name = `svc_t_${process.env.TEST_RUN_ID ?? `solo${process.pid}`}_lease_${randomBytes(4).toString('hex')}`;
  const url = withDatabase(serverUrl, name);
  let probe: ReturnType<typeof openProbeDatabase>;
  let queue: JobQueue;
  let child: ChildProcess | undefined;

  before(async () => {
    await adminQuery(`create database "${name}"`);
    probe = openProbeDatabase(url);
    await sql`create table lease_probe_runs (job text not null, worker text not null,
      at timestamptz not null default clock_timestamp())`.execute(probe.db);
    queue = await JobQueue.start({
      pool: probe.pool,
      db: probe.db,
      log: createLogger('silent'),
      definitions: [leaseProbeJob('survivor', false)],
      lease: PROBE_LEASE,
    });
  });
  after(async () => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    await queue?.stop(5_000);
    await probe?.pool.end();
    await adminQuery(`drop database if exists "${name}" with (force)`);
  });

  const runs = async () =>
    (
      await sql<{
        job: string;
        worker: string;
      }>`select job, worker from lease_probe_runs order by at`.execute(probe.db)
    ).rows;

  test('killed mid-job, the job runs again in the surviving worker within seconds', async () => {
    assert.ok(await queue.send(leaseProbeJob('survivor', false), { id: 'probe' }));
    child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', 'apps/server/test/support/lease-worker.ts'],
      {
        cwd: ROOT,
        env: childEnv({ PROBE_DATABASE_URL: url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const deadline = Date.now() + 60_000;
    while ((await runs()).length === 0 && Date.now() < deadline) await sleep(100);
    assert.deepEqual(await runs(), [{ job: 'probe', worker: 'killed' }], stderr);

    // Its lease is renewed while it lives: still active after several lease lengths.
    await sleep(PROBE_LEASE.seconds * 2_500);
    const alive = await sql<{
      state: string;
    }>`select state from pgboss.job where name = 'test-lease-probe'`.execute(probe.db);
    assert.deepEqual(alive.rows, [{ state: 'active' }], 'not expired while its worker renews the lease');

    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();
    await queue.work({ clock: systemClock, appKey: randomBytes(32) }, { pollingIntervalSeconds: 1 });
    // Lease (2 s) + sweep (1 s) + retry delay (1 s) + polling, with room for a loaded machine;
    // without the lease it would wait for the queue's 15-minute expiry.
    while ((await runs()).length < 2 && Date.now() - killedAt < 60_000) await sleep(200);
    assert.deepEqual(await runs(), [
      { job: 'probe', worker: 'killed' },
      { job: 'probe', worker: 'survivor' },
    ]);
    const done = await sql<{ state: string; retry_count: number }>`
      select state, retry_count from pgboss.job where name = 'test-lease-probe'`.execute(probe.db);
    assert.deepEqual(done.rows.length, 1);
    assert.equal(done.rows[0]?.retry_count, 1, 'the killed attempt counted');
  });
});
