/**
 * Widget init: `POST /v1/widget/init` with a new `anon_id` on every request (a new visitor:
 * init signs a token and writes nothing; the conversation is stored at the token's first
 * call), side by side with a bare Fastify route over
 * the SAME store and pool doing the least a write request does (one indexed SELECT, one INSERT
 * into an indexed table, a small JSON answer), in one run, so the numbers read as a ratio.
 *
 * Stores: the embedded store (PGlite in a temp DATA_DIR, one connection) always; PostgreSQL
 * too when `BENCH_DATABASE_URL` is set (a fresh database is created for the run and dropped
 * after it; pool of 10 as the service's default). The anon_id is varied in autocannon's
 * worker by `widget-init-request.ts`. The widget limits are raised with
 * `WIDGET_RATE_LIMIT_SCALE=10000` (init: 600 000 a minute per IP and agent), so the run
 * measures the route rather than 429s.
 *
 * Run: `npm run bench:widget-init` (BENCH_SECONDS overrides the 5 s per scenario). No pass/fail
 * on time: the target (init ≥ 0.70x of the baseline) is printed, never asserted; it exits
 * non-zero only when an answer or an after-load check voids the numbers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { systemClock } from '../../apps/server/src/clock.js';
import { ensureAppKey } from '../../apps/server/src/config/app-key.js';
import { loadConfig } from '../../apps/server/src/config/config.js';
import { type Database, openPostgresDatabase } from '../../apps/server/src/db/database.js';
import { loadMigrations, migrate } from '../../apps/server/src/db/migrate.js';
import type { JobQueue } from '../../apps/server/src/queue/job-queue.js';
import { bootstrap } from '../../apps/server/src/services/accounts/bootstrap.js';
import { createAgent } from '../../apps/server/src/services/agents/agents.js';
import type { TenantScope } from '../../apps/server/src/services/context.js';
import {
  createBenchApp,
  type EmbeddedStore,
  openEmbeddedStore,
  startBenchQueue,
} from './support/embedded-store.js';
import { hasKey, listenLocal } from './support/http.js';
import { formatRatio, markdownTable } from './support/latency.js';
import {
  CONNECTIONS,
  describeRun,
  type LoadTarget,
  type Measurement,
  readSeconds,
  runLoad,
  WARMUP_SECONDS,
} from './support/load.js';
import { reportFailures } from './support/report.js';
import { ANON_MARKER, nextAnonId } from './widget-init-request.js';

const SECONDS = readSeconds(process.env.BENCH_SECONDS, 5);
/** Issue's target: init at ≥ 0.70x of the baseline's requests per second. */
const TARGET_RATIO = 0.7;
const ORIGIN = 'https://shop.example.com';
const INIT_PATH = '/v1/widget/init';
/** Raises every widget limit 10 000-fold (its maximum): init 600 000 a minute per IP and agent. */
const BENCH_ENV = { WIDGET_RATE_LIMIT_SCALE: '10000' };
/** autocannon's worker `require`s the per-request hook by path. */
const ANON_MODULE = fileURLToPath(new URL('./widget-init-request.ts', import.meta.url));
/** The baseline's scratch table: what it inserts a row into per request, indexed like visitors. */
const SCRATCH_TABLE = 'bench_widget_visits';

/** A migrated, bootstrapped store of either kind, and how to remove it. */
type BenchStore = Pick<EmbeddedStore, 'config' | 'database' | 'migrationCount' | 'scope' | 'close'> & {
  label: string;
};

/** One thing to load, what a correct answer looks like and how to count what it wrote. */
type Scenario = {
  name: string;
  url: string;
  headers: Record<string, string>;
  check(status: number, body: unknown): boolean;
  /** Rows the scenario writes per answered request (scratch rows: 1; init of a new visitor: 0). */
  rowsPerRequest: 0 | 1;
  countRows(): Promise<number>;
  /** After the load: anything else wrong with what it wrote, or null. */
  afterLoad?: () => Promise<string | null>;
};

/** A measured scenario with its store, for the table. */
type Row = { store: string; scenario: 'baseline' | 'init'; measured: Measurement };

