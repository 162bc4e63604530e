import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWidgetAnswer } from '@service/contract';
import { type FakeLlm, startFakeLlm } from './support/fake-llm.js';
import { expectData } from './support/http.js';
import { createSite, PLUGIN_VERSION, sampleCoupon, sampleProduct, wpPost } from './support/site-sync.js';
import { indexSource } from './support/sources.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { initSession, ORIGIN, widgetCall } from './support/widget.js';

// Blocks after an answer: product cards for the synced products it cites, coupon cards for the
// synced codes it names (never an unknown code), and suggestions.
describe('answer blocks', () => {
  let t: TestApp;
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm();
    t = await createTestApp({
      env: { LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.openAiBaseUrl, LLM_API_KEY: 'k' },
    });
  });
  after(async () => {
    await t.close();
    await llm.close();
  });

  /** A commerce agent whose site synced two products (indexed) and one coupon. */
  async function shop(coupons = [sampleCoupon('SAVE10', { expires_at: null })]) {
    const site = await createSite(t, { is_published: true, allowed_origins: [ORIGIN] });
    const target = { agent_id: site.agentId, site_url: ORIGIN, plugin_version: PLUGIN_VERSION };
    const products = [
      sampleProduct(1, {
        name: 'Trail Shoe Alpine',
        description: '<p>Waterproof alpine trail shoe with a Vibram sole.</p>',
      }),
      sampleProduct(2, {
        name: 'Road Shoe Swift',
        description: '<p>Light road running shoe for tarmac.</p>',
        stock_status: 'outofstock',
        on_sale: false,
      }),
    ];
    assert.equal((await wpPost(t, 'products/sync', site.token, { ...target, products })).statusCode, 200);
    assert.equal((await wpPost(t, 'coupons/sync', site.token, { ...target, coupons })).statusCode, 200);
    const source = await t.database.db
      .selectFrom('sources')
      .select('id')
      .where('agent_id', '=', site.agentId)
      .where('type', '=', 'products')
      .executeTakeFirstOrThrow();
    await indexSource(t, source.id);
    return site;
  }

  test('a cited product becomes a card; only a synced code becomes a coupon card', async () => {
    const site = await shop();
    const session = await initSession(t, site.agentId);
    assert.equal(session.agent.features.coupons, true);
    llm.setScript([
      { kind: 'text', chunks: ['The Trail Shoe Alpine [1] is waterproof. ', 'Use SAVE10, not FAKE50.'] },
    ]);
    const answer = expectData(
      await widgetCall(t, 'POST', '/v1/widget/messages', session.token, {
        message: 'Which waterproof alpine trail shoe do you have?',
      }),
      200,
      ZWidgetAnswer,
    );
    const cited = answer.citations.map((c) => c.title);
    assert.deepEqual(cited, ['Trail Shoe Alpine']);
    const products = answer.blocks.filter((b) => b.type === 'product');
    assert.equal(products.length, 1);
    assert.equal(products[0]?.payload.name, 'Trail Shoe Alpine');
    assert.equal(products[0]?.payload.price, '89.90');
    assert.equal(products[0]?.payload.currency, 'EUR');
    assert.equal(products[0]?.payload.in_stock, true);
    assert.match(String(products[0]?.payload.url), /trail-shoe-1$/);
    const coupons = answer.blocks.filter((b) => b.type === 'coupon');
    assert.deepEqual(
      coupons.map((b) => b.payload.code),
      ['SAVE10'],
      'FAKE50 was never synced',
    );
    assert.equal(coupons[0]?.payload.summary, '10% off', 'the card says what the code does');
    const system = JSON.stringify(llm.requests.at(-1)?.body.messages);
    assert.match(system, /SAVE10/, 'synced codes are given to the model verbatim');
    const stored = await t.database.db
      .selectFrom('messages')
      .select('blocks')
      .where('id', '=', answer.message_id ?? '')
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      stored.blocks.map((b) => b.type),
      answer.blocks.map((b) => b.type),
      'history replays the blocks',
    );
  });

  test('a free-shipping amount is spelled out in the shop currency, in the visitor language', async () => {
    const site = await shop([
      sampleCoupon('FREESHIP', { label: 'Free shipping on any order', discount: '4.90', expires_at: null }),
    ]);
    for (const [locale, summary] of [
      ['en', 'Free shipping, saves €4.90'],
      ['de', 'Kostenloser Versand, spart 4,90 €'],
    ] as const) {
      const session = await initSession(t, site.agentId, { locale });
      llm.setScript([{ kind: 'text', chunks: ['Use FREESHIP for the Trail Shoe Alpine [1].'] }]);
      const answer = expectData(
        await widgetCall(t, 'POST', '/v1/widget/messages', session.token, {
          message: 'Is shipping free for the alpine trail shoe?',
        }),
        200,
        ZWidgetAnswer,
      );
      const coupon = answer.blocks.find((b) => b.type === 'coupon');
      assert.equal(String(coupon?.payload.summary).replace(/[\u00a0\u202f]/g, ' '), summary);
    }
  });

  test('an expired coupon is neither offered to the model nor shown', async () => {
    const site = await shop([sampleCoupon('OLD5', { expires_at: '2020-01-01T00:00:00+00:00' })]);
    const session = await initSession(t, site.agentId);
    assert.equal(session.agent.features.coupons, false, 'no live coupon: no Apply button');
    llm.setScript([{ kind: 'text', chunks: ['Try OLD5.'] }]);
    const answer = expectData(
      await widgetCall(t, 'POST', '/v1/widget/messages', session.token, { message: 'Any discount code?' }),
      200,
      ZWidgetAnswer,
    );
    assert.deepEqual(
      answer.blocks.filter((b) => b.type === 'coupon'),
      [],
    );
    assert.doesNotMatch(JSON.stringify(llm.requests.at(-1)?.body.messages), /OLD5/);
  });
});
