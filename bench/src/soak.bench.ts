/**
 * Soak: mixed traffic at a fixed rate through nginx into the multi-instance set
 * (`scripts/cluster/start-cluster.mjs`: service instances and worker-only processes on PostgreSQL
 * and Redis), for a bounded time, loopback only. Widget inits and messages (answered by a fake
 * OpenAI-compatible model on loopback), signed site syncs, admin reads and uploads.
 *
 * Prints, per minute: requests, errors, p50/p99 (all kinds together and per kind); every
 * process's memory (RSS) over time with its slope; the database's connections and the job
 * queue's depth. Ends with the verdict on the targets: zero errors, no memory growth trend,
 * p99 flat within ±20 % across minutes (the first minute is the warm-up).
 *
 *   npm run bench:soak --workspace bench -- --minutes 15 --rate 6
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SIGNATURE_HEADER, signRequest } from '@service/contract';
import pg from 'pg';
import { type Cluster, clusterUnavailable, startCluster } from '../../scripts/cluster/start-cluster.mjs';
import { startFakeOpenAi } from './support/fake-openai.js';
import { argument, formatMs, markdownTable, summarize } from './support/latency.js';
import {
  buildMix,
  KINDS,
  type Kind,
  type MinuteRecord,
  memorySlope,
  minuteRows,
  type Sample,
  verdict,
} from './support/soak-report.js';

const minutes = Number(argument('minutes') ?? 15);
const rate = Number(argument('rate') ?? 6);
const instanceCount = Number(argument('instances') ?? 3);
const workerCount = Number(argument('workers') ?? 2);
/** Requests in flight at most; beyond it a tick's requests count as errors (the set fell behind). */
const MAX_IN_FLIGHT = 64;
const SAMPLE_EVERY_MS = 10_000;
const ORIGIN = 'https://shop.example.com';
const QUESTIONS = [
  'How long does shipping take?',
  'Can I return an opened item?',
  'Which grinder do you recommend for espresso?',
  'Do you ship to Norway?',
  'What is the warranty on the kettle?',
];

if (!(minutes > 0 && rate > 0 && instanceCount >= 1 && workerCount >= 0)) {
  console.error('usage: soak.bench.ts [--minutes 15] [--rate 6] [--instances 3] [--workers 2]');
  process.exit(2);
}

type Ctx = {
  cluster: Cluster;
  agentId: string;
  admin: Record<string, string>;
  siteToken: string;
  visitors: string[];
  nextPost: number;
};

async function call(
  base: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | FormData } = {},
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: init.headers,
    body: init.body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

const dataOf = (json: unknown): Record<string, unknown> =>
  typeof json === 'object' && json !== null && 'data' in json ? (json.data as Record<string, unknown>) : {};

