// Small HTTP helpers for the fault and backup tests, which drive real processes over loopback.
import assert from 'node:assert/strict';
import { field, oneJsonLine, runCli, text } from '../../support/processes.js';

export const ORIGIN = 'https://shop.example.com';
export const PASSWORD = 'correct horse battery';

/** JSON request to a running service; returns status and parsed body (null when not JSON). */
export async function call(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const raw = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = raw;
  }
  return { status: res.status, body: parsed };
}

/** Bootstraps an owner and workspace through the CLI; returns the admin bearer headers. */
export async function bootstrapOwner(
  env: Record<string, string>,
  email = 'owner@example.com',
): Promise<{ auth: Record<string, string>; workspaceId: string }> {
  const body = oneJsonLine(
    await runCli(
      ['bootstrap', '--email', email, '--password-stdin', '--workspace', 'Backup Co', '--json'],
      env,
      60_000,
      PASSWORD,
    ),
  );
  return {
    auth: { authorization: `Bearer ${text(field(body, 'admin_token'))}` },
    workspaceId: text(field(body, 'workspace', 'id')),
  };
}

/** Creates a published agent that allows {@link ORIGIN}; returns its id. */
export async function createAgent(url: string, auth: Record<string, string>, name: string): Promise<string> {
  const res = await call(url, 'POST', '/api/v1/admin/agents', auth, {
    name,
    is_published: true,
    allowed_origins: [ORIGIN],
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return text(field(res.body, 'data', 'id'));
}

/** Opens a widget conversation and sends one message (the offline model answers); returns its id. */
export async function startConversation(url: string, agentId: string, message: string): Promise<string> {
  const init = await call(
    url,
    'POST',
    '/v1/widget/init',
    { origin: ORIGIN },
    {
      agent_id: agentId,
      anon_id: `anon_${Math.random().toString(16).slice(2, 18).padEnd(16, '0')}`,
    },
  );
  assert.equal(init.status, 200, JSON.stringify(init.body));
  const token = text(field(init.body, 'data', 'token'));
  const sent = await fetch(`${url}/v1/widget/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
    signal: AbortSignal.timeout(30_000),
  });
  assert.equal(sent.status, 200, await sent.clone().text());
  await sent.text();
  return text(field(init.body, 'data', 'conversation_id'));
}

/** Every id of an admin list (follows `meta.next_cursor`). */
export async function listIds(url: string, auth: Record<string, string>, path: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page += 1) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await call(
      url,
      'GET',
      `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      auth,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const data = field(res.body, 'data');
    assert.ok(Array.isArray(data));
    for (const row of data) ids.push(text(field(row, 'id')));
    const next = field(res.body, 'meta', 'next_cursor');
    if (typeof next !== 'string' || next === '') return ids;
    cursor = next;
  }
  throw new Error(`${path}: more than 100 pages`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
