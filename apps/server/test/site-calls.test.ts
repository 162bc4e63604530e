import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { computeSignature, parseSignatureHeader, STAGED_COUPON_TTL_SECONDS } from '@service/contract';
import { AppError } from '../src/errors/app-error.js';
import {
  callPlugin,
  lookupOrders,
  PLUGIN_CALL_TIMEOUT_MS,
  pushLead,
  type SiteCallOptions,
  stageCoupon,
} from '../src/site-calls/plugin-client.js';
import {
  type ConnectedSite,
  connectSite,
  type FakeSite,
  sampleOrder,
  startFakeSite,
} from './support/fake-site.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('site calls: the plugin client against a loopback site (SAFE_URL_ALLOW set)', () => {
  let fake: FakeSite;
  let t: TestApp;
  let site: ConnectedSite;
  /** The site's clock (unix seconds); ours is `clock + skew`. */
  let clock = 1_800_000_000;
  let skew = 0;

  before(async () => {
    fake = await startFakeSite({
      secret: '',
      coupons: ['SAVE10'],
      now: () => clock,
      orders: {
        7: [sampleOrder(101), sampleOrder(102, { number: 'A-102' }), sampleOrder(103)],
        8: [sampleOrder(201)],
      },
    });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: fake.allowEntry } });
    site = await connectSite(t, fake);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const scope = (): SiteCallOptions => ({
    db: t.database.db,
    workspaceId: site.tenant.workspace.id,
    agentId: site.agentId,
    safeUrlAllow: t.config.safeUrlAllow,
    now: () => new Date((clock + skew) * 1000),
  });

  test('order lookup: signed with the shopper_signing_secret, only that user, default limit 5', async () => {
    const before = fake.accepted.length;
    const result = await lookupOrders({ ...scope(), wpUserId: 7 });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.data.count, 3);
    assert.deepEqual(
      result.data.orders.map((order) => order.id),
      [101, 102, 103],
    );
    assert.equal(result.data.note, undefined);
    const request = fake.accepted[before];
    assert.ok(request, 'the site accepted the call');
    assert.equal(request.route, 'orders/lookup');
    assert.deepEqual(request.body, { wp_user_id: 7, limit: 5 });
    // The header is the contract's scheme: t = our clock, v1 = HMAC over "<t>.<raw body>".
    const parsed = parseSignatureHeader(request.signature);
    assert.equal(parsed?.t, clock);
    assert.equal(parsed?.v1, computeSignature(site.secret, clock, JSON.stringify(request.body)));
  });

  test('order lookup: limit and order_number filter what comes back; limit 20 passes, 21 is ours to refuse', async () => {
    const limited = await lookupOrders({ ...scope(), wpUserId: 7, limit: 2 });
    assert.ok(limited.ok);
    assert.deepEqual(
      limited.data.orders.map((order) => order.id),
      [101, 102],
    );
    const byNumber = await lookupOrders({ ...scope(), wpUserId: 7, orderNumber: 'A-102' });
    assert.ok(byNumber.ok);
    assert.deepEqual(
      byNumber.data.orders.map((order) => order.number),
      ['A-102'],
    );
    const other = await lookupOrders({ ...scope(), wpUserId: 8, limit: 20 });
    assert.ok(other.ok);
    assert.deepEqual(
      other.data.orders.map((order) => order.id),
      [201],
    );
    const count = fake.accepted.length;
    await assert.rejects(lookupOrders({ ...scope(), wpUserId: 7, limit: 21 }), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'validation_failed');
      assert.ok(error.errors.limit);
      return true;
    });
    assert.equal(fake.accepted.length, count, 'an invalid request is never sent');
  });

  test('order lookup with the commerce extension inactive: 200, no orders, note commerce_inactive', async () => {
    fake.commerceActive = false;
    try {
      const result = await lookupOrders({ ...scope(), wpUserId: 7 });
      assert.deepEqual(result, { ok: true, data: { count: 0, orders: [], note: 'commerce_inactive' } });
    } finally {
      fake.commerceActive = true;
    }
  });

  test('coupon staging: pending for exactly 15 minutes, keyed by conversation', async () => {
    const result = await stageCoupon({ ...scope(), code: 'SAVE10', conversationId: 'conv-1' });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.data.applied, false);
    assert.equal(result.data.pending, true);
    assert.equal(fake.stagedCoupon('conv-1'), 'SAVE10');
    assert.equal(fake.stagedCoupon('conv-2'), null);
    const start = clock;
    clock = start + STAGED_COUPON_TTL_SECONDS - 1;
    assert.equal(fake.stagedCoupon('conv-1'), 'SAVE10');
    clock = start + STAGED_COUPON_TTL_SECONDS;
    assert.equal(fake.stagedCoupon('conv-1'), null);
    clock = start;
  });

  test('an unknown coupon and an inactive shop come back as plugin errors with their codes', async () => {
    const unknown = await stageCoupon({ ...scope(), code: 'NOPE', conversationId: 'conv-3' });
    assert.deepEqual(unknown, {
      ok: false,
      kind: 'plugin_error',
      status: 400,
      code: 'invalid_coupon',
      message: 'The coupon code does not exist.',
    });
    assert.equal(fake.stagedCoupon('conv-3'), null);
    fake.commerceActive = false;
    try {
      const inactive = await stageCoupon({ ...scope(), code: 'SAVE10', conversationId: 'conv-3' });
      assert.equal(inactive.ok, false);
      assert.equal(!inactive.ok && inactive.code, 'commerce_inactive');
      assert.equal(!inactive.ok && inactive.status, 400);
    } finally {
      fake.commerceActive = true;
    }
  });

  test('lead push: the site answers its user id, the same one for the same email', async () => {
    const lead = {
      email: 'Ada@Example.com',
      name: 'Ada',
      phone: '',
      conversation_id: 'conv-1',
      service_lead_id: '01LEAD',
    };
    const first = await pushLead({ ...scope(), lead });
    const second = await pushLead({ ...scope(), lead: { ...lead, service_lead_id: '01LEAD2' } });
    assert.ok(first.ok && second.ok);
    assert.equal(first.data.user_id, second.data.user_id);
    assert.equal(fake.users.get('ada@example.com'), first.data.user_id);
    assert.deepEqual(fake.accepted.at(-1)?.body, { ...lead, service_lead_id: '01LEAD2' });
  });

  test("the site's verification order: wrong key, no secret, and a clock 301 s off are refused", async () => {
    const lookup = () => callPlugin({ ...scope(), route: 'orders/lookup', body: { wp_user_id: 7 } });
    fake.secret = 'not-the-shared-secret';
    const wrong = await lookup();
    fake.secret = '';
    const unconfigured = await lookup();
    fake.secret = site.secret;
    assert.deepEqual(
      [wrong, unconfigured].map((r) => (r.ok ? 'ok' : `${r.kind} ${r.status} ${r.code}`)),
      ['plugin_error 401 signature_mismatch', 'plugin_error 401 plugin_unconfigured'],
    );
    skew = -300; // we sign 300 s behind the site: still inside the window
    assert.equal((await lookup()).ok, true);
    skew = -301;
    const stale = await lookup();
    skew = 0;
    assert.equal(!stale.ok && stale.code, 'signature_mismatch');
  });

  test('a site that does not answer in time gives timeout, never a throw (default budget 5 s)', async () => {
    assert.equal(PLUGIN_CALL_TIMEOUT_MS, 5_000);
    fake.hang.add('orders/lookup');
    try {
      const result = await lookupOrders({ ...scope(), wpUserId: 7, timeoutMs: 300 });
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.kind, 'timeout');
      assert.match(!result.ok ? result.message : '', /timed out after 300 ms/);
    } finally {
      fake.hang.delete('orders/lookup');
    }
  });
});
