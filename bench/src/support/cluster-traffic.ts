/**
 * Traffic against the multi-instance set (scripts/cluster), shared by the soak and the
 * throughput bench: the set's environment for a fake model, the agent and site token they use,
 * and one request of each kind (widget init and message, a signed site sync, an admin read, an
 * upload) through nginx.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { SIGNATURE_HEADER, signRequest } from '@service/contract';
import pg from 'pg';
import type { Cluster } from '../../../scripts/cluster/start-cluster.mjs';
import type { Kind } from './soak-report.js';

/** The site the agents are embedded on. */
export const ORIGIN = 'https://shop.example.com';
export const QUESTIONS = [
  'How long does shipping take?',
  'Can I return an opened item?',
  'Which grinder do you recommend for espresso?',
  'Do you ship to Norway?',
  'What is the warranty on the kettle?',
];

/**
 * The set's environment: answers from the fake model at `llmBaseUrl`, and the per-address
 * limits raised, since one client address (the bench) sends everything: the runs measure the
 * set, not the limiter.
 */
export function clusterEnv(llmBaseUrl: string): Record<string, string> {
  return {
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: llmBaseUrl,
    LLM_API_KEY: 'x',
    WIDGET_RATE_LIMIT_SCALE: '1000',
    WP_THROTTLE_PER_MINUTE: '100000',
    ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
    ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'warn',
  };
}

/** The posts the soak's site has: its syncs edit these (`seedPosts` sends each once first). */
export const SITE_POSTS = 200;

export type Ctx = {
  cluster: Cluster;
  agentId: string;
  admin: Record<string, string>;
  siteToken: string;
  visitors: string[];
  nextPost: number;
};

export async function call(
  base: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | FormData } = {},
): Promise<{ status: number; json: unknown; requestId: string }> {
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
  return { status: res.status, json, requestId: res.headers.get('x-request-id') ?? '' };
}

export const dataOf = (json: unknown): Record<string, unknown> =>
  typeof json === 'object' && json !== null && 'data' in json ? (json.data as Record<string, unknown>) : {};

export function postRecord(wpId: number, version: number) {
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

/** What one request of the traffic got: its status and the service's request id. */
export type Sent = { status: number; requestId: string };

/** Sends one request of `kind`; answers its status and request id. */
export async function run(kind: Kind, ctx: Ctx): Promise<Sent> {
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
      return answer;
    }
    case 'widget.message': {
      const token = ctx.visitors[Math.floor(Math.random() * ctx.visitors.length)];
      if (!token) return run('widget.init', ctx);
      const question = QUESTIONS[Math.floor(Math.random() * QUESTIONS.length)] ?? 'hello';
      const answer = await call(base, 'POST', '/v1/widget/messages', {
        headers: widgetHeaders(token),
        body: JSON.stringify({ message: question }),
      });
      return answer;
    }
    case 'site.sync': {
      // Five posts, the next in turn of the site's SITE_POSTS, each a new revision (new content):
      // new posts until all exist, then edits.
      const posts = Array.from({ length: 5 }, () => {
        ctx.nextPost += 1;
        return postRecord(1 + (ctx.nextPost % SITE_POSTS), ctx.nextPost);
      });
      return syncPosts(ctx, posts);
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
      return answer;
    }
    case 'upload': {
      const form = new FormData();
      const text = `Soak upload ${randomBytes(6).toString('hex')}\n\nOur opening hours are 9 to 17. ${'Coffee notes. '.repeat(40)}`;
      form.append('file', new Blob([text], { type: 'text/plain' }), `soak-${Date.now()}.txt`);
      const answer = await call(base, 'POST', `/api/v1/admin/agents/${ctx.agentId}/uploads`, {
        headers: ctx.admin,
        body: form,
      });
      return answer;
    }
  }
}

/** One signed sync of `posts` from the site's plugin. */
export function syncPosts(ctx: Ctx, posts: ReturnType<typeof postRecord>[]): ReturnType<typeof call> {
  const body = JSON.stringify({ agent_id: ctx.agentId, site_url: ORIGIN, plugin_version: 'bench', posts });
  return call(ctx.cluster.url, 'POST', '/api/v1/wp/posts/sync', {
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${ctx.siteToken}`,
      [SIGNATURE_HEADER]: signRequest(ctx.siteToken, body, Math.floor(Date.now() / 1000)),
    },
    body,
  });
}

/**
 * The site's first full sync before traffic starts, as a plugin sends it when it is connected:
 * each of the SITE_POSTS posts once, 50 to a request, then waits until they are indexed. Later
 * syncs are edits of them; without it the run's first minute creates the site's posts.
 */
export async function seedPosts(ctx: Ctx): Promise<void> {
  for (let first = 1; first <= SITE_POSTS; first += 50) {
    const posts = Array.from({ length: Math.min(50, SITE_POSTS - first + 1) }, (_, i) =>
      postRecord(first + i, 0),
    );
    const answer = await syncPosts(ctx, posts);
    if (answer.status >= 300) throw new Error(`seeding the site's posts: answered ${answer.status}`);
  }
  await queueDrained(ctx.cluster.databaseUrl);
}

/** Waits (at most 5 minutes) until the job queue holds no index job still to run. */
export async function queueDrained(databaseUrl: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const until = performance.now() + 300_000;
    while (performance.now() < until) {
      const waiting = await db.query<{ n: string }>(
        `select count(*)::text as n from pgboss.job where name = 'index-document' and state in ('created', 'retry', 'active')`,
      );
      if (Number(waiting.rows[0]?.n) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error('the index jobs did not finish within 5 minutes');
  } finally {
    await db.end();
  }
}

/**
 * CPU time a process has used (user + system) in ms, from /proc; 0 when it is gone. With
 * `reapedChildren`, also the time of its children that ended and that it waited for.
 */
export function cpuMs(pid: number, reapedChildren = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is the first, utime the 12th,
    // then stime, cutime and cstime.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, ...(reapedChildren ? [13, 14] : [])].reduce(
      (sum, index) => sum + Number(fields[index]),
      0,
    );
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * CPU time used so far by every process whose command name is `name` (e.g. `postgres`: the
 * server and its backends), in ms. A process that ended counts through its parent, which reaped
 * it (the server takes in its backends' and autovacuum workers' time as they exit), so the total
 * only grows; each live process counts only the children it reaped, so nothing counts twice.
 */
export function commandCpuMs(name: string): number {
  return pidsNamed(name).reduce((sum, pid) => sum + cpuMs(pid, true), 0);
}

/** The processes whose command name (`/proc/<pid>/comm`) is `name`. */
export function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // gone in between
    }
  }
  return pids;
}

/** CPU time the whole machine has been busy (all cores, not idle or waiting on I/O) in ms. */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return ((total - idle) * 1000) / CLOCK_TICKS;
}

/** USER_HZ: Linux reports /proc CPU times in hundredths of a second on every common platform. */
const CLOCK_TICKS = 100;

/** RSS of a process in MB (from /proc), or null when it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

export async function setUp(cluster: Cluster): Promise<Ctx> {
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
