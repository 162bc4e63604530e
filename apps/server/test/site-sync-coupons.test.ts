import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { expectData, expectError, expectValidation } from './support/http.js';
import {
  createSite,
  type Json,
  queuedJobs,
  sampleCoupon,
  sampleProduct,
  siteSyncApp,
  siteTypeOf,
  snapshot,
  sourcesOf,
  target,
  without,
} from './support/site-sync.js';

const ZStored = z.strictObject({ stored: z.number().int() });

describe('site integration: coupons/sync', () => {
  const s = siteSyncApp();

  const sync = (agentId: string, coupons: unknown[], siteUrl?: string) =>
    s.sync('coupons', agentId, coupons, siteUrl ? { site_url: siteUrl } : {});

  /** The products sources of an agent with their stored coupon lists. */
  async function stored(agentId: string) {
    const sources = await sourcesOf(s.t, agentId);
    return sources
      .filter((source) => source.type === 'products')
      .map((source) => ({ id: source.id, coupons: source.config.coupons }));
  }

  test('creates the products source if needed and stores the list under config.coupons', async () => {
    const agentId = await s.freshAgent();
    const jobs = await queuedJobs(s.t);
    const coupons = [
      sampleCoupon('SAVE10'),
      { code: 'FREESHIP', label: 'Free shipping', discount: '0', expires_at: null },
      { code: 'WELCOME5' },
    ];
    const res = await sync(agentId, coupons, 'https://Shop.Example.com/');
    assert.deepEqual(expectData(res, 200, ZStored), { stored: 3 });
    const sources = await sourcesOf(s.t, agentId);
    assert.equal(sources.length, 1);
    const [source] = sources;
    assert.ok(source);
    assert.equal(source.type, 'products');
    assert.equal(source.site_url, 'https://shop.example.com');
    assert.equal(source.plugin_base, 'https://shop.example.com/wp-json/service/v1/');
    assert.equal(source.api_token_id, s.site.tokenId);
    assert.deepEqual(source.config, {
      coupons: [
        { code: 'SAVE10', label: 'SAVE10 label', discount: '10%', expires_at: '2026-12-31T23:59:59+00:00' },
        { code: 'FREESHIP', label: 'Free shipping', discount: '0', expires_at: null },
        { code: 'WELCOME5', label: '', discount: '', expires_at: null },
      ],
    });
    // Coupons are not indexed, and do not make the agent ecommerce.
    assert.equal(await queuedJobs(s.t), jobs);
    assert.equal(await siteTypeOf(s.t, agentId), 'generic');
  });

  test('uses the products source that products/sync created; replaces the whole list', async () => {
    const agentId = await s.freshAgent();
    const products = await s.post('products/sync', {
      ...target(agentId),
      products: [sampleProduct(1)],
    });
    assert.equal(products.statusCode, 200, products.body);
    const [source] = await stored(agentId);
    assert.ok(source);

    assert.deepEqual(expectData(await sync(agentId, [sampleCoupon('A'), sampleCoupon('B')]), 200, ZStored), {
      stored: 2,
    });
    assert.deepEqual(expectData(await sync(agentId, [sampleCoupon('C')]), 200, ZStored), { stored: 1 });
    assert.deepEqual(await stored(agentId), [{ id: source.id, coupons: [sampleCoupon('C')] }]);
    // The products stay untouched by coupon syncs.
    const docs = await s.t.database.db
      .selectFrom('documents')
      .select('source_id')
      .where('agent_id', '=', agentId)
      .execute();
    assert.deepEqual(docs, [{ source_id: source.id }]);
  });

  test('the same list twice gives the same state; order and verbatim codes kept', async () => {
    const agentId = await s.freshAgent();
    const list = [sampleCoupon('zeta-20'), sampleCoupon('Alpha_5'), sampleCoupon('ÉTÉ2026')];
    assert.deepEqual(expectData(await sync(agentId, list), 200, ZStored), { stored: 3 });
    const once = await snapshot(s.t);
    assert.deepEqual(expectData(await sync(agentId, list), 200, ZStored), { stored: 3 });
    const twice = await snapshot(s.t);
    const strip = (state: typeof once) => ({
      ...state,
      sources: state.sources.map((row) => ({ ...row, updated_at: null, last_synced_at: null })),
    });
    assert.deepEqual(strip(twice), strip(once));
    const source = once.sources.find((row) => row.agent_id === agentId);
    assert.ok(source);
    assert.deepEqual(await stored(agentId), [{ id: source.id, coupons: list }]);
  });

  test('an empty list clears the stored coupons', async () => {
    const agentId = await s.freshAgent();
    await sync(agentId, [sampleCoupon('SAVE10')]);
    assert.deepEqual(expectData(await sync(agentId, []), 200, ZStored), { stored: 0 });
    const [source] = await stored(agentId);
    assert.deepEqual(source?.coupons, []);
  });

  test('an invalid coupon → 422 naming it; the previous list stays', async () => {
    const agentId = await s.freshAgent();
    await sync(agentId, [sampleCoupon('KEEP')]);
    const before = await snapshot(s.t);
    const cases: Array<[Json, string]> = [
      [without(sampleCoupon('X'), 'code'), 'coupons.1.code'],
      [sampleCoupon('   '), 'coupons.1.code'],
      [sampleCoupon('X', { expires_at: '2026-12-31' }), 'coupons.1.expires_at'],
      [sampleCoupon('X', { expires_at: 'next week' }), 'coupons.1.expires_at'],
      [sampleCoupon('X', { expires_at: '2026-12-31T23:59:59' }), 'coupons.1.expires_at'],
      [sampleCoupon('X', { discount: 10 }), 'coupons.1.discount'],
    ];
    for (const [bad, field] of cases) {
      expectValidation(await sync(agentId, [sampleCoupon('NEW'), bad]), [field]);
    }
    expectValidation(await s.post('coupons/sync', target(agentId)), ['coupons']);
    assert.deepEqual(await snapshot(s.t), before);
    assert.deepEqual((await stored(agentId))[0]?.coupons, [sampleCoupon('KEEP')]);
  });

  test('unknown or foreign agent → 404; nothing stored', async () => {
    const foreign = await createSite(s.t, {}, 'Foreign');
    const before = await snapshot(s.t);
    for (const agentId of ['01UNKNOWNAGENT00000000000', foreign.agentId]) {
      expectError(await sync(agentId, [sampleCoupon('X')]), 404, 'not_found');
    }
    assert.deepEqual(await snapshot(s.t), before);
  });
});