/** A fresh PostgreSQL database on the server at `adminUrl`, migrated and bootstrapped; dropped on close. */
async function openPostgresStore(adminUrl: string): Promise<BenchStore> {
  const name = `svc_bench_widget_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: adminUrl, max: 1 });
  const dropDatabase = async () => {
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  };
  await admin.query(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let database: Database | null = null;
  try {
    const config = await ensureAppKey(
      loadConfig({
        DATABASE_URL: url.toString(),
        APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
        BCRYPT_COST: '4',
        LOG_LEVEL: 'silent',
        ...BENCH_ENV,
      }),
      () => {},
    );
    const silent = { info() {}, warn() {} };
    const poolSize = config.database.mode === 'postgres' ? config.database.poolSize : 10;
    const opened = await openPostgresDatabase({ url: url.toString(), poolSize, log: silent });
    database = opened;
    const migrations = await loadMigrations();
    await migrate(opened.pool, migrations);
    const tenant = await bootstrap({
      db: opened.db,
      clock: systemClock,
      input: { email: 'bench@example.com', password: 'correct horse battery', workspace: 'Bench' },
      bcryptCost: config.bcryptCost,
    });
    const scope: TenantScope = {
      db: opened.db,
      clock: systemClock,
      workspaceId: tenant.workspace.id,
      actor: { type: 'cli', id: null },
    };
    return {
      label: `postgres (pool ${poolSize})`,
      config,
      database: opened,
      migrationCount: migrations.length,
      scope,
      async close() {
        await opened.close();
        await dropDatabase();
      },
    };
  } catch (error) {
    await database?.close();
    await dropDatabase();
    throw error;
  }
}

async function openEmbedded(): Promise<BenchStore> {
  const store = await openEmbeddedStore(BENCH_ENV);
  return { ...store, label: 'embedded (PGlite, 1 connection)' };
}

/**
 * The baseline: a bare Fastify (logger off) over the same pool as the service, doing per
 * request what a write request needs at least: the agent row by primary key, one INSERT into
 * an indexed table, a small JSON answer. No validation library, no hooks, no query builder.
 */
async function createBaselineApp(pool: pg.Pool): Promise<FastifyInstance> {
  await pool.query(
    `create table ${SCRATCH_TABLE} (id text primary key, agent_id text not null, anon_id text not null, ` +
      'created_at timestamptz not null default now())',
  );
  await pool.query(
    `create unique index ${SCRATCH_TABLE}_agent_anon_idx on ${SCRATCH_TABLE} (agent_id, anon_id)`,
  );
  const app = Fastify({ logger: false });
  app.post('/', async (request, reply) => {
    const body = request.body;
    if (!hasKey(body, 'agent_id') || !hasKey(body, 'anon_id'))
      return reply.code(422).send({ error: 'bad body' });
    const agent = await pool.query<{ id: string; name: string }>(
      'select id, name from agents where id = $1 and is_published',
      [String(body.agent_id)],
    );
    const row = agent.rows[0];
    if (!row) return reply.code(404).send({ error: 'no agent' });
    const id = randomUUID();
    await pool.query(`insert into ${SCRATCH_TABLE} (id, agent_id, anon_id) values ($1, $2, $3)`, [
      id,
      row.id,
      String(body.anon_id),
    ]);
    return { data: { id, agent: row.name } };
  });
  return app;
}

/** The real app (createApp) over the store and its queue. */
async function createServiceApp(store: BenchStore, queue: JobQueue): Promise<FastifyInstance> {
  if (store.config.widgetRateLimitScale < 10_000) throw new Error('WIDGET_RATE_LIMIT_SCALE was not applied');
  return createBenchApp(store, queue);
}

async function countOf(pool: pg.Pool, text: string, values: unknown[]): Promise<number> {
  const result = await pool.query<{ n: string }>(text, values);
  return Number(result.rows[0]?.n ?? 0);
}

/** Sends one request of a scenario with a new anon_id, as the load will. */
async function sendOnce(scenario: Scenario, body: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(scenario.url, {
    method: 'POST',
    headers: scenario.headers,
    body: body.replace(ANON_MARKER, nextAnonId()),
  });
  return { status: response.status, body: await response.json() };
}

/** `{data: {token, conversation_id, visitor_id, messages: []}}`: a new visitor's session. */
function isNewSession(status: number, body: unknown): boolean {
  if (status !== 200 || !hasKey(body, 'data')) return false;
  const data = body.data;
  return (
    hasKey(data, 'token') &&
    typeof data.token === 'string' &&
    data.token.split('.').length === 3 &&
    hasKey(data, 'conversation_id') &&
    hasKey(data, 'visitor_id') &&
    hasKey(data, 'messages') &&
    Array.isArray(data.messages) &&
    data.messages.length === 0
  );
}

/**
 * Checks one answer, then a discarded warm-up and the measured load; afterwards, that every
 * answered request wrote its row (between the answered count and that plus the requests still
 * in flight when autocannon stopped).
 */
async function measureScenario(scenario: Scenario, body: string): Promise<Measurement> {
  const first = await sendOnce(scenario, body);
  if (!scenario.check(first.status, first.body)) {
    throw new Error(`${scenario.name}: unexpected answer ${first.status} ${JSON.stringify(first.body)}`);
  }
  const target: LoadTarget = {
    url: scenario.url,
    requests: [{ method: 'POST', headers: scenario.headers, body, setupRequest: ANON_MODULE }],
  };
  const before = await scenario.countRows();
  const warm = await runLoad(scenario.name, target, WARMUP_SECONDS);
  const measured = await runLoad(scenario.name, target, SECONDS);
  const written = (await scenario.countRows()) - before;
  const answered = warm.total + measured.total;
  measured.failures += warm.failures;
  const expected = answered * scenario.rowsPerRequest;
  const slack = scenario.rowsPerRequest * 2 * CONNECTIONS;
  if (written < expected || written > expected + slack) {
    measured.problem = `${answered} requests answered but ${written} rows written`;
  } else if (scenario.afterLoad) {
    measured.problem = await scenario.afterLoad();
  }
  return measured;
}

/** The baseline, then init, on one store. */
async function benchStore(store: BenchStore): Promise<Row[]> {
  // A real queue that runs nothing: init queues no page for indexing here (auto_index_pages is off).
  const queue = await startBenchQueue(store);
  const agent = await createAgent(
    { ...store.scope, queue },
    {
      name: 'Shop agent',
      allowed_origins: [ORIGIN],
      is_published: true,
      system_prompt: 'You help visitors of the shop.',
    },
  );
  const pool = store.database.pool;
  const baseline = await createBaselineApp(pool);
  const service = await createServiceApp(store, queue);
  try {
    const baselineUrl = await listenLocal(baseline);
    const serviceUrl = await listenLocal(service);
    const body = JSON.stringify({ agent_id: agent.id, anon_id: ANON_MARKER });
    const json = { 'content-type': 'application/json' };
    const scenarios: Array<{ kind: Row['scenario']; scenario: Scenario }> = [
      {
        kind: 'baseline',
        scenario: {
          name: 'baseline: SELECT agent + INSERT row',
          url: `${baselineUrl}/`,
          headers: json,
          rowsPerRequest: 1,
          check: (status, answer) =>
            status === 200 &&
            hasKey(answer, 'data') &&
            hasKey(answer.data, 'agent') &&
            answer.data.agent === agent.name,
          countRows: () => countOf(pool, `select count(*) as n from ${SCRATCH_TABLE}`, []),
        },
      },
      {
        kind: 'init',
        scenario: {
          name: `POST ${INIT_PATH}, new anon_id`,
          url: `${serviceUrl}${INIT_PATH}`,
          headers: { ...json, origin: ORIGIN },
          check: isNewSession,
          // Init of a new visitor stores nothing (lazy conversations): no visitor, no conversation.
          rowsPerRequest: 0,
          countRows: () =>
            countOf(pool, 'select count(*) as n from visitors where agent_id = $1', [agent.id]),
          async afterLoad() {
            const stored = await countOf(
              pool,
              'select count(*) as n from conversations where agent_id = $1',
              [agent.id],
            );
            return stored === 0 ? null : `${stored} conversations stored by init`;
          },
        },
      },
    ];
    const rows: Row[] = [];
    for (const { kind, scenario } of scenarios) {
      const measured = await measureScenario(scenario, body);
      console.log(
        `  ${store.label}, ${scenario.name}: ${measured.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${measured.p50} ms, p99 ${measured.p99} ms`,
      );
      rows.push({
        store: store.label,
        scenario: kind,
        measured: { ...measured, name: `${store.label}: ${scenario.name}` },
      });
    }
    return rows;
  } finally {
    await service.close();
    await baseline.close();
    await queue.stop(1_000);
  }
}

function formatLatency(ms: number): string {
  return ms < 1 ? '<1' : ms.toFixed(0);
}

/** The table (each store's init against that store's baseline), then the target per store. */
function printResults(rows: readonly Row[]): void {
  const baselineOf = (store: string) =>
    rows.find((row) => row.store === store && row.scenario === 'baseline')?.measured.requestsPerSecond ?? 0;
  const table = markdownTable(
    ['store: scenario', 'req/s (mean)', 'p50 ms', 'p99 ms', 'requests', 'vs baseline'],
    rows.map((row) => [
      `${row.store}: ${row.scenario === 'baseline' ? 'baseline, SELECT + INSERT (bare Fastify)' : 'widget init, new visitor'}`,
      row.measured.requestsPerSecond.toFixed(0),
      formatLatency(row.measured.p50),
      formatLatency(row.measured.p99),
      String(row.measured.total),
      formatRatio(row.measured.requestsPerSecond / baselineOf(row.store)),
    ]),
  );
  console.log(`\n${table}\n`);
  for (const row of rows.filter((candidate) => candidate.scenario === 'init')) {
    const ratio = row.measured.requestsPerSecond / baselineOf(row.store);
    console.log(
      `Target: init ≥ ${TARGET_RATIO.toFixed(2)}x of the baseline on ${row.store}: ` +
        `${ratio >= TARGET_RATIO ? 'met' : 'not met'} (measured ${formatRatio(ratio)})`,
    );
  }
}

async function main(): Promise<number> {
  console.log(describeRun('Widget init', SECONDS));
  const postgresUrl = process.env.BENCH_DATABASE_URL?.trim() ?? '';
  if (postgresUrl === '') console.log('BENCH_DATABASE_URL is not set: embedded store only.');
  const openers: Array<() => Promise<BenchStore>> = [openEmbedded];
  if (postgresUrl !== '') openers.push(() => openPostgresStore(postgresUrl));
  const rows: Row[] = [];
  for (const open of openers) {
    const store = await open();
    try {
      rows.push(...(await benchStore(store)));
    } finally {
      await store.close();
    }
  }
  printResults(rows);
  return reportFailures(rows.map((row) => row.measured));
}

process.exitCode = await main();
