import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { API_TOKEN_PREFIX } from '@service/contract';
import { bearer, expectError, UNAUTHENTICATED_BODY } from './support/http.js';
import {
  type Json,
  queuedJobs,
  SIGNED_ROUTES,
  SITE_URL,
  type SignedRoute,
  sampleCoupon,
  samplePost,
  sampleProduct,
  siteSyncApp,
  snapshot,
  target,
  wpPost,
} from './support/site-sync.js';
import { injectJson, issueToken } from './support/test-app.js';

const HANDSHAKE = { site_url: SITE_URL, plugin_version: '1.2.0', commerce_active: true, cms_version: '6.5' };

/** A body each route accepts, so a rejection can only come from authentication. */
function validBody(route: SignedRoute | 'handshake', agentId: string): Json {
  switch (route) {
    case 'handshake':
      return HANDSHAKE;
    case 'posts/sync':
      return { ...target(agentId), posts: [samplePost(1)] };
    case 'posts/changed':
      return { ...target(agentId), action: 'upsert', posts: [samplePost(2)] };
    case 'products/sync':
      return { ...target(agentId), products: [sampleProduct(1)] };
    case 'products/changed':
      return { ...target(agentId), action: 'upsert', products: [sampleProduct(2)] };
    case 'coupons/sync':
      return { ...target(agentId), coupons: [sampleCoupon('SAVE10')] };
  }
}

const ALL_ROUTES = ['handshake', ...SIGNED_ROUTES] as const;

describe('site integration: bearer token and ability', () => {
  const s = siteSyncApp();
  let adminOnly: string;
  let revoked: string;

  before(async () => {
    adminOnly = (await issueToken(s.t, s.site.tenant, ['admin'])).token;
    const toRevoke = await issueToken(s.t, s.site.tenant, ['wp:integration']);
    revoked = toRevoke.token;
    const res = await s.t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/tokens/${toRevoke.id}`,
      headers: s.site.tenant.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  for (const route of ALL_ROUTES) {
    test(`${route}: missing, unknown or revoked bearer → 401 without detail; nothing stored`, async () => {
      const before = await snapshot(s.t);
      const body = validBody(route, s.site.agentId);
      const cases: Array<[string, string | null]> = [
        ['no bearer', null],
        ['unknown token', `${API_TOKEN_PREFIX}${'0'.repeat(40)}`],
        ['revoked token', revoked],
      ];
      for (const [label, token] of cases) {
        // Signed correctly with the presented token, so only the token itself is wrong.
        const res = await wpPost(s.t, route, token, body, token === null ? { key: s.site.token } : {});
        assert.equal(res.statusCode, 401, `${label}: ${res.body}`);
        assert.equal(res.body, UNAUTHENTICATED_BODY, label);
      }
      // The right token under another scheme is no bearer either.
      const basic = await s.t.app.inject({
        method: 'POST',
        url: `/api/v1/wp/${route}`,
        headers: { authorization: `Basic ${s.site.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      assert.equal(basic.statusCode, 401);
      assert.equal(basic.body, UNAUTHENTICATED_BODY);
      assert.deepEqual(await snapshot(s.t), before);
    });

    test(`${route}: a token with only admin → 403 forbidden; nothing stored`, async () => {
      const before = await snapshot(s.t);
      const res = await wpPost(s.t, route, adminOnly, validBody(route, s.site.agentId));
      expectError(res, 403, 'forbidden');
      assert.deepEqual(await snapshot(s.t), before);
    });
  }

  for (const route of SIGNED_ROUTES) {
    test(`${route}: no X-Service-Signature → 401 missing_signature; nothing stored`, async () => {
      const before = await snapshot(s.t);
      const res = await s.post(route, validBody(route, s.site.agentId), { header: null });
      const body = expectError(res, 401, 'missing_signature');
      assert.deepEqual(body.errors, {});
      assert.deepEqual(await snapshot(s.t), before);
    });
  }

  test('the handshake needs no signature', async () => {
    const res = await injectJson(s.t.app, 'POST', '/api/v1/wp/handshake', HANDSHAKE, bearer(s.site.token));
    assert.equal(res.statusCode, 200, res.body);
  });

  test('control: the same bodies, correctly signed with a valid token, are accepted', async () => {
    const jobsBefore = await queuedJobs(s.t);
    for (const route of ALL_ROUTES) {
      const res = await s.post(route, validBody(route, s.site.agentId));
      assert.equal(res.statusCode, 200, `${route}: ${res.body}`);
    }
    // posts/sync, posts/changed, products/sync and products/changed each stored one new item.
    assert.equal((await queuedJobs(s.t)) - jobsBefore, 4);
  });
});
