/**
 * The service under load, side by side with itself idle, in one run:
 * (a) `GET /healthz` and admin search (`POST /api/v1/admin/agents/{id}/search`) p95 while idle,
 *     then while a 1,000-page sitemap source (a loopback fake site) is fetched, indexed and
 *     embedded by the service's own worker (goal: ≤ 2× idle);
 * (b) widget time to first token p95 with 10 questions in flight beside one at a time (goal ≤ 3×),
 *     the model being a fake OpenAI-compatible upstream that streams at once, or after
 *     `--model-delay-ms` (a hosted model's own time to its first token). With a delay, the table
 *     also shows the service's overhead: the time to first token minus that delay. Ten clients
 *     ask again as soon as their answer ends (a closed loop; its first rounds, which start in
 *     step, not counted), once all starting together and once with their first questions spread
 *     over one answer's time; then, as the worst case beside the goal, rounds in which all ten
 *     ask in the same millisecond and the next round waits for all ten answers.
 *
 * The service is started as `npm start` starts it (`startService`: embedded store in a temp
 * DATA_DIR, migrations, queue, worker, HTTP on 127.0.0.1), with SAFE_URL_ALLOW letting the
 * crawl reach the fake site and CRAWL_DELAY_MS=0. Probes are sequential (the next one starts when
 * the last one answered), so they measure latency, not throughput.
 *
 * Run: `npm run bench:load` (`-- --pages 1000 --idle-seconds 15 --requests 300 --model-delay-ms 0`;
 * `--ttft-only` skips (a); with it, `--service-process` runs the service from the build in a process of
 * its own, so the bench's clients and fake model share no event loop with it). Nothing passes or fails on time; it exits non-zero when a probe answers
 * wrong or the source fails.
 */
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { sql } from 'kysely';
import { type BenchService, startBenchService } from './support/bench-service.js';
import { startFakeOpenAi } from './support/fake-openai.js';
import { hasKey } from './support/http.js';
import { argument, formatMs, markdownTable, positiveIntegers, summarize } from './support/latency.js';
import { comparisonRow, measureTtft, ORIGIN, type TtftResult, ttftRows } from './support/load-ttft.js';
import { startServiceProcess } from './support/service-process.js';

const PAGES = positiveIntegers(argument('pages'), [1000], '--pages')[0] ?? 1000;
const IDLE_SECONDS = positiveIntegers(argument('idle-seconds'), [15], '--idle-seconds')[0] ?? 15;
const REQUESTS = positiveIntegers(argument('requests'), [300], '--requests')[0] ?? 300;
const MODEL_DELAY_MS = Number(argument('model-delay-ms') ?? 0);
if (!Number.isInteger(MODEL_DELAY_MS) || MODEL_DELAY_MS < 0) {
  console.error('--model-delay-ms takes a whole number of ms');
  process.exit(2);
}
const TTFT_ONLY = process.argv.includes('--ttft-only');
// The service in its own process (the build's main.js), not in the bench's: with --ttft-only only.
const SERVICE_PROCESS = process.argv.includes('--service-process');
if (SERVICE_PROCESS && !TTFT_ONLY) {
  console.error('--service-process measures the widget TTFT only: add --ttft-only');
  process.exit(2);
}
const LOAD_LIMIT_MS = 15 * 60 * 1000;
const WORDS = (
  'delivery parcel return refund invoice voucher sweater jacket wool cotton store opening hours payment card ' +
  'warehouse courier tracking exchange size repair order account password newsletter discount season'
).split(' ');

/** A page of the fake site: about 2 KB of text in five paragraphs, different on every page. */
function pageHtml(n: number): string {
  const paragraphs = Array.from({ length: 5 }, (_, p) => {
    const words = Array.from({ length: 70 }, (_, w) => WORDS[(n * 7 + p * 13 + w * 31) % WORDS.length]);
    return `<p>Page ${n} part ${p}: ${words.join(' ')}.</p>`;
  });
  return `<!doctype html><html><head><title>Manual page ${n}</title></head><body><main><h1>Manual page ${n}</h1>${paragraphs.join('')}</main></body></html>`;
}

