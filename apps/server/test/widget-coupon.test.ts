import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZCouponApplyResult } from '@service/contract';
import { z } from 'zod';
import { type FakeSite, startFakeSite } from './support/fake-site.js';
import { bearer, expectData, expectError } from './support/http.js';
import { createSite, type Site, sampleCoupon, sampleProduct, target, wpPost } from './support/site-sync.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, ORIGIN, widgetCall } from './support/widget.js';

// POST /api/v1/widget/coupon/apply against a loopback site running the plugin's routes: the
// site is connected the way the plugin does it (handshake, products/sync, coupons/sync), so the
// source's plugin_base points at the fake site and the key is the handshake's shopper secret.

const APPLY = '/api/v1/widget/coupon/apply';
const ZHandshake = z.object({
  token: z.object({ id: z.string(), shopper_signing_secret: z.string().min(1) }),
});

/** Connects a published agent to `site` through the plugin API; returns the site and its secret. */
async function connectShop(t: TestApp, site: FakeSite): Promise<Site & { secret: string }> {
  const created = await createSite(t, { is_published: true, allowed_origins: [ORIGIN] });
  const shake = await injectJson(
    t.app,
    'POST',
    '/api/v1/wp/handshake',
    { site_url: site.siteUrl, plugin_version: '1.2.0', commerce_active: true, cms_version: '6.6' },
    bearer(created.token),
  );
  const { token } = expectData(shake, 200, ZHandshake);
  const products = await wpPost(t, 'products/sync', created.token, {
    ...target(created.agentId, site.siteUrl),
    products: [sampleProduct(1)],
  });
  assert.equal(products.statusCode, 200, products.body);
  const coupons = await wpPost(t, 'coupons/sync', created.token, {
    ...target(created.agentId, site.siteUrl),
    coupons: [sampleCoupon('SAVE10')],
  });
  assert.equal(coupons.statusCode, 200, coupons.body);
  const source = await t.database.db
    .selectFrom('sources')
    .select('plugin_base')
    .where('agent_id', '=', created.agentId)
    .where('type', '=', 'products')
    .executeTakeFirstOrThrow();
  assert.equal(source.plugin_base, site.pluginBase, 'the source calls the fake site');
  site.secret = token.shopper_signing_secret;
  return { ...created, secret: token.shopper_signing_secret };
}

