// Redis stopped and started under a running service (a private redis-server on its own port,
// never the machine's): while it is gone the rate limits count per instance (in memory) with a
// logged warning, and still hold; no request fails because of Redis; once it is back the counts
// go to Redis again, where every instance shares them. Embedded store: runs in the PGlite pass
// only (the PostgreSQL pass skips it; it does not use the database under test).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ServiceProcess } from '../support/processes.js';
import { freePort } from './support/private-cluster.js';
import { bootstrapOwner, call, sleep } from './support/service-http.js';

const LIMIT = 40;
const redisMissing = spawnSync('redis-server', ['--version']).status !== 0;
const skip = process.env.TEST_DATABASE_URL
  ? 'runs once per CI, in the PGlite pass'
  : redisMissing
    ? 'redis-server is not installed (apt-get install redis-server)'
    : false;

describe('Redis stopped and started: limits fall back per instance, then shared again', { skip }, () => {
  let root: string;
  let port: number;
  let redis: ChildProcess | null = null;
  let client: Redis;
  let service: ServiceProcess;
  let url: string;
  let auth: Record<string, string>;

  const startRedis = async () => {
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 100 });
    probe.on('error', () => {});
    // connect() settles once; the client keeps retrying by itself until the server answers.
    probe.connect().catch(() => {});
    const deadline = Date.now() + 30_000;
    while (probe.status !== 'ready' && Date.now() < deadline) await sleep(50);
    assert.equal(await probe.ping(), 'PONG');
    probe.disconnect();
  };
  const stopRedis = async () => {
    const child = redis;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    redis = null;
  };
  /** What Redis holds for the admin limiter: the points consumed, summed over its keys. */
  const sharedCount = async () => {
    const keys = await client.keys('svc:rl:admin:*');
    let total = 0;
    for (const key of keys) total += Number((await client.get(key)) ?? 0);
    return total;
  };
  const adminGets = async (count: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += 1)
      statuses.push((await call(url, 'GET', '/api/v1/admin/agents', auth)).status);
    return statuses;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-redis-'));
    port = await freePort();
    await startRedis();
    client = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 200, maxRetriesPerRequest: 1 });
    client.on('error', () => {});
    const env = {
      DATA_DIR: join(root, 'data'),
      PORT: '0',
      HOST: '127.0.0.1',
      BCRYPT_COST: '4',
      DEMO_SEED: 'false',
      REDIS_URL: `redis://127.0.0.1:${port}`,
      ADMIN_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    };
    service = new ServiceProcess(env);
    url = await service.waitForUrl(120_000);
    ({ auth } = await bootstrapOwner(env));
  });
  after(async () => {
    service?.kill();
    await service?.exited;
    client?.disconnect();
    await stopRedis();
    await rm(root, { recursive: true, force: true });
  });

  test('with Redis up, the admin limit counts in Redis', async () => {
    assert.deepEqual(await adminGets(5), [200, 200, 200, 200, 200]);
    assert.equal(await sharedCount(), 5);
  });

  test('Redis stopped: a warning, no request fails because of it, the limit holds per instance', async () => {
    await stopRedis();
    // Up to the limit every request is served by the in-memory count; past it, 429 as before.
    const statuses = await adminGets(LIMIT + 1);
    assert.deepEqual(
      statuses.slice(0, LIMIT),
      Array(LIMIT).fill(200),
      'nothing failed because Redis is gone',
    );
    assert.equal(statuses[LIMIT], 429, 'the per-instance count still limits');
    const warning = await service.waitForLine(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('rate limits: Redis is unreachable'),
      10_000,
    );
    assert.equal(warning.level, 40);
    // Widget and health routes, which count in other limiters, are served too.
    assert.equal((await call(url, 'GET', '/readyz', {})).status, 200);
  });

  test('Redis started again: the service counts in Redis again, by itself', async () => {
    await startRedis();
    await service.waitForLine(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('rate limits: Redis is back'),
      30_000,
    );
    // The new Redis is empty (no persistence): shared counting starts over there.
    await client.ping().catch(() => undefined);
    const before = await sharedCount();
    assert.deepEqual(await adminGets(3), [200, 200, 200]);
    assert.equal((await sharedCount()) - before, 3, 'each request counted in Redis');
  });
});