/** The loopback site: `/sitemap.xml` lists PAGES pages. */
async function startSite() {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/sitemap.xml') {
      const base = `http://127.0.0.1:${port}`;
      const entries = Array.from({ length: PAGES }, (_, n) => `<url><loc>${base}/p/${n}</loc></url>`).join(
        '',
      );
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</urlset>`,
      );
      return;
    }
    const match = /^\/p\/(\d+)$/.exec(url);
    if (match) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(pageHtml(Number(match[1])));
      return;
    }
    if (url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Api = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<unknown>;

function apiFor(baseUrl: string, token: string): Api {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return hasKey(json, 'data') ? json.data : json;
  };
}

function idOf(value: unknown): string {
  if (!hasKey(value, 'id') || typeof value.id !== 'string')
    throw new Error(`no id in ${JSON.stringify(value)}`);
  return value.id;
}

async function sourceStatus(api: Api, id: string): Promise<string> {
  const source = await api('GET', `/api/v1/admin/sources/${id}`);
  return hasKey(source, 'status') ? String(source.status) : 'unknown';
}

/** The agent's FAQ: a text source of 40 pages' text, waited for until indexed. */
async function indexFaq(api: Api, agentId: string): Promise<void> {
  const faq = idOf(
    await api('POST', `/api/v1/admin/agents/${agentId}/sources`, {
      type: 'text',
      name: 'FAQ',
      text: Array.from({ length: 40 }, (_, n) => pageHtml(n).replace(/<[^>]+>/g, ' ')).join('\n\n'),
    }),
  );
  for (;;) {
    const status = await sourceStatus(api, faq);
    if (status === 'indexed') return;
    if (status === 'failed') throw new Error('the FAQ source failed to index');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Probes /healthz and admin search, each in its own sequential loop, until `until()` says stop. */
async function probe(baseUrl: string, api: Api, agentId: string, until: () => boolean) {
  const health: number[] = [];
  const search: number[] = [];
  const healthLoop = async () => {
    while (!until()) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/healthz`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
      health.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const searchLoop = async () => {
    let n = 0;
    while (!until()) {
      const started = performance.now();
      // apiFor throws on any answer but 2xx.
      await api('POST', `/api/v1/admin/agents/${agentId}/search`, {
        query: `${WORDS[n % WORDS.length]} ${WORDS[(n * 5) % WORDS.length]}`,
      });
      search.push(performance.now() - started);
      n += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await Promise.all([healthLoop(), searchLoop()]);
  return { health: summarize(health), search: summarize(search) };
}

function printTtft(widget: TtftResult): void {
  console.log(
    `\n${markdownTable(
      ['measure', 'n', 'p50 ms', 'p95 ms', 'n', 'p50 ms', 'p95 ms', 'p95 ratio', 'goal'],
      ttftRows(widget, MODEL_DELAY_MS),
    )}\n`,
  );
  console.log(
    `load average at the end ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}`,
  );
}

/** Two published agents' worth of setup, then the TTFT rows, the service being a process of its own. */
async function ttftOfServiceProcess(llmBaseUrl: string): Promise<number> {
  const service = await startServiceProcess({ name: 'load', llmBaseUrl });
  try {
    console.log(`  the service runs in its own process (pid ${service.pid}), started from the build`);
    const api = apiFor(service.baseUrl, service.adminToken);
    const shop = idOf(
      await api('POST', '/api/v1/admin/agents', {
        name: 'Shop',
        allowed_origins: [ORIGIN],
        is_published: true,
      }),
    );
    await indexFaq(api, shop);
    printTtft(await measureTtft(service.baseUrl, shop, REQUESTS));
    return 0;
  } finally {
    await service.stop();
  }
}

async function main(): Promise<number> {
  const cpu = cpus();
  console.log(
    `Service under load: node ${process.version}, ${cpu.length} x ${cpu[0]?.model.trim() ?? 'CPU'}, ` +
      `${PAGES} pages, load average ${loadavg()[0]?.toFixed(1)}`,
  );
  const site = await startSite();
  const fake = await startFakeOpenAi(['Delivery ', 'takes two to three ', 'working days [1].'], {
    firstTokenDelayMs: MODEL_DELAY_MS,
  });
  if (SERVICE_PROCESS) {
    try {
      return await ttftOfServiceProcess(fake.baseUrl);
    } finally {
      await fake.close();
      await site.close();
    }
  }
  let bench: BenchService | null = null;
  try {
    bench = await startBenchService({
      name: 'load',
      llmBaseUrl: fake.baseUrl,
      env: {
        SAFE_URL_ALLOW: `127.0.0.1:${site.port}`,
        CRAWL_DELAY_MS: '0',
        ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
        ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: '100000',
        // The source is indexed and embedded (the offline vectors): the heavier case, as the
        // issue measured it; the default provider (none) computes no vectors.
        EMBEDDINGS_PROVIDER: 'offline',
      },
    });
    const { service, baseUrl, tenant } = bench;
    const api = apiFor(baseUrl, tenant.admin_token);
    const agent = (name: string) =>
      api('POST', '/api/v1/admin/agents', { name, allowed_origins: [ORIGIN], is_published: true });
    const shop = idOf(await agent('Shop'));
    const manual = idOf(await agent('Manual'));
    await indexFaq(api, shop);
    const statusOf = (id: string) => sourceStatus(api, id);

    if (TTFT_ONLY) {
      const widget = await measureTtft(baseUrl, shop, REQUESTS);
      printTtft(widget);
      return 0;
    }
    const idleUntil = performance.now() + IDLE_SECONDS * 1000;
    const idle = await probe(baseUrl, api, shop, () => performance.now() > idleUntil);
    console.log(
      `  idle: healthz p95 ${formatMs(idle.health.p95)} ms, search p95 ${formatMs(idle.search.p95)} ms`,
    );

    const loadStarted = performance.now();
    const sitemap = idOf(
      await api('POST', `/api/v1/admin/agents/${manual}/sources`, {
        type: 'sitemap',
        url: `http://127.0.0.1:${site.port}/sitemap.xml`,
        max_pages: PAGES,
      }),
    );
    let status = 'queued';
    let embedded = false;
    const db = service.database.db;
    const watcher = (async () => {
      while (performance.now() - loadStarted < LOAD_LIMIT_MS) {
        status = await statusOf(sitemap);
        if (status === 'failed') return;
        if (status === 'indexed') {
          const counts = await sql<{ chunks: string; missing: string }>`
            select count(*) as chunks, count(*) filter (where e.content_hash is null) as missing
            from chunks c left join embeddings e on e.agent_id = c.agent_id and e.content_hash = c.content_hash
            where c.agent_id = ${manual}`.execute(db);
          const row = counts.rows[0];
          if (row && Number(row.chunks) > 0 && Number(row.missing) === 0) {
            embedded = true;
            return;
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    })();
    const loaded = await probe(
      baseUrl,
      api,
      shop,
      () => embedded || status === 'failed' || performance.now() - loadStarted > LOAD_LIMIT_MS,
    );
    await watcher;
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    console.log(
      `  under load (${status}${embedded ? ', embedded' : ''}, ${loadSeconds.toFixed(0)} s): healthz p95 ` +
        `${formatMs(loaded.health.p95)} ms, search p95 ${formatMs(loaded.search.p95)} ms, load average ${loadavg()[0]?.toFixed(1)}`,
    );

    const widget = await measureTtft(baseUrl, shop, REQUESTS);
    const row = comparisonRow;
    console.log(
      `\n${markdownTable(
        ['measure', 'n', 'p50 ms', 'p95 ms', 'n', 'p50 ms', 'p95 ms', 'p95 ratio', 'goal'],
        [
          row('healthz: idle vs while indexing', idle.health, loaded.health, '≤ 2x'),
          row('admin search: idle vs while indexing', idle.search, loaded.search, '≤ 2x'),
          ...ttftRows(widget, MODEL_DELAY_MS),
        ],
      )}\n`,
    );
    console.log(
      `Indexing: ${PAGES}-page sitemap source ${status}${embedded ? ' and embedded' : ''} in ${loadSeconds.toFixed(0)} s; ` +
        `load average at the end ${loadavg()
          .map((n) => n.toFixed(1))
          .join(' ')}`,
    );
    return embedded ? 0 : 1;
  } finally {
    await bench?.stop();
    await fake.close();
    await site.close();
  }
}

process.exitCode = await main();
