// End-to-end crawl-safety scenario, run by test/ssrf-namespace.test.ts inside a network namespace
// that has loopback only (`unshare -n`), so even a broken guard can reach nothing but the
// counting servers started here. It refuses to start when any other interface exists.
//
// Only ever run as a script (the test imports its types alone). Input: env SSRF_SCENARIO_INPUT,
// JSON `ScenarioInput`, URL templates in which `{P}` is the counting server's port, `{A}` the
// allowed server's and `{B}` the second counting server's. Output: one stdout line
// `SSRF_SCENARIO_RESULT <json>` (`ScenarioResult`); on any error, exit 1 with it on stderr.
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ZAgent, ZSource } from '@service/contract';
import { z } from 'zod';
import { documentsOfSource, PAGE_V1, runFetchJob } from './sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './test-app.js';

const ZScenarioInput = z.strictObject({
  /** Source URLs added with SAFE_URL_ALLOW empty; `{P}` is the counting server's port. */
  hostile: z.array(z.string()),
  /** Locations that server A answers with 302 on `/r/<index>`; `{A}` and `{B}` are ports. */
  redirects: z.array(z.string()),
  /** Source URLs added with SAFE_URL_ALLOW=127.0.0.1:{A}. */
  allowedPhase: z.array(z.string()),
});
/** What the test asks for. */
export type ScenarioInput = z.infer<typeof ZScenarioInput>;

/** One source: how its create call went and, when created, what the fetch job left. */
export type SourceOutcome = {
  template: string;
  url: string;
  createStatus: number;
  createBody: string | null;
  sourceStatus: string | null;
  error: string | null;
  documents: number;
};

/** A counting server's view: every request it received (`METHOD host path`). */
export type Counted = { port: number; ipv6: boolean; requests: string[] };

/** What the scenario reports. */
export type ScenarioResult = {
  interfaces: string[];
  hostile: { counting: Counted; outcomes: SourceOutcome[]; storedSources: number; probes: number };
  allowed: {
    allowList: string;
    a: Counted;
    b: Counted;
    outcomes: SourceOutcome[];
    storedSources: number;
    probes: number;
  };
};

/** Prefix of the result line (the test reads the line that starts with it). */
const RESULT_MARKER = 'SSRF_SCENARIO_RESULT ';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type CountingServer = Counted & { close(): Promise<void> };

/** Listens on 127.0.0.1:0 and, when the namespace has IPv6 loopback, on [::1] at the same port. */
async function startCounting(handler: Handler): Promise<CountingServer> {
  const requests: string[] = [];
  const onRequest: Handler = (req, res) => {
    requests.push(`${req.method} ${req.headers.host ?? '-'} ${req.url ?? ''}`);
    handler(req, res);
  };
  const v4 = createServer(onRequest);
  await listen(v4, 0, '127.0.0.1');
  const address: AddressInfo | string | null = v4.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const port = address.port;
  const v6 = createServer(onRequest);
  const ipv6 = await listen(v6, port, '::1').then(
    () => true,
    () => false,
  );
  const servers = ipv6 ? [v4, v6] : [v4];
  return {
    port,
    ipv6,
    requests,
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: host.includes(':') }, () => resolve());
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

const servePage: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(PAGE_V1);
};

/** Direct requests (no guard) to the server on both loopback families: proves it would have counted. */
async function probe(server: CountingServer): Promise<number> {
  const before = server.requests.length;
  const hosts = server.ipv6 ? ['127.0.0.1', '::1'] : ['127.0.0.1'];
  for (const host of hosts) {
    await new Promise<void>((resolve, reject) => {
      get({ host, port: server.port, path: '/probe' }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      }).on('error', reject);
    });
  }
  return server.requests.length - before;
}

function fill(template: string, ports: Record<string, number>): string {
  return template.replace(/\{([A-Z])\}/g, (whole, name: string) => String(ports[name] ?? whole));
}