describe('widget coupon/apply', () => {
  let site: FakeSite;
  let t: TestApp;
  before(async () => {
    site = await startFakeSite({ secret: '', coupons: ['SAVE10', 'WELCOME'] });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: site.allowEntry } });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  test('a known code is staged on the site for the token’s conversation, signed with the shopper secret', async () => {
    const shop = await connectShop(t, site);
    const s = await initSession(t, shop.agentId);
    assert.equal(s.agent.features.coupons, true);
    const accepted = site.accepted.length;
    const res = await widgetCall(t, 'POST', APPLY, s.token, { code: ' SAVE10 ' });
    const result = expectData(res, 200, ZCouponApplyResult);
    assert.equal(result.applied, false);
    assert.equal(result.pending, true);
    assert.ok(result.message.length > 0);
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
    // The fake site accepts only requests whose X-Service-Signature verifies with its secret.
    assert.equal(site.accepted.length, accepted + 1);
    const request = site.accepted.at(-1);
    assert.equal(request?.route, 'cart/coupon');
    assert.deepEqual(request?.body, { code: 'SAVE10', conversation_id: s.conversation_id });
    assert.match(request?.signature ?? '', /^t=\d+,v1=[0-9a-f]{64}$/);
    const stored = await t.database.db
      .selectFrom('api_tokens')
      .select('shopper_signing_secret')
      .where('id', '=', shop.tokenId)
      .executeTakeFirstOrThrow();
    assert.equal(stored.shopper_signing_secret, shop.secret);
    assert.equal(site.stagedCoupon(s.conversation_id), 'SAVE10');

    // A cleared conversation stages under its own id.
    const cleared = expectData(
      await widgetCall(t, 'POST', '/v1/widget/conversation/clear', s.token),
      200,
      z.object({ token: z.string(), conversation_id: z.string() }),
    );
    expectData(
      await widgetCall(t, 'POST', APPLY, cleared.token, { code: 'WELCOME' }),
      200,
      ZCouponApplyResult,
    );
    assert.equal(site.stagedCoupon(cleared.conversation_id), 'WELCOME');
    assert.equal(site.stagedCoupon(s.conversation_id), 'SAVE10');
  });

  test('an unknown code is 400 invalid_coupon and nothing is staged', async () => {
    const shop = await connectShop(t, site);
    const s = await initSession(t, shop.agentId);
    const res = await widgetCall(t, 'POST', APPLY, s.token, { code: 'NOPE' });
    expectError(res, 400, 'invalid_coupon');
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
    assert.equal(site.stagedCoupon(s.conversation_id), null);
    expectError(await widgetCall(t, 'POST', APPLY, s.token, { code: '   ' }), 422);
    expectError(
      await widgetCall(t, 'POST', APPLY, s.token, { code: 'SAVE10', conversation_id: 'other' }),
      422,
    );
    assert.equal(site.stagedCoupon(s.conversation_id), null);
  });

  test('commerce inactive on the site is 400 commerce_inactive', async () => {
    const shop = await connectShop(t, site);
    const s = await initSession(t, shop.agentId);
    site.commerceActive = false;
    try {
      expectError(await widgetCall(t, 'POST', APPLY, s.token, { code: 'SAVE10' }), 400, 'commerce_inactive');
    } finally {
      site.commerceActive = true;
    }
    assert.equal(site.stagedCoupon(s.conversation_id), null);
  });

  test('an agent without a site is 404, and the site hears nothing', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    assert.equal(s.agent.features.coupons, false);
    const received = site.received();
    expectError(await widgetCall(t, 'POST', APPLY, s.token, { code: 'SAVE10' }), 404);
    assert.equal(site.received(), received);
  });

  test('a wrong Origin is 403 without CORS; a missing token is 401; the site hears nothing', async () => {
    const shop = await connectShop(t, site);
    const s = await initSession(t, shop.agentId);
    const received = site.received();
    const wrong = await widgetCall(
      t,
      'POST',
      APPLY,
      s.token,
      { code: 'SAVE10' },
      { origin: 'https://evil.example.net' },
    );
    expectError(wrong, 403);
    assert.equal(wrong.headers['access-control-allow-origin'], undefined);
    expectError(await widgetCall(t, 'POST', APPLY, s.token, { code: 'SAVE10' }, { origin: null }), 403);
    const anonymous = await injectJson(t.app, 'POST', APPLY, { code: 'SAVE10' }, { origin: ORIGIN });
    expectError(anonymous, 401, 'unauthenticated');
    assert.equal(site.received(), received);
    assert.equal(site.stagedCoupon(s.conversation_id), null);
  });

  test('a site answering HTTP 500 without the plugin envelope is 502 site_unavailable', async () => {
    const shop = await connectShop(t, site);
    const s = await initSession(t, shop.agentId);
    site.canned.set('cart/coupon', { status: 500, body: '<html>fatal error</html>' });
    try {
      const res = await widgetCall(t, 'POST', APPLY, s.token, { code: 'SAVE10' });
      expectError(res, 502, 'site_unavailable');
    } finally {
      site.canned.delete('cart/coupon');
    }
  });
});

describe('widget coupon/apply: the site is refused by the crawl-safety guard', () => {
  let site: FakeSite;
  let t: TestApp;
  before(async () => {
    site = await startFakeSite({ secret: '', coupons: ['SAVE10'] });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: '' } });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  test('a loopback site without SAFE_URL_ALLOW is 502 site_unavailable and is never called', async () => {
    assert.deepEqual(t.config.safeUrlAllow, []);
    const shop = await connectShop(t, site);
    const s = await initSession(t, shop.agentId);
    const res = await widgetCall(t, 'POST', APPLY, s.token, { code: 'SAVE10' });
    expectError(res, 502, 'site_unavailable');
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
    assert.equal(site.received(), 0);
    assert.equal(site.stagedCoupon(s.conversation_id), null);
  });
});
