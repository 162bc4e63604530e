import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  type TWidgetInitResponse,
  ZWidgetAnswer,
  ZWidgetInitResponse,
  ZWidgetMessage,
} from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { expectData } from './http.js';
import { createAgent, type Json } from './site-sync.js';
import { indexSource } from './sources.js';
import { parseSseFrames } from './sse.js';
import { injectJson, seedTenant, type Tenant, type TestApp } from './test-app.js';

/** The site every widget test embeds the agent on. */
export const ORIGIN = 'https://shop.example.com';

/** A fresh browser id, as the loader keeps it in localStorage. */
export function newAnonId(): string {
  return `anon_${randomBytes(8).toString('hex')}`;
}

/** A tenant with a published agent that allows {@link ORIGIN} (plus `agent` settings). */
export async function createWidgetAgent(
  t: TestApp,
  agent: Json = {},
  tenant?: Tenant,
): Promise<{ tenant: Tenant; agentId: string }> {
  const owner = tenant ?? (await seedTenant(t));
  const agentId = await createAgent(t, owner, { is_published: true, allowed_origins: [ORIGIN], ...agent });
  return { tenant: owner, agentId };
}

/** POSTs to `/v1/widget/init` from `origin` (null: no Origin header). */
export function initRequest(
  t: TestApp,
  body: Json,
  options: { origin?: string | null; headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const origin = options.origin === undefined ? ORIGIN : options.origin;
  return t.app.inject({
    method: 'POST',
    url: '/v1/widget/init',
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}), ...options.headers },
    payload: JSON.stringify(body),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

/** Inits a session for `agentId` and returns its data (asserting 200). */
export async function initSession(
  t: TestApp,
  agentId: string,
  body: Json = {},
  origin: string | null = ORIGIN,
): Promise<TWidgetInitResponse> {
  const res = await initRequest(t, { agent_id: agentId, anon_id: newAnonId(), ...body }, { origin });
  return expectData(res, 200, ZWidgetInitResponse);
}

/** Calls a widget route with the token as bearer, from `origin` (null: no Origin header). */
export function widgetCall(
  t: TestApp,
  method: 'POST' | 'GET' | 'DELETE',
  url: string,
  token: string,
  body?: unknown,
  options: { origin?: string | null; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const origin = options.origin === undefined ? ORIGIN : options.origin;
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(origin ? { origin } : {}) };
  if (body !== undefined) {
    return injectJson(t.app, method, url, body, headers);
  }
  return t.app.inject({
    method,
    url,
    headers,
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

/** One parsed SSE frame. */
export type SseFrame = { event: string; data: Record<string, unknown> };

/** The `done` frame's data. */
export const ZDoneFrame = z.object({
  message_id: z.string().nullable(),
  text: z.string(),
  citations: z.array(z.object({ id: z.number(), url: z.string().nullable(), title: z.string() })),
});

/** Parses an SSE body into frames (comments dropped) with the shared parser; every frame's data is an object. */
export function parseSse(body: string): SseFrame[] {
  return parseSseFrames(body).map((frame) => ({
    event: frame.event,
    data: z.record(z.string(), z.unknown()).parse(frame.data),
  }));
}

/** Adds a text source to the agent and indexes it; returns the source id. */
export async function addText(
  t: TestApp,
  tenant: Tenant,
  agentId: string,
  name: string,
  text: string,
): Promise<string> {
  const res = await injectJson(
    t.app,
    'POST',
    `/api/v1/admin/agents/${agentId}/sources`,
    { type: 'text', name, text },
    tenant.auth,
  );
  assert.equal(res.statusCode, 201, res.body);
  const id: string = res.json().data.id;
  await indexSource(t, id);
  return id;
}

/** A conversation's status and messages, as `GET /v1/widget/conversation/messages` answers. */
export const ZPoll = z.object({
  status: z.enum(['open', 'waiting', 'claimed', 'closed']),
  messages: z.array(ZWidgetMessage),
});

/** A stored conversation row. */
export function conversationRow(t: TestApp, id: string) {
  return t.database.db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The stored widget events of a conversation. */
export function widgetEventsOf(t: TestApp, conversationId: string) {
  return t.database.db
    .selectFrom('widget_events')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .execute();
}

/** Polls the conversation's messages (after the message id `after`, when given). */
export function pollMessages(t: TestApp, token: string, after?: string): Promise<LightMyRequestResponse> {
  return widgetCall(
    t,
    'GET',
    `/v1/widget/conversation/messages${after ? `?after=${encodeURIComponent(after)}` : ''}`,
    token,
  );
}

/** Sends a visitor message and returns the (non-streamed) answer. */
export async function askWidget(t: TestApp, token: string, message: string) {
  return expectData(
    await widgetCall(t, 'POST', '/v1/widget/messages', token, { message }),
    200,
    ZWidgetAnswer,
  );
}
