import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { ADMIN_ROUTES, type AdminRoute, bearer, expectError, UNAUTHENTICATED_BODY } from './support/http.js';
import { createTestApp, issueToken, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { multipartBody } from './support/upload-files.js';

/** A request to an admin route; bodies are valid so only the credential decides. */
function request(route: AdminRoute, headers: Record<string, string>): InjectOptions {
  if (route.url.endsWith('/uploads')) {
    // A valid multipart upload of one small text file (the uploads route takes nothing else).
    const upload = multipartBody([{ name: 'matrix.txt', bytes: 'Matrix', contentType: 'text/plain' }]);
    return {
      method: route.method,
      url: route.url,
      headers: { ...upload.headers, ...headers },
      payload: upload.payload,
    };
  }
  const body =
    route.body !== undefined
      ? route.body
      : route.method === 'POST' && route.url.endsWith('/tokens')
        ? { name: 'Matrix', abilities: ['admin'] }
        : route.method === 'PATCH' && route.url.includes('/sources/')
          ? { plugin_base: 'https://shop.example.com/wp-json/service/v1/' }
          : route.method === 'POST' && route.url.endsWith('/search')
            ? { query: 'x' }
            : route.method === 'POST' && route.url.endsWith('/sources')
              ? { type: 'text', text: 'Matrix' }
              : route.method === 'POST' && route.url.endsWith('/reindex')
                ? undefined
                : route.method === 'POST' && route.url.endsWith('/kb/articles')
                  ? { title: 'Matrix', body_markdown: '# Matrix' }
                  : route.method === 'PATCH' && route.url.includes('/kb/articles/')
                    ? { title: 'Matrix' }
                    : route.method === 'POST' || route.method === 'PATCH'
                      ? { name: 'Matrix' }
                      : undefined;
  return body === undefined
    ? { method: route.method, url: route.url, headers }
    : {
        method: route.method,
        url: route.url,
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(body),
      };
}

describe('admin API: authentication and abilities on every route', () => {
  let t: TestApp;
  let acme: Tenant;
  let revoked: string;
  let integrationOnly: string;
  let counts: { agents: number; tokens: number; audit: number };

  const tally = async () => ({
    agents: (await t.database.db.selectFrom('agents').select('id').execute()).length,
    tokens: (await t.database.db.selectFrom('api_tokens').select('id').execute()).length,
    audit: (await t.database.db.selectFrom('audit_logs').select('id').execute()).length,
  });

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Auth');
    const doomed = await issueToken(t, acme, ['admin']);
    revoked = doomed.token;
    await t.database.db
      .updateTable('api_tokens')
      .set({ revoked_at: new Date() })
      .where('id', '=', doomed.id)
      .execute();
    integrationOnly = (await issueToken(t, acme, ['wp:integration'])).token;
    counts = await tally();
  });
  after(() => t.close());

  const unauthenticated: Array<[string, () => Record<string, string>]> = [
    ['no Authorization header', () => ({})],
    ['Basic credentials', () => ({ authorization: `Basic ${Buffer.from('owner:pw').toString('base64')}` })],
    ['Basic carrying the real token', () => ({ authorization: `Basic ${acme.admin_token}` })],
    ['a bare token without scheme', () => ({ authorization: acme.admin_token })],
    ['Bearer with nothing after it', () => ({ authorization: 'Bearer' })],
    ['Bearer with garbage', () => ({ authorization: 'Bearer not a token at all' })],
    ['Bearer with an oversized value', () => ({ authorization: `Bearer ${'x'.repeat(600)}` })],
    ['an unknown svc_ token', () => bearer('svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')],
    ['the real token with a character changed', () => bearer(`${acme.admin_token.slice(0, -1)}!`)],
    ['a revoked token', () => bearer(revoked)],
  ];

  for (const route of ADMIN_ROUTES) {
    for (const [label, headers] of unauthenticated) {
      test(`${route.method} ${route.url}: ${label} → 401 without detail`, async () => {
        const res = await t.app.inject(request(route, headers()));
        assert.equal(res.statusCode, 401, res.body);
        assert.equal(res.body, UNAUTHENTICATED_BODY);
        assert.match(String(res.headers['content-type']), /^application\/json/);
      });
    }

    test(`${route.method} ${route.url}: a token with only wp:integration → 403 forbidden`, async () => {
      const body = expectError(await t.app.inject(request(route, bearer(integrationOnly))), 403, 'forbidden');
      assert.deepEqual(body.errors, {});
    });

    test(`${route.method} ${route.url}: the admin token gets past auth`, async () => {
      const res = await t.app.inject(request(route, acme.auth));
      // `:id` routes address a record that does not exist; everything else succeeds.
      const expected =
        route.expected ?? (route.url.includes('01ABC') ? 404 : route.method === 'POST' ? 201 : 200);
      assert.equal(res.statusCode, expected, res.body);
    });
  }

  test('refused requests changed nothing: no agents, tokens or audit rows beyond the allowed calls', async () => {
    const now = await tally();
    // The allowed calls made one agent, one token, one KB article, and audit rows for them and for PATCH /me.
    assert.deepEqual(now, {
      agents: counts.agents + 1,
      tokens: counts.tokens + 1,
      audit: counts.audit + 4,
    });
  });

  test('auth runs before body parsing: malformed JSON without a token is a 401', async () => {
    for (const route of ADMIN_ROUTES.filter((candidate) => candidate.method !== 'GET')) {
      const res = await t.app.inject({
        method: route.method,
        url: route.url,
        headers: { 'content-type': 'application/json' },
        payload: '{"name": ',
      });
      assert.equal(res.statusCode, 401, `${route.method} ${route.url}: ${res.body}`);
      assert.equal(res.body, UNAUTHENTICATED_BODY);
    }
  });

  test('auth runs before the content type check: text/plain without a token is a 401', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/agents',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, UNAUTHENTICATED_BODY);
  });

  test('HEAD on an admin GET route needs a token too', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/api/v1/admin/agents' });
    assert.equal(res.statusCode, 401);
    const ok = await t.app.inject({ method: 'HEAD', url: '/api/v1/admin/agents', headers: acme.auth });
    assert.equal(ok.statusCode, 200);
  });
});
