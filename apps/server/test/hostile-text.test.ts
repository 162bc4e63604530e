import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signRequest, UNSTORABLE_TEXT_MESSAGE } from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { configKeyring } from '../src/security/secret-keyring.js';
import { SESSION_COOKIE, signIn } from '../src/services/accounts/admin-sessions.js';
import { expectError, expectValidation } from './support/http.js';
import { rowCounts } from './support/row-counts.js';
import {
  createSite,
  SITE_URL,
  type Site,
  samplePost,
  UNTHROTTLED,
  unixNow,
  WP,
} from './support/site-sync.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { multipartBody } from './support/upload-files.js';
import { initSession, newAnonId, ORIGIN } from './support/widget.js';

// Text PostgreSQL cannot store: as JSON escapes (what a fuzzer sends) and in a URL.
const NUL_JSON = '"a\\u0000b"';
const LONE_JSON = '"a\\ud800b"';
const NUL_URL = 'a%00b';

const ZParameter = z.looseObject({ in: z.string(), name: z.string() });
const ZOperation = z.looseObject({
  parameters: z.array(ZParameter).optional(),
  requestBody: z
    .looseObject({
      content: z.record(
        z.string(),
        z.looseObject({
          schema: z.looseObject({ properties: z.record(z.string(), z.unknown()).optional() }),
        }),
      ),
    })
    .optional(),
});
const ZDocument = z.looseObject({ paths: z.record(z.string(), z.record(z.string(), ZOperation)) });

/** Operations that read no text from the request at all (no path, query or body fields). */
const NO_TEXT_INPUT = new Set([
  'GET /healthz',
  'GET /readyz',
  'GET /api/v1/admin/session',
  'DELETE /api/v1/admin/session',
  'GET /api/v1/admin/setup',
  'GET /api/v1/admin/account/workspaces',
  'GET /api/v1/admin/widget-preview',
  'GET /api/v1/admin/agents',
  'GET /api/v1/admin/tokens',
  'GET /api/v1/admin/me',
  'GET /api/v1/admin/me/two-factor',
  'POST /api/v1/admin/me/two-factor',
  'GET /api/v1/admin/kb/articles',
  'GET /api/v1/admin/kb/settings',
  'GET /api/v1/admin/llm-key',
  'DELETE /api/v1/admin/llm-key',
  'GET /api/v1/admin/webhooks',
  'GET /api/v1/admin/plan',
  'GET /api/v1/admin/platform/plans',
  'GET /api/v1/admin/members',
  'GET /api/v1/admin/invites',
  'GET /api/v1/admin/saved-replies',
  // Leaving takes no input; the hostile sweep's token is refused (403) before anything is read.
  'POST /api/v1/admin/members/leave',
  // The billing webhooks' bodies are a provider's signed bytes, verified before they are read
  // (here, with no provider configured, 404); billing-webhooks-paddle.test.ts signs hostile text.
  'POST /api/v1/billing/webhooks/stripe',
  'POST /api/v1/billing/webhooks/paypal',
  'POST /api/v1/billing/webhooks/paddle',
  'POST /v1/widget/request-human',
  'POST /v1/widget/conversation/clear',
  'DELETE /v1/widget/me',
  'GET /demo',
  'GET /',
  'GET /admin',
]);

/** Path parameters whose route checks their shape: a well-shaped value that names nothing. */
const PLACEHOLDERS: Record<string, string> = { file: 'xx.json' };

