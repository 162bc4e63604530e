import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgent } from '@service/contract';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expectData } from './support/http.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

function requestId(res: LightMyRequestResponse): string {
  const id = res.headers['x-request-id'];
  assert.equal(typeof id, 'string', 'x-request-id is set');
  return String(id);
}

describe('request ids', () => {
  let t: TestApp;
  let acme: Tenant;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Ids');
  });
  after(() => t.close());

  test('every answer carries a fresh x-request-id: success, 401, 404, 400, 422', async () => {
    const requests: InjectOptions[] = [
      { url: '/healthz' },
      { url: '/api/v1/admin/agents', headers: acme.auth },
      { url: '/api/v1/admin/agents' },
      { url: '/nowhere' },
      { url: '/api/v1/admin/agents/%zz', headers: acme.auth },
      {
        method: 'POST',
        url: '/api/v1/admin/agents',
        headers: { ...acme.auth, 'content-type': 'application/json' },
        payload: '{}',
      },
    ];
    const ids = new Set<string>();
    for (const options of requests) {
      const res = await t.app.inject(options);
      const id = requestId(res);
      assert.match(id, ULID, `${options.url} → ${res.statusCode}`);
      ids.add(id);
    }
    assert.equal(ids.size, requests.length, 'ids are not reused');
  });

  test('a safe incoming x-request-id is kept and echoed', async () => {
    for (const incoming of ['abc-123', 'trace.id:42_A', 'a'.repeat(64)]) {
      const res = await t.app.inject({
        url: '/api/v1/admin/agents',
        headers: { ...acme.auth, 'x-request-id': incoming },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(requestId(res), incoming);
    }
  });

  test('an unsafe incoming x-request-id is replaced by a fresh one', async () => {
    for (const incoming of [
      'has spaces in it',
      'a'.repeat(65),
      'x'.repeat(200),
      '<script>',
      'id;drop',
      'ünï',
    ]) {
      const res = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': incoming } });
      const id = requestId(res);
      assert.notEqual(id, incoming);
      assert.match(id, ULID);
    }
  });

  test('the request id is echoed on errors too', async () => {
    const res = await t.app.inject({ url: '/api/v1/admin/me', headers: { 'x-request-id': 'err-1' } });
    assert.equal(res.statusCode, 401);
    assert.equal(requestId(res), 'err-1');
  });
});

describe('browser security headers', () => {
  let t: TestApp;
  let acme: Tenant;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Headers');
  });
  after(() => t.close());

  function assertSecurityHeaders(res: LightMyRequestResponse, label: string): void {
    assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
    assert.equal(res.headers['referrer-policy'], 'strict-origin-when-cross-origin', label);
    const csp = String(res.headers['content-security-policy'] ?? '');
    const directives = new Map<string, string>();
    for (const part of csp.split(';')) {
      const [name = '', ...values] = part.trim().split(/\s+/);
      if (name) directives.set(name, values.join(' '));
    }
    assert.equal(directives.get('default-src'), "'self'", `${label}: ${csp}`);
    assert.equal(directives.get('object-src'), "'none'", `${label}: ${csp}`);
    assert.equal(directives.get('base-uri'), "'self'", `${label}: ${csp}`);
    assert.equal(directives.get('form-action'), "'self'", `${label}: ${csp}`);
    assert.equal(directives.get('frame-ancestors'), "'self'", `${label}: ${csp}`);
    for (const name of ['script-src', 'style-src', 'img-src', 'font-src', 'connect-src', 'frame-src']) {
      assert.ok(directives.has(name), `${label}: CSP lacks ${name}`);
    }
    assert.equal(res.headers['strict-transport-security'], undefined, `${label}: HSTS on plain http`);
  }

  test('admin answers carry the headers: 200, 201, 204, 401, 404, 422', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/agents',
      headers: { ...acme.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Headers' }),
    });
    assertSecurityHeaders(created, 'POST 201');
    const { id } = expectData(created, 201, ZAgent);
    const cases: Array<[string, InjectOptions, number]> = [
      ['list', { url: '/api/v1/admin/agents', headers: acme.auth }, 200],
      ['me', { url: '/api/v1/admin/me', headers: acme.auth }, 200],
      ['no token', { url: '/api/v1/admin/agents' }, 401],
      ['missing record', { url: '/api/v1/admin/agents/01NOPE', headers: acme.auth }, 404],
      [
        'invalid body',
        {
          method: 'POST',
          url: '/api/v1/admin/agents',
          headers: { ...acme.auth, 'content-type': 'application/json' },
          payload: '{"name":""}',
        },
        422,
      ],
      ['unknown route', { url: '/api/v1/admin/unknown', headers: acme.auth }, 404],
      ['delete', { method: 'DELETE', url: `/api/v1/admin/agents/${id}`, headers: acme.auth }, 204],
    ];
    for (const [label, options, status] of cases) {
      const res = await t.app.inject(options);
      assert.equal(res.statusCode, status, `${label}: ${res.body}`);
      assertSecurityHeaders(res, label);
    }
  });

  test('no HSTS on plain http, even when an untrusted proxy header claims https', async () => {
    for (const headers of [
      {},
      { 'x-forwarded-proto': 'https' },
      { 'x-forwarded-proto': 'https', forwarded: 'proto=https' },
    ]) {
      const res = await t.app.inject({ url: '/api/v1/admin/me', headers: { ...acme.auth, ...headers } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['strict-transport-security'], undefined);
    }
  });

  test('the docs page carries the headers too', async () => {
    const res = await t.app.inject({ url: '/docs/json' });
    assert.equal(res.statusCode, 200);
    assertSecurityHeaders(res, 'docs');
  });
});
