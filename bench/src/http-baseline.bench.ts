/**
 * HTTP baseline: the service's request path measured side by side with a bare Fastify
 * hello-world, in one run on one machine, so the numbers read as ratios rather than as
 * absolute figures that only hold for the machine they came from.
 *
 * Scenarios: (1) bare Fastify `GET /`; (2) the service's `GET /healthz` (the full app's
 * hooks, security headers and serializer, no database); (3) the service's authenticated
 * `GET /api/v1/admin/agents` with 10 agents (token lookup + one query on the embedded store).
 *
 * Run: `npm run bench` (BENCH_SECONDS overrides the 5 s per scenario). No pass/fail on time;
 * it exits non-zero only when a scenario answered anything but 2xx, which would void its numbers.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '@service/server/app';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../../apps/server/src/config/config.js';
import { type Database, openEmbeddedDatabase } from '../../apps/server/src/db/database.js';
import { loadMigrations, migrate } from '../../apps/server/src/db/migrate.js';
import { createAgent } from '../../apps/server/src/services/agents.js';
import { bootstrap } from '../../apps/server/src/services/bootstrap.js';
import type { Actor } from '../../apps/server/src/services/context.js';

const CONNECTIONS = 10;
const AGENTS = 10;
const WARMUP_SECONDS = 1;
const SECONDS = readSeconds(process.env.BENCH_SECONDS, 5);

/** One thing to load: where, with which headers, and what a correct answer looks like. */
type Scenario = {
  name: string;
  url: string;
  headers: Record<string, string>;
  check(body: unknown): boolean;
};

/** What the table shows for one scenario. */
type Measurement = {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  failures: number;
};

/** The embedded store the service app runs over, seeded, and how to remove it. */
type ServiceFixture = { app: FastifyInstance; database: Database; token: string; dataDir: string };

function readSeconds(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`BENCH_SECONDS must be a positive number of seconds, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** The baseline: what Fastify costs with nothing of ours on top. */
async function createBareApp(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ hello: 'world' }));
  return app;
}

/**
 * The real app (createApp) over a fresh embedded store on disk, as `DATA_DIR` would hold it,
 * migrated and seeded through the same services the CLI uses. Logging is off on both sides.
 */
async function createServiceFixture(): Promise<ServiceFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'silent',
  });
  const silent = { info() {}, warn() {} };
  const database = await openEmbeddedDatabase({ dataDir, log: silent });
  const migrations = await loadMigrations();
  await migrate(database.pool, migrations);
  const tenant = await bootstrap({
    db: database.db,
    input: { email: 'bench@example.com', password: 'correct horse battery', workspace: 'Bench' },
    bcryptCost: config.bcryptCost,
  });
  const actor: Actor = { type: 'cli', id: null };
  const scope = { db: database.db, workspaceId: tenant.workspace.id, actor };
  for (let i = 1; i <= AGENTS; i += 1) {
    await createAgent(scope, {
      name: `Agent ${i}`,
      allowed_origins: [`https://shop${i}.example.com`],
      system_prompt: 'You help visitors of the shop.',
    });
  }
  const app = await createApp({ config, database, queue: null, expectedMigrations: migrations.length });
  return { app, database, token: tenant.admin_token, dataDir };
}

async function listenLocal(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/** One request before loading, so a 401 or an empty list is never benchmarked by mistake. */
async function verify(scenario: Scenario): Promise<void> {
  const response = await fetch(scenario.url, { headers: scenario.headers });
  const body: unknown = await response.json();
  if (response.status !== 200 || !scenario.check(body)) {
    throw new Error(`${scenario.name}: unexpected answer ${response.status} ${JSON.stringify(body)}`);
  }
}

async function load(scenario: Scenario, seconds: number): Promise<Measurement> {
  const result = await autocannon({
    url: scenario.url,
    headers: scenario.headers,
    connections: CONNECTIONS,
    duration: seconds,
    // The load generator gets its own thread, so it does not share the server's event loop.
    workers: 1,
  });
  return {
    name: scenario.name,
    requestsPerSecond: result.requests.mean,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

function hasKey<K extends string>(value: unknown, key: K): value is Record<K, unknown> {
  return typeof value === 'object' && value !== null && key in value;
}

/** autocannon records latency in whole milliseconds, so anything under 1 ms reads as 0. */
function formatLatency(ms: number): string {
  return ms < 1 ? '<1' : ms.toFixed(0);
}

/** Two decimals, or two significant digits for small ratios (0.0074x rather than 0.01x). */
function formatRatio(ratio: number): string {
  return `${ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2)}x`;
}

function formatTable(rows: Measurement[], baseline: number): string {
  const header = ['scenario', 'req/s (mean)', 'p50 ms', 'p99 ms', 'requests', 'vs bare'];
  const body = rows.map((row) => [
    row.name,
    row.requestsPerSecond.toFixed(0),
    formatLatency(row.p50),
    formatLatency(row.p99),
    String(row.total),
    formatRatio(row.requestsPerSecond / baseline),
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...body.map((cells) => (cells[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => `${'-'.repeat(width + 1)}${i === 0 ? '-' : ':'}`).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

async function main(): Promise<number> {
  const cpuList = cpus();
  console.log(
    `HTTP baseline: node ${process.version}, ${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `${CONNECTIONS} connections, ${SECONDS} s per scenario after a ${WARMUP_SECONDS} s warm-up`,
  );
  const bare = await createBareApp();
  let service: ServiceFixture | null = null;
  try {
    service = await createServiceFixture();
    const bareUrl = await listenLocal(bare);
    const serviceUrl = await listenLocal(service.app);
    const scenarios: Scenario[] = [
      {
        name: 'bare Fastify GET /',
        url: `${bareUrl}/`,
        headers: {},
        check: (body) => hasKey(body, 'hello') && body.hello === 'world',
      },
      {
        name: 'healthz',
        url: `${serviceUrl}/healthz`,
        headers: {},
        check: (body) => hasKey(body, 'status') && body.status === 'ok',
      },
      {
        name: `admin agents (${AGENTS}, Bearer)`,
        url: `${serviceUrl}/api/v1/admin/agents`,
        headers: { authorization: `Bearer ${service.token}` },
        check: (body) => hasKey(body, 'data') && Array.isArray(body.data) && body.data.length === AGENTS,
      },
    ];

    const rows: Measurement[] = [];
    for (const scenario of scenarios) {
      await verify(scenario);
      await load(scenario, WARMUP_SECONDS);
      const measured = await load(scenario, SECONDS);
      console.log(`  ${scenario.name}: ${measured.requestsPerSecond.toFixed(0)} req/s`);
      rows.push(measured);
    }

    const baseline = rows[0]?.requestsPerSecond ?? 0;
    console.log(`\n${formatTable(rows, baseline)}\n`);
    for (const row of rows.slice(1)) {
      console.log(`${row.name}: ${formatRatio(row.requestsPerSecond / baseline)} of bare Fastify`);
    }
    const failed = rows.filter((row) => row.failures > 0);
    for (const row of failed) {
      console.error(`${row.name}: ${row.failures} errors, timeouts or non-2xx answers; its numbers are void`);
    }
    return failed.length > 0 ? 1 : 0;
  } finally {
    await bare.close();
    if (service) {
      await service.app.close();
      await service.database.close();
      await rm(service.dataDir, { recursive: true, force: true });
    }
  }
}

process.exitCode = await main();
