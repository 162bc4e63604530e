// Helpers of the cluster tests: requests through nginx (or to one instance), the widget and
// admin calls they make, and which instance served a request (nginx's access log).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  type Cluster,
  clusterUnavailable,
  readAccessLog,
} from '../../../../scripts/cluster/start-cluster.mjs';
import { parseSseFrames, type SseFrame } from '../support/sse.js';

/** The site every cluster test embeds its agents on. */
export const ORIGIN = 'https://shop.example.com';

/**
 * Why the cluster tests do not run here, or false. They run once per CI, in the PostgreSQL
 * pass (TEST_DATABASE_URL set); the PGlite pass skips them. They need nginx (installed with
 * apt-get when missing and root), PostgreSQL and Redis.
 */
export async function clusterSkip(): Promise<string | false> {
  if (!process.env.TEST_DATABASE_URL)
    return 'cluster tests run in the PostgreSQL pass: TEST_DATABASE_URL is not set (CI sets it)';
  return (await clusterUnavailable()) ?? false;
}

/** One HTTP answer, body read. */
export type Answer = { status: number; headers: Headers; text: string; json(): unknown };

/** Sends a request to `base` (nginx or an instance); a JSON body when `body` is given. */
export async function send(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

/** `data` of a JSON answer with the expected status. */
export function dataOf(answer: Answer, status: number): Record<string, unknown> {
  assert.equal(answer.status, status, answer.text);
  const body = answer.json();
  assert.ok(typeof body === 'object' && body !== null && 'data' in body, answer.text);
  const data = body.data;
  assert.ok(typeof data === 'object' && data !== null);
  return Object.fromEntries(Object.entries(data));
}

/** Admin API headers of the cluster's owner token. */
export function adminAuth(cluster: Cluster): Record<string, string> {
  assert.ok(cluster.admin);
  return { authorization: `Bearer ${cluster.admin.token}` };
}

/** A published agent that allows {@link ORIGIN}, created through nginx; returns its id. */
export async function createAgent(cluster: Cluster, body: Record<string, unknown> = {}): Promise<string> {
  const created = await send(cluster.url, 'POST', '/api/v1/admin/agents', {
    headers: adminAuth(cluster),
    body: { name: 'Cluster bot', is_published: true, allowed_origins: [ORIGIN], ...body },
  });
  return String(dataOf(created, 201).id);
}

/** A text source of `agentId` (indexed by a worker); returns its id. */
export async function addTextSource(
  cluster: Cluster,
  agentId: string,
  name: string,
  text: string,
): Promise<string> {
  const created = await send(cluster.url, 'POST', `/api/v1/admin/agents/${agentId}/sources`, {
    headers: adminAuth(cluster),
    body: { type: 'text', name, text },
  });
  return String(dataOf(created, 201).id);
}

/** A widget session: its token and conversation. */
export type WidgetSession = { token: string; conversationId: string; requestId: string };

/** `POST /v1/widget/init` at `base` with a fresh anon id. */
export async function initWidget(
  base: string,
  agentId: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return send(base, 'POST', '/v1/widget/init', {
    headers: { origin: ORIGIN, ...headers },
    body: { agent_id: agentId, anon_id: `anon_${randomBytes(8).toString('hex')}` },
  });
}

/** Inits a session at `base` (asserting 200). */
export async function widgetSession(base: string, agentId: string): Promise<WidgetSession> {
  const answer = await initWidget(base, agentId);
  const data = dataOf(answer, 200);
  return {
    token: String(data.token),
    conversationId: String(data.conversation_id),
    requestId: answer.headers.get('x-request-id') ?? '',
  };
}

/** Widget call with the session's token. */
export function widgetCall(
  base: string,
  method: string,
  path: string,
  session: WidgetSession,
  body?: unknown,
): Promise<Answer> {
  return send(base, method, path, {
    headers: { origin: ORIGIN, authorization: `Bearer ${session.token}` },
    ...(body === undefined ? {} : { body }),
  });
}

/** Asks through the answer stream; returns the frames and the request id. */
export async function streamAnswer(
  base: string,
  session: WidgetSession,
  message: string,
): Promise<{ status: number; frames: SseFrame[]; requestId: string; contentType: string }> {
  const answer = await widgetCall(base, 'POST', '/v1/widget/messages/stream', session, { message });
  return {
    status: answer.status,
    frames: answer.status === 200 ? parseSseFrames(answer.text) : [],
    requestId: answer.headers.get('x-request-id') ?? '',
    contentType: answer.headers.get('content-type') ?? '',
  };
}

/**
 * The instance (index into `cluster.instances`) nginx sent the request `requestId` to. nginx
 * writes the line once the response is done, so it may come a moment after the client has it.
 */
export async function servedBy(cluster: Cluster, requestId: string): Promise<number> {
  assert.ok(requestId, 'the answer had no X-Request-Id');
  const entry = await eventually(
    `the access-log line of request ${requestId}`,
    async () => readAccessLog(cluster.accessLog).find((line) => line.requestId === requestId),
    5_000,
  );
  const index = cluster.instances.findIndex((instance) => `127.0.0.1:${instance.port}` === entry.upstream);
  assert.ok(index >= 0, `unknown upstream ${entry.upstream}`);
  return index;
}

/** Runs `sql` on the cluster's database and returns the rows. */
export async function query<T extends pg.QueryResultRow>(
  cluster: Cluster,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Polls `check` until it returns a value (not undefined), at most `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
