import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isOriginAllowed } from '@service/contract';
import { expectError } from './support/http.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import {
  createWidgetAgent,
  initRequest,
  initSession,
  newAnonId,
  ORIGIN,
  widgetCall,
} from './support/widget.js';

describe('origin policy (one function)', () => {
  const list = ['https://shop.example.com', 'http://localhost:3000'];
  test('exact and normalised matches pass', () => {
    assert.ok(isOriginAllowed(list, 'https://shop.example.com'));
    assert.ok(isOriginAllowed(list, 'HTTPS://SHOP.example.COM'));
    assert.ok(isOriginAllowed(list, 'https://shop.example.com:443'));
    assert.ok(isOriginAllowed(list, ' https://shop.example.com/ '));
    assert.ok(isOriginAllowed(list, 'http://localhost:3000'));
  });
  test('anything else is refused: subdomains, parents, schemes, ports, look-alikes, junk', () => {
    for (const origin of [
      'https://www.shop.example.com',
      'https://example.com',
      'http://shop.example.com',
      'https://shop.example.com:8443',
      'https://shop.example.com.evil.test',
      'https://evilshop.example.com',
      'http://localhost:3001',
      'http://localhost',
      'null',
      '',
      'https://shop.example.com/path',
      'https://user@shop.example.com',
    ]) {
      assert.equal(isOriginAllowed(list, origin), false, origin);
    }
    assert.equal(isOriginAllowed(list, undefined), false, 'a missing Origin');
  });
  test('an empty list denies all; * allows all, a missing Origin included', () => {
    assert.equal(isOriginAllowed([], 'https://shop.example.com'), false);
    assert.equal(isOriginAllowed([], undefined), false);
    assert.ok(isOriginAllowed(['*'], 'https://anything.test'));
    assert.ok(isOriginAllowed(['*'], undefined));
    assert.ok(isOriginAllowed(['*'], 'null'));
  });
});

describe('widget origin checks over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('init: allowed origin → 200 with CORS for that origin and no web security headers', async () => {
    const { agentId } = await createWidgetAgent(t);
    const res = await initRequest(t, { agent_id: agentId, anon_id: newAnonId() });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    assert.match(String(res.headers.vary), /Origin/);
    for (const header of [
      'content-security-policy',
      'x-content-type-options',
      'referrer-policy',
      'strict-transport-security',
      'x-frame-options',
    ]) {
      assert.equal(res.headers[header], undefined, header);
    }
  });

  test('init: subdomain, other scheme, missing Origin → 403 origin_forbidden without CORS', async () => {
    const { agentId } = await createWidgetAgent(t);
    for (const origin of ['https://www.shop.example.com', 'http://shop.example.com', null]) {
      const res = await initRequest(t, { agent_id: agentId, anon_id: newAnonId() }, { origin });
      expectError(res, 403, 'origin_forbidden');
      assert.equal(res.headers['access-control-allow-origin'], undefined, String(origin));
    }
    const stored = await t.database.db
      .selectFrom('visitors')
      .select('id')
      .where('agent_id', '=', agentId)
      .execute();
    assert.equal(stored.length, 0, 'a refused init creates nothing');
  });

  test('init: empty list denies all; * allows a missing Origin', async () => {
    const closed = await createWidgetAgent(t, { allowed_origins: [] });
    expectError(
      await initRequest(t, { agent_id: closed.agentId, anon_id: newAnonId() }),
      403,
      'origin_forbidden',
    );
    const open = await createWidgetAgent(t, { allowed_origins: ['*'] });
    assert.equal(
      (await initRequest(t, { agent_id: open.agentId, anon_id: newAnonId() }, { origin: null })).statusCode,
      200,
    );
    const elsewhere = await initRequest(
      t,
      { agent_id: open.agentId, anon_id: newAnonId() },
      { origin: 'https://elsewhere.test' },
    );
    assert.equal(elsewhere.statusCode, 200);
    assert.equal(
      elsewhere.headers['access-control-allow-origin'],
      'https://elsewhere.test',
      'reflected, never *',
    );
  });

  test('init: unknown or unpublished agent → 404', async () => {
    expectError(await initRequest(t, { agent_id: '01NOSUCHAGENT', anon_id: newAnonId() }), 404, 'not_found');
    const draft = await createWidgetAgent(t, { is_published: false });
    expectError(await initRequest(t, { agent_id: draft.agentId, anon_id: newAnonId() }), 404, 'not_found');
  });

  test('later routes re-check the Origin: mismatch → 403 (no code origin_forbidden)', async () => {
    const { agentId } = await createWidgetAgent(t);
    const session = await initSession(t, agentId);
    const ok = await widgetCall(t, 'POST', '/v1/widget/events', session.token, { kind: 'widget_opened' });
    assert.equal(ok.statusCode, 202, ok.body);
    for (const origin of ['https://evil.test', 'https://www.shop.example.com', null]) {
      const res = await widgetCall(
        t,
        'POST',
        '/v1/widget/events',
        session.token,
        { kind: 'widget_opened' },
        { origin },
      );
      expectError(res, 403, 'forbidden');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    }
    const rows = await t.database.db
      .selectFrom('widget_events')
      .select('id')
      .where('agent_id', '=', agentId)
      .execute();
    assert.equal(rows.length, 1, 'refused requests store nothing');
  });

  test('an origin removed from the agent after init is refused on the next call', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const session = await initSession(t, agentId);
    const patch = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/agents/${agentId}`,
      { allowed_origins: ['https://other.example.com'] },
      tenant.auth,
    );
    assert.equal(patch.statusCode, 200, patch.body);
    expectError(
      await widgetCall(t, 'POST', '/v1/widget/typing', session.token, { typing: true }),
      403,
      'forbidden',
    );
  });

  test('preflight: every well-formed origin may ask; the answer names methods and headers', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/widget/messages/stream',
      headers: {
        origin: 'https://evil.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], 'https://evil.test');
    assert.match(String(res.headers['access-control-allow-headers']), /Authorization/);
    assert.match(String(res.headers['access-control-allow-methods']), /POST/);
    assert.equal(res.headers['content-security-policy'], undefined);
    const coupon = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/widget/coupon/apply',
      headers: { origin: ORIGIN },
    });
    assert.equal(coupon.statusCode, 204);
  });

  test('web routes keep their security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.ok(res.headers['content-security-policy']);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });
});