describe('hostile text: NUL, lone surrogates and bad cursors are 404/422, never 500', () => {
  let t: TestApp;
  let site: Site;
  let widgetToken: string;
  /** Cookie and CSRF headers of the site owner's session (the first user: a platform operator). */
  let operatorSession: Record<string, string> = {};
  let operations: Array<{ method: string; path: string; op: z.infer<typeof ZOperation> }>;

  /** Sends one request with the credentials its surface needs (a signed body on /api/v1/wp). */
  function send(method: string, url: string, raw?: string): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = {};
    if (raw !== undefined) headers['content-type'] = 'application/json';
    const path = url.split('?')[0] ?? url;
    if (path.startsWith('/api/v1/admin/session')) {
      // Unauthenticated on purpose: signing in is the open door.
    } else if (path.startsWith('/api/v1/admin/platform/')) {
      // The platform API answers a platform operator's own session only (a token finds 404).
      Object.assign(headers, operatorSession);
    } else if (path.startsWith('/api/v1/admin/')) {
      Object.assign(headers, site.tenant.auth);
    } else if (path.startsWith(`${WP}/`)) {
      headers.authorization = `Bearer ${site.token}`;
      headers['x-service-signature'] = signRequest(site.token, raw ?? '', unixNow());
    } else if (path === '/v1/widget/init') {
      headers.origin = ORIGIN;
    } else if (path.startsWith('/v1/widget/') || path.startsWith('/api/v1/widget/')) {
      headers.authorization = `Bearer ${widgetToken}`;
      headers.origin = ORIGIN;
    }
    return t.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(raw !== undefined ? { payload: raw } : {}),
    });
  }

  /** POSTs a multipart body (the upload route parses nothing else) as the admin. */
  function uploadTo(url: string, body: ReturnType<typeof multipartBody>): Promise<LightMyRequestResponse> {
    return t.app.inject({
      method: 'POST',
      url,
      headers: { ...site.tenant.auth, ...body.headers },
      payload: body.payload,
    });
  }

  /** Asserts a 422 naming `field` with the storable-text message. */
  function expectRefused(res: LightMyRequestResponse, field: string, what: string): void {
    assert.notEqual(res.statusCode, 500, `${what}: ${res.body}`);
    const body = expectValidation(res, [field]);
    assert.ok(
      body.errors[field]?.some((message) => message.includes(UNSTORABLE_TEXT_MESSAGE)),
      `${what}: ${JSON.stringify(body.errors)}`,
    );
  }

  before(async () => {
    // Limits are counted before validation; this test sends hundreds of refused requests.
    t = await createTestApp({ env: { ...UNTHROTTLED, WIDGET_RATE_LIMIT_SCALE: '1000' } });
    site = await createSite(t, { is_published: true, allowed_origins: [ORIGIN] });
    widgetToken = (await initSession(t, site.agentId)).token;
    const signedIn = await signIn({
      db: t.database.db,
      input: { email: site.tenant.user.email, password: 'correct horse battery' },
      bcryptCost: t.config.bcryptCost,
      keys: configKeyring(t.config),
      now: t.clock.now(),
      ip: '127.0.0.1',
      userAgent: undefined,
    });
    operatorSession = {
      cookie: `${SESSION_COOKIE}=${signedIn.secret}`,
      'x-csrf-token': signedIn.session.csrf_token,
    };
    // The token's first call stores its visitor and conversation (even when the call is then
    // refused): make it here, so the row counts below compare only what hostile input could add.
    assert.equal((await send('POST', '/v1/widget/typing', '{"typing":true}')).statusCode < 300, true);
    const doc = ZDocument.parse(JSON.parse((await t.app.inject({ url: '/docs/json' })).body));
    operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
  });
  after(() => t.close());

  test('every route of the OpenAPI document: each path id, query field and body field', async () => {
    const before = await rowCounts(t);
    let cases = 0;
    for (const { method, path, op } of operations) {
      const name = `${method} ${path}`;
      const params = op.parameters ?? [];
      const fields = Object.keys(op.requestBody?.content['application/json']?.schema.properties ?? {});
      if (params.length === 0 && fields.length === 0 && !op.requestBody) {
        assert.ok(NO_TEXT_INPUT.has(name), `${name} takes no text: add it to NO_TEXT_INPUT`);
        continue;
      }
      // Path parameters get a placeholder that exists nowhere; the one under test gets NUL.
      const fill = (hostile: string | null) =>
        path.replace(/\{(\w+)\}/g, (_all, param: string) =>
          param === hostile ? NUL_URL : (PLACEHOLDERS[param] ?? 'unknown'),
        );
      for (const param of params.filter((p) => p.in === 'path')) {
        const res = path.endsWith('/uploads')
          ? await uploadTo(fill(param.name), multipartBody([{ name: 'a.txt', bytes: 'hello' }]))
          : await send(method, fill(param.name));
        assert.equal(res.statusCode, 404, `${name} with NUL in {${param.name}}: ${res.body}`);
        if (/^application\/json/.test(String(res.headers['content-type'])))
          expectError(res, 404, 'not_found');
        else assert.match(res.body, /<html/i, name);
        cases += 1;
      }
      const url = fill(null);
      for (const param of params.filter((p) => p.in === 'query')) {
        const res = await send(method, `${url}?${param.name}=${NUL_URL}`);
        if (res.statusCode === 404 && path.includes('{')) continue; // the record is looked up first
        expectRefused(res, param.name, `${name}?${param.name}`);
        cases += 1;
      }
      if (path.includes('{') && fields.length > 0) {
        // Bodies of routes under an unknown id are still validated before the lookup.
      }
      for (const field of fields) {
        for (const bad of [NUL_JSON, LONE_JSON]) {
          const res = await send(method, url, `{"${field}":${bad}}`);
          expectRefused(res, field, `${name} body.${field}=${bad}`);
          cases += 1;
        }
      }
      if (op.requestBody?.content['application/json']) {
        // An object key is text too (jsonb columns hold keys).
        const res = await send(method, url, '{"a\\u0000":1}');
        assert.equal(res.statusCode, 422, `${name} NUL in a key: ${res.body}`);
        assert.ok(!res.body.includes('\\u0000'), 'the key goes back without the NUL');
      }
    }
    assert.ok(cases > 100, `only ${cases} cases ran`);
    assert.deepEqual(await rowCounts(t), before);
  });

  test('whole requests that are otherwise valid: 422 (404 for ids), and nothing stored', async () => {
    const before = await rowCounts(t);
    const nul = 'x\u0000y';
    const lone = 'x\ud800y';
    const post = (url: string, body: unknown) => send('POST', url, JSON.stringify(body));
    // Sign-in answers unauthenticated callers: the email is looked up, so it is checked first.
    expectRefused(
      await post('/api/v1/admin/session', { email: `a${nul}@example.com`, password: 'p' }),
      'email',
      'sign-in',
    );
    expectRefused(
      await post('/v1/widget/init', { agent_id: nul, anon_id: newAnonId() }),
      'agent_id',
      'init id',
    );
    expectRefused(
      await post('/v1/widget/init', { agent_id: site.agentId, anon_id: newAnonId(), page_title: lone }),
      'page_title',
      'init title',
    );
    expectRefused(await post('/api/v1/admin/agents', { name: nul }), 'name', 'agent name');
    expectRefused(
      await post('/api/v1/admin/agents', { name: 'Bot', system_prompt: lone }),
      'system_prompt',
      'prompt',
    );
    expectRefused(
      await send('PATCH', `/api/v1/admin/agents/${site.agentId}`, JSON.stringify({ name: lone })),
      'name',
      'agent rename',
    );
    expectRefused(
      await post('/api/v1/admin/kb/articles', { title: 'T', slug: 'hostile', body_markdown: nul }),
      'body_markdown',
      'kb body',
    );
    expectRefused(
      await post(`/api/v1/admin/agents/${site.agentId}/sources`, { type: 'text', text: nul }),
      'text',
      'text source',
    );
    expectRefused(
      await post(`/api/v1/admin/agents/${site.agentId}/sources`, {
        type: 'url',
        url: `https://example.com/${nul}`,
      }),
      'url',
      'url source',
    );
    expectRefused(
      await post(`/api/v1/admin/agents/${site.agentId}/search`, { query: nul }),
      'query',
      'search',
    );
    expectRefused(await post('/api/v1/admin/tokens', { name: lone, abilities: ['admin'] }), 'name', 'token');
    expectRefused(
      await post('/api/v1/admin/webhooks', {
        url: `https://hooks.example.com/${nul}`,
        events: ['lead.captured'],
      }),
      'url',
      'webhook',
    );
    expectRefused(
      await post(`${WP}/posts/sync`, {
        agent_id: site.agentId,
        site_url: SITE_URL,
        plugin_version: '1.2.0',
        posts: [samplePost(1), samplePost(2, { content_html: `<p>${lone}</p>` })],
      }),
      'posts.1.content_html',
      'posts sync',
    );
    expectRefused(
      await post(`${WP}/posts/sync`, {
        agent_id: nul,
        site_url: SITE_URL,
        plugin_version: '1.2.0',
        posts: [samplePost(1)],
      }),
      'agent_id',
      'posts sync agent',
    );
    expectRefused(await post('/v1/widget/messages', { message: nul }), 'message', 'widget message');
    expectRefused(await post('/v1/widget/leads', { email: 'a@example.com', name: lone }), 'name', 'lead');
    expectRefused(await post('/api/v1/widget/coupon/apply', { code: nul }), 'code', 'coupon');
    for (const list of ['leads', 'conversations']) {
      expectRefused(await send('GET', `/api/v1/admin/${list}?agent_id=%00`), 'agent_id', `${list} filter`);
    }
    expectRefused(await send('GET', '/api/v1/admin/audit-logs?action=%00'), 'action', 'audit filter');
    // Path ids: like any unknown id.
    expectError(await send('GET', '/api/v1/admin/agents/a%00'), 404, 'not_found');
    expectError(await send('DELETE', '/api/v1/admin/kb/articles/%00'), 404, 'not_found');
    for (const url of ['/kb/a%00', `/kb/${site.tenant.workspace.slug}/a%00`]) {
      const res = await send('GET', url);
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    }
    assert.deepEqual(await rowCounts(t), before);
  });
});