/** Adds each URL as a source through the admin API, runs its fetch job as the worker would, reads it back. */
async function addAndFetch(
  t: TestApp,
  templates: string[],
  ports: Record<string, number>,
): Promise<{ outcomes: SourceOutcome[]; storedSources: number }> {
  const tenant: Tenant = await seedTenant(t, 'Crawl safety');
  const agent = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Bot' }, tenant.auth);
  if (agent.statusCode !== 201) throw new Error(`agent not created: ${agent.statusCode} ${agent.body}`);
  const agentId = ZAgent.parse(agent.json().data).id;
  const outcomes: SourceOutcome[] = [];
  for (const template of templates) {
    const url = fill(template, ports);
    const created = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agentId}/sources`,
      { type: 'url', url },
      tenant.auth,
    );
    const outcome: SourceOutcome = {
      template,
      url,
      createStatus: created.statusCode,
      createBody: null,
      sourceStatus: null,
      error: null,
      documents: 0,
    };
    outcomes.push(outcome);
    if (created.statusCode !== 201) {
      outcome.createBody = created.body;
      continue;
    }
    const id = ZSource.parse(created.json().data).id;
    await runFetchJob(t, id);
    const shown = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/sources/${id}`,
      headers: tenant.auth,
    });
    const source = ZSource.parse(shown.json().data);
    outcome.sourceStatus = source.status;
    outcome.error = source.error;
    outcome.documents = (await documentsOfSource(t, id)).length;
  }
  // Every source row of the agent: a URL refused at create (422) must leave none behind.
  const stored = await t.database.db
    .selectFrom('sources')
    .select('id')
    .where('agent_id', '=', agentId)
    .execute();
  return { outcomes, storedSources: stored.length };
}

async function hostilePhase(input: ScenarioInput): Promise<ScenarioResult['hostile']> {
  const counting = await startCounting(servePage);
  const t = await createTestApp({ env: { SAFE_URL_ALLOW: '' } });
  try {
    if (t.config.safeUrlAllow.length !== 0) throw new Error('SAFE_URL_ALLOW must be empty here');
    const added = await addAndFetch(t, input.hostile, { P: counting.port });
    const snapshot: Counted = { port: counting.port, ipv6: counting.ipv6, requests: [...counting.requests] };
    return { counting: snapshot, ...added, probes: await probe(counting) };
  } finally {
    await t.close();
    await counting.close();
  }
}

async function allowedPhase(input: ScenarioInput): Promise<ScenarioResult['allowed']> {
  const b = await startCounting(servePage);
  let aPort = 0;
  const a = await startCounting((req, res) => {
    const index = /^\/r\/(\d+)$/.exec(req.url ?? '')?.[1];
    const location = index === undefined ? undefined : input.redirects[Number(index)];
    if (location === undefined) return servePage(req, res);
    res.writeHead(302, { location: fill(location, { A: aPort, B: b.port }) });
    res.end();
  });
  aPort = a.port;
  const allowList = `127.0.0.1:${a.port}`;
  const t = await createTestApp({ env: { SAFE_URL_ALLOW: allowList } });
  try {
    const added = await addAndFetch(t, input.allowedPhase, { A: a.port, B: b.port });
    const snapshot = (server: CountingServer): Counted => ({
      port: server.port,
      ipv6: server.ipv6,
      requests: [...server.requests],
    });
    const result = { allowList, a: snapshot(a), b: snapshot(b), ...added };
    return { ...result, probes: await probe(b) };
  } finally {
    await t.close();
    await a.close();
    await b.close();
  }
}

async function main(): Promise<void> {
  // Habit 7: this scenario points the service at hostile URLs, so it runs only where nothing but
  // loopback can be reached.
  const interfaces = Object.keys(networkInterfaces()).sort();
  if (interfaces.some((name) => name !== 'lo')) {
    throw new Error(`not in a loopback-only network namespace (interfaces: ${interfaces.join(', ')})`);
  }
  const raw = process.env.SSRF_SCENARIO_INPUT;
  if (!raw) throw new Error('SSRF_SCENARIO_INPUT is not set');
  const input = ZScenarioInput.parse(JSON.parse(raw));
  const hostile = await hostilePhase(input);
  const allowed = await allowedPhase(input);
  const result: ScenarioResult = { interfaces, hostile, allowed };
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(result)}\n`);
}

// A hard stop: a hung fetch must not keep the test waiting past its own timeout.
const watchdog = setTimeout(() => {
  process.stderr.write('ssrf-scenario: gave up after 85 s\n');
  process.exit(2);
}, 85_000);
watchdog.unref();
main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`ssrf-scenario failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
