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
import Fastify, { type FastifyInstance } from 'fastify';
import type { JobQueue } from '../../apps/server/src/queue/job-queue.js';
import { createAgent } from '../../apps/server/src/services/agents/agents.js';
import {
  createBenchApp,
  type EmbeddedStore,
  openEmbeddedStore,
  startBenchQueue,
} from './support/embedded-store.js';
import { hasKey, listenLocal } from './support/http.js';
import { describeRun, type Measurement, measure, readSeconds } from './support/load.js';
import { printComparison, reportFailures } from './support/report.js';

const AGENTS = 10;
const SECONDS = readSeconds(process.env.BENCH_SECONDS, 5);

/** One thing to load: where, with which headers, and what a correct answer looks like. */
type Scenario = {
  name: string;
  url: string;
  headers: Record<string, string>;
  check(body: unknown): boolean;
};

/** The service app over its seeded embedded store, and the admin token to call it with. */
type ServiceFixture = { app: FastifyInstance; store: EmbeddedStore; queue: JobQueue; token: string };

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
  const store = await openEmbeddedStore();
  // A real queue that runs nothing: the routes measured here send no jobs.
  const queue = await startBenchQueue(store);
  for (let i = 1; i <= AGENTS; i += 1) {
    await createAgent(
      { ...store.scope, queue },
      {
        name: `Agent ${i}`,
        allowed_origins: [`https://shop${i}.example.com`],
        system_prompt: 'You help visitors of the shop.',
      },
    );
  }
  const app = await createBenchApp(store, queue);
  return { app, store, queue, token: store.tenant.admin_token };
}

/** One request before loading, so a 401 or an empty list is never benchmarked by mistake. */
async function verify(scenario: Scenario): Promise<void> {
  const response = await fetch(scenario.url, { headers: scenario.headers });
  const body: unknown = await response.json();
  if (response.status !== 200 || !scenario.check(body)) {
    throw new Error(`${scenario.name}: unexpected answer ${response.status} ${JSON.stringify(body)}`);
  }
}

async function main(): Promise<number> {
  console.log(describeRun('HTTP baseline', SECONDS));
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
      const measured = await measure(
        scenario.name,
        { url: scenario.url, headers: scenario.headers },
        SECONDS,
      );
      console.log(`  ${scenario.name}: ${measured.requestsPerSecond.toFixed(0)} req/s`);
      rows.push(measured);
    }

    printComparison(rows, { rateTitle: 'req/s (mean)' });
    return reportFailures(rows);
  } finally {
    await bare.close();
    if (service) {
      await service.app.close();
      await service.queue.stop(1_000);
      await service.store.close();
    }
  }
}

process.exitCode = await main();
