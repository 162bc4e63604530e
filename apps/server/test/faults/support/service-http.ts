// Small HTTP helpers for the fault and backup tests, which drive real processes over loopback.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { signRequest } from '@service/contract';
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

/** A `wp:integration` token of the workspace (through the CLI); returns its plaintext. */
export async function integrationToken(env: Record<string, string>, workspaceId: string): Promise<string> {
  const body = oneJsonLine(
    await runCli(
      [
        'token:create',
        '--workspace',
        workspaceId,
        '--name',
        'Site',
        '--abilities',
        'wp:integration',
        '--json',
      ],
      env,
    ),
  );
  return text(field(body, 'token'));
}

/** A post of the fault tests' site: a few paragraphs, so it makes a chunk or two. */
export function faultPost(siteUrl: string, wpId: number, paragraphCount = 4): Record<string, unknown> {
  const paragraphs = Array.from(
    { length: paragraphCount },
    (_, i) => `<p>Post ${wpId}, part ${i}: parcels to zone ${wpId % 9} leave on day ${(wpId + i) % 7}.</p>`,
  ).join('');
  return {
    wp_id: wpId,
    post_type: 'post',
    permalink: `${siteUrl}/post-${wpId}`,
    title: `Post ${wpId}`,
    content_html: `<h2>Post ${wpId}</h2>${paragraphs}`,
    excerpt: '',
    content_hash: createHash('sha256').update(`fault-post-${wpId}-${paragraphCount}`).digest('hex'),
    modified_at: '2026-11-01T10:00:00+00:00',
    language: 'en',
    taxonomy_terms: ['news'],
  };
}

/** POSTs one signed posts/sync batch (each post of `paragraphs` paragraphs); returns the status and body. */
export function syncBatch(
  url: string,
  token: string,
  agentId: string,
  siteUrl: string,
  wpIds: readonly number[],
  paragraphs = 4,
): Promise<{ status: number; body: unknown }> {
  const raw = JSON.stringify({
    agent_id: agentId,
    site_url: siteUrl,
    plugin_version: '1.2.0',
    posts: wpIds.map((id) => faultPost(siteUrl, id, paragraphs)),
  });
  const signature = signRequest(token, raw, Math.floor(Date.now() / 1000));
  return fetch(`${url}/api/v1/wp/posts/sync`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'x-service-signature': signature,
    },
    body: raw,
    signal: AbortSignal.timeout(120_000),
  }).then(async (res) => {
    const body = await res.text();
    try {
      return { status: res.status, body: JSON.parse(body) as unknown };
    } catch {
      return { status: res.status, body };
    }
  });
}

/** Syncs posts 1..count in batches of 50 (asserting each is 200). */
export async function syncPosts(
  url: string,
  token: string,
  agentId: string,
  siteUrl: string,
  count: number,
): Promise<void> {
  for (let from = 1; from <= count; from += 50) {
    const ids = Array.from({ length: Math.min(50, count - from + 1) }, (_, i) => from + i);
    const res = await syncBatch(url, token, agentId, siteUrl, ids);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
}
