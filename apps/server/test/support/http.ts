import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { hashApiToken } from '../../src/security/api-token-secret.js';
import type { TestApp } from './test-app.js';

/** The service error envelope, with nothing else in it. */
export const ZEnvelope = z.strictObject({
  message: z.string().min(1),
  code: z.string().min(1),
  errors: z.record(z.string(), z.array(z.string())),
});
export type Envelope = z.infer<typeof ZEnvelope>;

/** The exact body of every 401 from a missing or bad token. */
export const UNAUTHENTICATED_BODY = '{"message":"Unauthenticated.","code":"unauthenticated","errors":{}}';

/** Asserts the status and that the body is exactly the error envelope; returns it. */
export function expectError(res: LightMyRequestResponse, status: number, code?: string): Envelope {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = ZEnvelope.parse(JSON.parse(res.body));
  if (code !== undefined) assert.equal(body.code, code, res.body);
  return body;
}

/** Asserts a 422 whose `errors` names each of `fields`; returns the envelope. */
export function expectValidation(res: LightMyRequestResponse, fields: string[]): Envelope {
  const body = expectError(res, 422, 'validation_failed');
  for (const field of fields) {
    assert.ok(
      (body.errors[field]?.length ?? 0) > 0,
      `errors.${field} missing in ${JSON.stringify(body.errors)}`,
    );
  }
  return body;
}

/** Asserts the status and parses `{data}` with `schema`. */
export function expectData<T extends z.ZodType>(
  res: LightMyRequestResponse,
  status: number,
  schema: T,
): z.output<T> {
  assert.equal(res.statusCode, status, res.body);
  const envelope = z.strictObject({ data: z.unknown() }).parse(JSON.parse(res.body));
  return schema.parse(envelope.data);
}

/** Asserts a paged list answer, `{data, meta: {next_cursor}}` and nothing else, and parses its rows. */
export function expectPage<T extends z.ZodType>(
  res: LightMyRequestResponse,
  status: number,
  item: T,
): Array<z.output<T>> {
  assert.equal(res.statusCode, status, res.body);
  const page = z
    .strictObject({ data: z.array(item), meta: z.strictObject({ next_cursor: z.string().nullable() }) })
    .parse(JSON.parse(res.body));
  return page.data;
}

/** Authorization header for a plaintext token. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The api_tokens row of a plaintext token (looked up by its hash): its id and signing secret. */
async function tokenRowOf(t: TestApp, plaintext: string) {
  return t.database.db
    .selectFrom('api_tokens')
    .select(['id', 'shopper_signing_secret'])
    .where('token_hash', '=', hashApiToken(plaintext))
    .executeTakeFirstOrThrow();
}

/** The id of the api_tokens row for a plaintext token. */
export async function tokenIdOf(t: TestApp, plaintext: string): Promise<string> {
  return (await tokenRowOf(t, plaintext)).id;
}

/** The shopper_signing_secret of an API token, by its plaintext (what the handshake gives a site). */
export async function signingSecretOf(t: TestApp, plaintext: string): Promise<string> {
  return (await tokenRowOf(t, plaintext)).shopper_signing_secret;
}

/** Audit rows of a workspace, oldest first. */
export async function auditRows(t: TestApp, workspaceId: string) {
  return t.database.db
    .selectFrom('audit_logs')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
}

/** Every admin route, as `app.inject` wants it and as OpenAPI names it. */
export type AdminRoute = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  openapi: string;
  /** A valid body for the admin token's call, where the default (`{name}`) is not one. */
  body?: unknown;
  /** What the admin token's call answers, where it is not 404 (`:id`), 201 (POST) or 200. */
  expected?: number;
};