function postRecord(wpId: number, version: number) {
  const text = `Article ${wpId}, revision ${version}: how we roast, grind and ship coffee to ${['Oslo', 'Lyon', 'Porto'][wpId % 3]}.`;
  return {
    wp_id: wpId,
    post_type: 'post',
    permalink: `${ORIGIN}/blog/article-${wpId}`,
    title: `Article ${wpId}`,
    content_html: `<p>${text}</p>`,
    excerpt: text.slice(0, 80),
    content_hash: randomBytes(32).toString('hex'),
    modified_at: new Date().toISOString(),
    language: 'en-us',
    taxonomy_terms: ['coffee'],
  };
}

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Sends one request of `kind`; answers its status. */
async function run(kind: Kind, ctx: Ctx): Promise<number> {
  const base = ctx.cluster.url;
  const widgetHeaders = (token?: string) => ({
    'content-type': 'application/json',
    origin: ORIGIN,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });
  switch (kind) {
    case 'widget.init': {
      const answer = await call(base, 'POST', '/v1/widget/init', {
        headers: widgetHeaders(),
        body: JSON.stringify({ agent_id: ctx.agentId, anon_id: `soak${randomBytes(10).toString('hex')}` }),
      });
      const token = dataOf(answer.json).token;
      if (answer.status === 200 && typeof token === 'string') {
        ctx.visitors.push(token);
        if (ctx.visitors.length > 50) ctx.visitors.shift();
      }
      return answer.status;
    }
    case 'widget.message': {
      const token = ctx.visitors[Math.floor(Math.random() * ctx.visitors.length)];
      if (!token) return run('widget.init', ctx);
      const question = QUESTIONS[Math.floor(Math.random() * QUESTIONS.length)] ?? 'hello';
      const answer = await call(base, 'POST', '/v1/widget/messages', {
        headers: widgetHeaders(token),
        body: JSON.stringify({ message: question }),
      });
      return answer.status;
    }
    case 'site.sync': {
      // Five posts: mostly edits of the first 200, sometimes a new one.
      const posts = Array.from({ length: 5 }, () => {
        ctx.nextPost += 1;
        return postRecord(1 + (ctx.nextPost % 200), ctx.nextPost);
      });
      const body = JSON.stringify({
        agent_id: ctx.agentId,
        site_url: ORIGIN,
        plugin_version: 'soak',
        posts,
      });
      const answer = await call(base, 'POST', '/api/v1/wp/posts/sync', {
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${ctx.siteToken}`,
          [SIGNATURE_HEADER]: signRequest(ctx.siteToken, body, Math.floor(Date.now() / 1000)),
        },
        body,
      });
      return answer.status;
    }
    case 'admin.read': {
      const paths = [
        '/api/v1/admin/agents',
        `/api/v1/admin/agents/${ctx.agentId}/sources`,
        '/api/v1/admin/conversations?filter=open',
        '/api/v1/admin/conversations/counts',
        '/api/v1/admin/leads',
      ];
      const path = paths[Math.floor(Math.random() * paths.length)] ?? paths[0];
      const answer = await call(base, 'GET', path ?? '/api/v1/admin/agents', { headers: ctx.admin });
      return answer.status;
    }
    case 'upload': {
      const form = new FormData();
      const text = `Soak upload ${randomBytes(6).toString('hex')}\n\nOur opening hours are 9 to 17. ${'Coffee notes. '.repeat(40)}`;
      form.append('file', new Blob([text], { type: 'text/plain' }), `soak-${Date.now()}.txt`);
      const answer = await call(base, 'POST', `/api/v1/admin/agents/${ctx.agentId}/uploads`, {
        headers: ctx.admin,
        body: form,
      });
      return answer.status;
    }
  }
}

/** RSS of a process in MB (from /proc), or null when it is gone. */
function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

async function setUp(cluster: Cluster): Promise<Ctx> {
  if (!cluster.admin) throw new Error('the cluster has no admin token');
  const admin = { authorization: `Bearer ${cluster.admin.token}` };
  const json = { ...admin, 'content-type': 'application/json' };
  const agent = await call(cluster.url, 'POST', '/api/v1/admin/agents', {
    headers: json,
    body: JSON.stringify({ name: 'Soak bot', is_published: true, allowed_origins: [ORIGIN] }),
  });
  const agentId = String(dataOf(agent.json).id);
  const token = await call(cluster.url, 'POST', '/api/v1/admin/tokens', {
    headers: json,
    body: JSON.stringify({ name: 'Soak site', abilities: ['wp:integration'] }),
  });
  const siteToken = String(dataOf(token.json).token);
  if (agent.status !== 201 || token.status !== 201) {
    throw new Error(
      `setup failed: agent ${agent.status}, token ${token.status} ${JSON.stringify(token.json)}`,
    );
  }
  return { cluster, agentId, admin, siteToken, visitors: [], nextPost: 0 };
}

async function main(): Promise<void> {
  const unavailable = await clusterUnavailable({ installNginx: true });
  if (unavailable) {
    console.error(`soak: cannot start the set: ${unavailable}`);
    process.exit(1);
  }
  const fake = await startFakeOpenAi(['Thanks for asking. ', 'Shipping takes two days. ', 'Anything else?']);
  const cluster = await startCluster({
    instances: instanceCount,
    workers: workerCount,
    env: {
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: 'x',
      // One client address (the bench) sends everything: the per-address limits are raised so
      // they measure the set, not the limiter.
      WIDGET_RATE_LIMIT_SCALE: '1000',
      WP_THROTTLE_PER_MINUTE: '100000',
      ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
      ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
    },
  });
  const db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  const processes = [...cluster.instances, ...cluster.workers];
  const records: MinuteRecord[] = [];
  const memory: Sample[] = [];
  const dbSamples: { at: number; connections: number; queue: number }[] = [];
  const failures = new Map<string, number>();
  try {
    const ctx = await setUp(cluster);
    const mix = buildMix(rate);
    const started = Date.now();
    const endAt = started + minutes * 60_000;
    let inFlight = 0;
    const pending = new Set<Promise<void>>();
    const sample = async () => {
      const at = (Date.now() - started) / 60_000;
      for (const proc of processes) {
        const mb = rssMb(proc.pid);
        if (mb !== null) memory.push({ name: proc.name, at, mb });
      }
      const conns = await db.query<{ n: string }>(
        'select count(*)::text as n from pg_stat_activity where datname = current_database()',
      );
      const queue = await db.query<{ n: string }>(
        "select count(*)::text as n from pgboss.job where state in ('created', 'retry', 'active')",
      );
      dbSamples.push({ at, connections: Number(conns.rows[0]?.n), queue: Number(queue.rows[0]?.n) });
    };
    await sample();
    let nextSample = Date.now() + SAMPLE_EVERY_MS;
    // Open loop: each 100 ms tick starts its share of the schedule, whatever is still running.
    for (let tick = 0; Date.now() < endAt; tick += 1) {
      for (const kind of mix(tick)) {
        const minute = Math.floor((Date.now() - started) / 60_000);
        if (inFlight >= MAX_IN_FLIGHT) {
          records.push({ minute, kind, ms: 0, ok: false });
          count(failures, `${kind}: not sent, ${MAX_IN_FLIGHT} already in flight`);
          continue;
        }
        inFlight += 1;
        const t0 = performance.now();
        const job = run(kind, ctx)
          .then((status) => {
            if (status >= 300) count(failures, `${kind}: answered ${status}`);
            return status < 300;
          })
          .catch((error: unknown) => {
            count(failures, `${kind}: ${error instanceof Error ? error.message : String(error)}`);
            return false;
          })
          .then((ok) => {
            records.push({ minute, kind, ms: performance.now() - t0, ok });
          })
          .finally(() => {
            inFlight -= 1;
            pending.delete(job);
          });
        pending.add(job);
      }
      if (Date.now() >= nextSample) {
        nextSample += SAMPLE_EVERY_MS;
        await sample();
        const minute = Math.floor((Date.now() - started) / 60_000);
        const done = records.filter((r) => r.minute === minute);
        process.stderr.write(
          `  ${((Date.now() - started) / 60_000).toFixed(1)} min: ${done.length} this minute, ${done.filter((r) => !r.ok).length} errors, ${inFlight} in flight, queue ${dbSamples.at(-1)?.queue}\n`,
        );
      }
      const wait = started + (tick + 1) * 100 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await Promise.allSettled([...pending]);
    await sample();
  } finally {
    await db.end().catch(() => undefined);
    await cluster.stop();
    await fake.close();
  }

  const all = summarize(records.filter((r) => r.ok).map((r) => r.ms));
  console.log(
    `\n## Soak: ${minutes} min at ${rate} requests/s through nginx, ${instanceCount} instances + ${workerCount} workers (PostgreSQL, Redis)\n`,
  );
  console.log(
    `${records.length} requests, ${records.filter((r) => !r.ok).length} errors; p50 ${formatMs(all.p50)} ms, p99 ${formatMs(all.p99)} ms over the run\n`,
  );
  console.log(
    markdownTable(
      ['minute', 'requests', 'errors', 'p50 ms', 'p99 ms', ...KINDS.map((k) => `${k} p99`)],
      minuteRows(records),
    ),
  );
  console.log('\nMemory (RSS, MB) and its slope after the first minute:\n');
  const slopes = memorySlope(memory);
  console.log(
    markdownTable(
      ['process', 'first MB', 'last MB', 'max MB', 'slope MB/min'],
      slopes.map((s) => [
        s.name,
        s.first.toFixed(0),
        s.last.toFixed(0),
        s.max.toFixed(0),
        s.slope.toFixed(2),
      ]),
    ),
  );
  console.log('\nDatabase connections and queue depth (every 10 s; min / max / last):\n');
  const conns = dbSamples.map((s) => s.connections);
  const queue = dbSamples.map((s) => s.queue);
  console.log(
    markdownTable(
      ['measure', 'min', 'max', 'last'],
      [
        ['connections', String(Math.min(...conns)), String(Math.max(...conns)), String(conns.at(-1))],
        ['queue depth', String(Math.min(...queue)), String(Math.max(...queue)), String(queue.at(-1))],
      ],
    ),
  );
  if (failures.size > 0) {
    console.log('\nFailures:');
    for (const [what, count] of failures) console.log(`- ${count} × ${what}`);
  }
  const result = verdict(records, slopes);
  console.log(`\n${result.lines.join('\n')}`);
  process.exitCode = result.ok ? 0 : 1;
}

await main();
