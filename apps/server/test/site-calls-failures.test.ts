import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  isRetryableFailure,
  lookupOrders,
  type PluginCallResult,
  type SiteCallOptions,
} from '../src/site-calls/plugin-client.js';
import {
  type ConnectedSite,
  connectSite,
  type FakeSite,
  sampleOrder,
  startFakeSite,
} from './support/fake-site.js';
import { createSite } from './support/site-sync.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** The failure part of a result, for one-line comparisons. */
function failureOf<T>(result: PluginCallResult<T>) {
  assert.equal(result.ok, false, JSON.stringify(result));
  return result.ok ? null : { kind: result.kind, status: result.status, code: result.code };
}

describe('site calls: failures come back typed, never thrown', () => {
  let fake: FakeSite;
  let newer: FakeSite;
  let t: TestApp;
  let site: ConnectedSite;

  before(async () => {
    fake = await startFakeSite({ secret: '', orders: { 7: [sampleOrder(101)] } });
    newer = await startFakeSite({ secret: '', orders: { 7: [sampleOrder(901)] } });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `${fake.allowEntry},${newer.allowEntry}` } });
    site = await connectSite(t, fake);
  });
  after(async () => {
    await t.close();
    await fake.close();
    await newer.close();
  });

  const scope = (agentId = site.agentId, workspaceId = site.tenant.workspace.id): SiteCallOptions => ({
    db: t.database.db,
    workspaceId,
    agentId,
    safeUrlAllow: t.config.safeUrlAllow,
  });

  test('the site refuses an unsigned request with 401 missing_signature', async () => {
    const res = await fetch(`${fake.pluginBase}orders/lookup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wp_user_id: 7 }),
    });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), {
      error: { code: 'missing_signature', message: 'Signature missing.' },
    });
  });

  test('answers that break the contract are bad_response; 5xx and 429 are worth a retry, 4xx are not', async () => {
    const cases: Array<[{ status: number; body: string }, object, boolean]> = [
      [{ status: 500, body: '<h1>Fatal error</h1>' }, { kind: 'bad_response', status: 500 }, true],
      [{ status: 200, body: '{"data":{"count":"one"}}' }, { kind: 'bad_response', status: 200 }, false],
      [{ status: 200, body: 'not json' }, { kind: 'bad_response', status: 200 }, false],
      [
        { status: 503, body: '{"error":{"code":"maintenance","message":"Back soon"}}' },
        { kind: 'plugin_error', status: 503, code: 'maintenance' },
        true,
      ],
      [
        { status: 429, body: '{"error":{"code":"rate_limited","message":"Slow down"}}' },
        { kind: 'plugin_error', status: 429, code: 'rate_limited' },
        true,
      ],
      [
        { status: 404, body: '{"code":"rest_no_route","message":"No route","data":{"status":404}}' },
        { kind: 'plugin_error', status: 404, code: 'rest_no_route' },
        false,
      ],
    ];
    try {
      for (const [answer, expected, retryable] of cases) {
        fake.canned.set('orders/lookup', answer);
        const result = await lookupOrders({ ...scope(), wpUserId: 7 });
        const failure = failureOf(result);
        assert.deepEqual(
          Object.fromEntries(Object.entries(failure ?? {}).filter(([, value]) => value !== undefined)),
          expected,
          answer.body,
        );
        assert.equal(!result.ok && isRetryableFailure(result), retryable, answer.body);
      }
    } finally {
      fake.canned.delete('orders/lookup');
    }
  });

  test('a redirect is not followed: refused, and its target never contacted', async () => {
    const received = newer.received();
    fake.canned.set('orders/lookup', {
      status: 307,
      body: '',
      headers: { location: `${newer.pluginBase}orders/lookup` },
    });
    try {
      const result = await lookupOrders({ ...scope(), wpUserId: 7 });
      assert.deepEqual(failureOf(result), { kind: 'refused', status: undefined, code: undefined });
      assert.match(!result.ok ? result.message : '', /more than 0 redirects/);
      assert.equal(newer.received(), received);
    } finally {
      fake.canned.delete('orders/lookup');
    }
  });

  test('no site: an agent without one, another workspace, a revoked token', async () => {
    const bare = await createSite(t);
    const received = fake.received();
    assert.equal(
      failureOf(await lookupOrders({ ...scope(bare.agentId, bare.tenant.workspace.id), wpUserId: 7 }))?.kind,
      'no_site',
    );
    // The right agent, asked for from another workspace: the same answer, nothing sent.
    assert.equal(
      failureOf(await lookupOrders({ ...scope(site.agentId, bare.tenant.workspace.id), wpUserId: 7 }))?.kind,
      'no_site',
    );
    assert.equal(fake.received(), received);

    const revocable = await connectSite(t, fake, { existing: bare });
    await t.database.db
      .updateTable('api_tokens')
      .set({ revoked_at: new Date() })
      .where('id', '=', revocable.tokenId)
      .execute();
    const result = await lookupOrders({ ...scope(bare.agentId, bare.tenant.workspace.id), wpUserId: 7 });
    assert.equal(failureOf(result)?.kind, 'no_site');
    assert.equal(fake.received(), received);
    fake.secret = site.secret; // connectSite gave the fake the other token's secret
  });

  test('the most recently synced site source wins', async () => {
    const first = await lookupOrders({ ...scope(), wpUserId: 7 });
    assert.ok(first.ok);
    assert.deepEqual(
      first.data.orders.map((order) => order.id),
      [101],
    );
    await connectSite(t, newer, { existing: site, type: 'products' });
    const second = await lookupOrders({ ...scope(), wpUserId: 7 });
    assert.ok(second.ok, JSON.stringify(second));
    assert.deepEqual(
      second.data.orders.map((order) => order.id),
      [901],
    );
  });
});

describe('site calls without SAFE_URL_ALLOW: the crawl-safety guard refuses the loopback site', () => {
  let fake: FakeSite;
  let t: TestApp;
  let site: ConnectedSite;

  before(async () => {
    fake = await startFakeSite({ secret: '', orders: { 7: [sampleOrder(101)] } });
    t = await createTestApp();
    site = await connectSite(t, fake);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  test('refused with the guard reason; the site is never contacted', async () => {
    assert.deepEqual(t.config.safeUrlAllow, []);
    const result = await lookupOrders({
      db: t.database.db,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      safeUrlAllow: t.config.safeUrlAllow,
      wpUserId: 7,
    });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.kind, 'refused');
    assert.match(!result.ok ? result.message : '', /^refused: 127\.0\.0\.1 is /);
    assert.equal(fake.received(), 0);
  });
});