/** The admin routes; `:id` routes use a syntactically valid id that does not exist. */
export const ADMIN_ROUTES: readonly AdminRoute[] = [
  { method: 'GET', url: '/api/v1/admin/agents', openapi: '/api/v1/admin/agents' },
  { method: 'POST', url: '/api/v1/admin/agents', openapi: '/api/v1/admin/agents' },
  { method: 'GET', url: '/api/v1/admin/agents/01ABC', openapi: '/api/v1/admin/agents/{id}' },
  { method: 'PATCH', url: '/api/v1/admin/agents/01ABC', openapi: '/api/v1/admin/agents/{id}' },
  { method: 'DELETE', url: '/api/v1/admin/agents/01ABC', openapi: '/api/v1/admin/agents/{id}' },
  { method: 'GET', url: '/api/v1/admin/tokens', openapi: '/api/v1/admin/tokens' },
  { method: 'POST', url: '/api/v1/admin/tokens', openapi: '/api/v1/admin/tokens' },
  { method: 'DELETE', url: '/api/v1/admin/tokens/01ABC', openapi: '/api/v1/admin/tokens/{id}' },
  { method: 'GET', url: '/api/v1/admin/me', openapi: '/api/v1/admin/me' },
  { method: 'PATCH', url: '/api/v1/admin/me', openapi: '/api/v1/admin/me' },
  { method: 'GET', url: '/api/v1/admin/audit-logs', openapi: '/api/v1/admin/audit-logs' },
  { method: 'GET', url: '/api/v1/admin/agents/01ABC/sources', openapi: '/api/v1/admin/agents/{id}/sources' },
  { method: 'GET', url: '/api/v1/admin/sources/01ABC', openapi: '/api/v1/admin/sources/{id}' },
  { method: 'PATCH', url: '/api/v1/admin/sources/01ABC', openapi: '/api/v1/admin/sources/{id}' },
  { method: 'POST', url: '/api/v1/admin/agents/01ABC/sources', openapi: '/api/v1/admin/agents/{id}/sources' },
  { method: 'DELETE', url: '/api/v1/admin/sources/01ABC', openapi: '/api/v1/admin/sources/{id}' },
  {
    method: 'POST',
    url: '/api/v1/admin/sources/01ABC/reindex',
    openapi: '/api/v1/admin/sources/{id}/reindex',
  },
  { method: 'POST', url: '/api/v1/admin/agents/01ABC/uploads', openapi: '/api/v1/admin/agents/{id}/uploads' },
  { method: 'POST', url: '/api/v1/admin/agents/01ABC/search', openapi: '/api/v1/admin/agents/{id}/search' },
  {
    method: 'POST',
    url: '/api/v1/admin/agents/01ABC/playground',
    openapi: '/api/v1/admin/agents/{id}/playground',
    body: { question: 'Matrix' },
  },
  { method: 'GET', url: '/api/v1/admin/kb/articles', openapi: '/api/v1/admin/kb/articles' },
  { method: 'POST', url: '/api/v1/admin/kb/articles', openapi: '/api/v1/admin/kb/articles' },
  { method: 'GET', url: '/api/v1/admin/kb/articles/01ABC', openapi: '/api/v1/admin/kb/articles/{id}' },
  { method: 'PATCH', url: '/api/v1/admin/kb/articles/01ABC', openapi: '/api/v1/admin/kb/articles/{id}' },
  { method: 'DELETE', url: '/api/v1/admin/kb/articles/01ABC', openapi: '/api/v1/admin/kb/articles/{id}' },
  {
    method: 'POST',
    url: '/api/v1/admin/kb/preview',
    openapi: '/api/v1/admin/kb/preview',
    body: { markdown: '# Hello' },
    expected: 200,
  },
  { method: 'GET', url: '/api/v1/admin/conversations', openapi: '/api/v1/admin/conversations' },
  { method: 'GET', url: '/api/v1/admin/conversations/01ABC', openapi: '/api/v1/admin/conversations/{id}' },
  {
    method: 'POST',
    url: '/api/v1/admin/conversations/01ABC/claim',
    openapi: '/api/v1/admin/conversations/{id}/claim',
  },
  {
    method: 'POST',
    url: '/api/v1/admin/conversations/01ABC/messages',
    openapi: '/api/v1/admin/conversations/{id}/messages',
    body: { content: 'Matrix' },
  },
  {
    method: 'POST',
    url: '/api/v1/admin/conversations/01ABC/release',
    openapi: '/api/v1/admin/conversations/{id}/release',
  },
  { method: 'GET', url: '/api/v1/admin/leads', openapi: '/api/v1/admin/leads' },
  { method: 'GET', url: '/api/v1/admin/agents/01ABC/embed', openapi: '/api/v1/admin/agents/{id}/embed' },
  {
    method: 'POST',
    url: '/api/v1/admin/agents/01ABC/theme/from-site',
    openapi: '/api/v1/admin/agents/{id}/theme/from-site',
    body: {},
  },
  { method: 'GET', url: '/api/v1/admin/webhooks', openapi: '/api/v1/admin/webhooks' },
  {
    method: 'POST',
    url: '/api/v1/admin/webhooks',
    openapi: '/api/v1/admin/webhooks',
    // A loopback URL: the guard refuses it (422) without any connection leaving the machine.
    body: { url: 'http://127.0.0.1:9/hook', events: ['lead.captured'] },
    expected: 422,
  },
  { method: 'DELETE', url: '/api/v1/admin/webhooks/01ABC', openapi: '/api/v1/admin/webhooks/{id}' },
  {
    method: 'GET',
    url: '/api/v1/admin/webhooks/01ABC/deliveries',
    openapi: '/api/v1/admin/webhooks/{id}/deliveries',
  },
  {
    method: 'POST',
    url: '/api/v1/admin/webhooks/deliveries/01ABC/redeliver',
    openapi: '/api/v1/admin/webhooks/deliveries/{id}/redeliver',
  },
  {
    method: 'GET',
    url: '/api/v1/admin/agents/01ABC/corrections',
    openapi: '/api/v1/admin/agents/{id}/corrections',
  },
  {
    method: 'POST',
    url: '/api/v1/admin/agents/01ABC/corrections',
    openapi: '/api/v1/admin/agents/{id}/corrections',
    body: { question: 'Matrix?', answer: 'Matrix.' },
  },
  {
    method: 'POST',
    url: '/api/v1/admin/agents/01ABC/corrections/test',
    openapi: '/api/v1/admin/agents/{id}/corrections/test',
    body: { question: 'Matrix?' },
  },
  {
    method: 'PATCH',
    url: '/api/v1/admin/agents/01ABC/corrections/01ABC',
    openapi: '/api/v1/admin/agents/{id}/corrections/{cid}',
    body: { answer: 'Matrix.' },
  },
  {
    method: 'DELETE',
    url: '/api/v1/admin/agents/01ABC/corrections/01ABC',
    openapi: '/api/v1/admin/agents/{id}/corrections/{cid}',
  },
  {
    method: 'GET',
    url: '/api/v1/admin/agents/01ABC/questions',
    openapi: '/api/v1/admin/agents/{id}/questions',
  },
  {
    method: 'POST',
    url: '/api/v1/admin/agents/01ABC/questions/01ABC/correction',
    openapi: '/api/v1/admin/agents/{id}/questions/{qid}/correction',
    body: { answer: 'Matrix.' },
  },
  {
    method: 'POST',
    url: '/api/v1/admin/agents/01ABC/questions/01ABC/kb-article',
    openapi: '/api/v1/admin/agents/{id}/questions/{qid}/kb-article',
    body: { title: 'Matrix', body: 'Matrix.' },
  },
  {
    method: 'POST',
    url: '/api/v1/admin/agents/01ABC/questions/01ABC/resolve',
    openapi: '/api/v1/admin/agents/{id}/questions/{qid}/resolve',
    body: {},
  },
  {
    method: 'GET',
    url: '/api/v1/admin/agents/01ABC/analytics',
    openapi: '/api/v1/admin/agents/{id}/analytics',
  },
  {
    method: 'GET',
    url: '/api/v1/admin/agents/01ABC/analytics.csv',
    openapi: '/api/v1/admin/agents/{id}/analytics.csv',
  },
  // No key stored yet (404); storing one needs the owner's byok_enabled (403 until an admin grants it).
  { method: 'GET', url: '/api/v1/admin/llm-key', openapi: '/api/v1/admin/llm-key', expected: 404 },
  {
    method: 'PUT',
    url: '/api/v1/admin/llm-key',
    openapi: '/api/v1/admin/llm-key',
    body: { provider: 'openai', api_key: 'sk-test-key-1234' },
    expected: 403,
  },
  { method: 'DELETE', url: '/api/v1/admin/llm-key', openapi: '/api/v1/admin/llm-key', expected: 404 },
  // The platform API is for a platform operator's own session: an API token finds nothing there.
  {
    method: 'GET',
    url: '/api/v1/admin/platform/workspaces',
    openapi: '/api/v1/admin/platform/workspaces',
    expected: 404,
  },
  {
    method: 'GET',
    url: '/api/v1/admin/platform/plans',
    openapi: '/api/v1/admin/platform/plans',
    expected: 404,
  },
  {
    method: 'GET',
    url: '/api/v1/admin/platform/workspaces/01ABC/members',
    openapi: '/api/v1/admin/platform/workspaces/{id}/members',
  },
  {
    method: 'POST',
    url: '/api/v1/admin/platform/workspaces/01ABC/plan',
    openapi: '/api/v1/admin/platform/workspaces/{id}/plan',
    body: { plan: 'default' },
  },
  {
    method: 'POST',
    url: '/api/v1/admin/platform/impersonation',
    openapi: '/api/v1/admin/platform/impersonation',
    body: { workspace_id: '01ABC', user_id: '01ABC', reason: 'Support ticket 42' },
    expected: 404,
  },
];

/** Renders any column value as text, so a secret can be searched for in a row. */
export function columnText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}
