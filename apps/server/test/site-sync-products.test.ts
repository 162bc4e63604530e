import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ZAgent, ZChangeResult, ZSyncResult } from '@service/contract';
import { expectData, expectError, expectValidation } from './support/http.js';
import {
  chunksOf,
  createSite,
  documentsOf,
  hexHash,
  type Json,
  queuedJobs,
  range,
  runIndexJob,
  sampleProduct,
  siteSyncApp,
  siteTypeOf,
  snapshot,
  sourcesOf,
  without,
} from './support/site-sync.js';
import { injectJson } from './support/test-app.js';

describe('site integration: products', () => {
  const s = siteSyncApp();

  const sync = (agentId: string, products: unknown[]) => s.sync('products', agentId, products);
  const changed = (agentId: string, action: string, item: Json) =>
    s.changed('products', agentId, action, item);
  const counts = (queued: number, skipped: number) => ({
    queued,
    skipped_unchanged: skipped,
    deleted: 0,
    failed: 0,
    failures: [],
  });

  test('50 products accepted; 51 or none → 422; nothing stored for the rejected ones', async () => {
    const agentId = await s.freshAgent();
    const before = await snapshot(s.t);
    expectValidation(
      await sync(
        agentId,
        range(1, 51).map((id) => sampleProduct(id)),
      ),
      ['products'],
    );
    expectValidation(await sync(agentId, []), ['products']);
    assert.deepEqual(await snapshot(s.t), before);
    assert.equal(await siteTypeOf(s.t, agentId), 'generic', 'a rejected batch flips nothing');

    const res = await sync(
      agentId,
      range(1, 50).map((id) => sampleProduct(id)),
    );
    assert.deepEqual(expectData(res, 200, ZSyncResult), counts(50, 0));
    const docs = await documentsOf(s.t, agentId);
    assert.equal(docs.length, 50);
    assert.ok(docs.every((doc) => doc.kind === 'product' && doc.index_status === 'pending'));
    assert.equal((await queuedJobs(s.t)) - before.jobs, 50);
    const sources = await sourcesOf(s.t, agentId);
    assert.deepEqual(
      sources.map((source) => [source.type, source.site_url, source.plugin_base]),
      [['products', 'https://shop.example.com', 'https://shop.example.com/wp-json/service/v1/']],
    );
  });

  test('hash equal → skipped, different → queued; document text carries the product facts', async () => {
    const agentId = await s.freshAgent();
    const jobs = await queuedJobs(s.t);
    assert.deepEqual(expectData(await sync(agentId, [sampleProduct(1)]), 200, ZSyncResult), counts(1, 0));
    assert.deepEqual(expectData(await sync(agentId, [sampleProduct(1)]), 200, ZSyncResult), counts(0, 1));
    const [doc] = await documentsOf(s.t, agentId);
    assert.ok(doc);
    assert.equal(doc.title, 'Trail Shoe 1');
    assert.equal(doc.url, 'https://shop.example.com/product/trail-shoe-1');
    for (const fact of [
      'Trail Shoe 1',
      'Light trail runner.',
      'Grippy Vibram sole for wet rock.',
      'Shoes',
      'Running',
      'Size: 40, 41, 42',
      'Colour: Red',
      '89.90',
      'EUR',
      'instock',
    ]) {
      assert.ok(doc.content_text.includes(fact), `content_text lacks ${fact}: ${doc.content_text}`);
    }
    assert.doesNotMatch(doc.content_text, /<strong>|<p>/);

    const update = sampleProduct(1, {
      content_hash: hexHash('p1-v2'),
      price: '59.00',
      stock_status: 'outofstock',
    });
    assert.deepEqual(expectData(await sync(agentId, [update]), 200, ZSyncResult), counts(1, 0));
    const [after] = await documentsOf(s.t, agentId);
    assert.ok(after);
    assert.equal(after.id, doc.id);
    assert.match(after.content_text, /59\.00/);
    assert.match(after.content_text, /outofstock/);
    assert.doesNotMatch(after.content_text, /89\.90/);
    assert.equal((await queuedJobs(s.t)) - jobs, 1);
  });

  test('invalid product among 50 → 422 naming it; whole batch rejected, no flip', async () => {
    const agentId = await s.freshAgent();
    const before = await snapshot(s.t);
    const cases: Array<[Json, string]> = [
      [sampleProduct(9, { permalink: 'shop/p' }), 'products.8.permalink'],
      [sampleProduct(9, { price: '12,50' }), 'products.8.price'],
      [sampleProduct(9, { on_sale: 'yes' }), 'products.8.on_sale'],
      [sampleProduct(9, { modified_at: '2026-11-01 10:00' }), 'products.8.modified_at'],
      [without(sampleProduct(9), 'stock_status'), 'products.8.stock_status'],
      [without(sampleProduct(9), 'name'), 'products.8.name'],
    ];
    for (const [bad, field] of cases) {
      const products = range(1, 50).map((id) => (id === 9 ? bad : sampleProduct(id)));
      expectValidation(await sync(agentId, products), [field]);
    }
    assert.deepEqual(await snapshot(s.t), before);
  });

  test('the first product upsert makes a generic agent ecommerce, silently', async () => {
    const viaSync = await s.freshAgent();
    assert.deepEqual(expectData(await sync(viaSync, [sampleProduct(1)]), 200, ZSyncResult), counts(1, 0));
    assert.equal(await siteTypeOf(s.t, viaSync), 'ecommerce');

    const viaChanged = await s.freshAgent();
    const res = await changed(viaChanged, 'upsert', { product: sampleProduct(1) });
    assert.deepEqual(expectData(res, 200, ZChangeResult), {
      action: 'upsert',
      result: 'queued',
      ...counts(1, 0),
    });
    assert.equal(await siteTypeOf(s.t, viaChanged), 'ecommerce');
  });

  test('an agent already ecommerce stays; a product delete never flips', async () => {
    const shop = await s.freshAgent({ site_type: 'ecommerce' });
    await sync(shop, [sampleProduct(1)]);
    assert.equal(await siteTypeOf(s.t, shop), 'ecommerce');

    const generic = await s.freshAgent();
    const res = await changed(generic, 'delete', { product: { wp_id: 1 } });
    assert.equal(expectData(res, 200, ZChangeResult).result, 'not_found');
    assert.equal(await siteTypeOf(s.t, generic), 'generic');
  });

  test('only the first product flips: an operator’s later generic is kept', async () => {
    const agentId = await s.freshAgent();
    await sync(agentId, [sampleProduct(1)]);
    assert.equal(await siteTypeOf(s.t, agentId), 'ecommerce');
    const patch = await injectJson(
      s.t.app,
      'PATCH',
      `/api/v1/admin/agents/${agentId}`,
      { site_type: 'generic' },
      s.site.tenant.auth,
    );
    assert.equal(expectData(patch, 200, ZAgent).site_type, 'generic');

    // New and changed products, through both routes: the operator's choice stands.
    await sync(agentId, [sampleProduct(2), sampleProduct(1, { content_hash: hexHash('v2') })]);
    await changed(agentId, 'upsert', { products: [sampleProduct(3)] });
    assert.equal(await siteTypeOf(s.t, agentId), 'generic');
    assert.equal((await documentsOf(s.t, agentId)).length, 3);
  });

  test('products/changed: singular or list upsert, exactly one item, delete known/unknown', async () => {
    const agentId = await s.freshAgent();
    const before = await snapshot(s.t);
    for (const body of [{}, { products: [] }, { products: [sampleProduct(1), sampleProduct(2)] }]) {
      expectValidation(await changed(agentId, 'upsert', body), ['products']);
    }
    expectValidation(await changed(agentId, 'upsert', { product: sampleProduct(1), products: [] }), [
      'products',
    ]);
    expectValidation(await changed(agentId, 'upsert', { product: sampleProduct(1, { price: 'x' }) }), [
      'product.price',
    ]);
    assert.deepEqual(await snapshot(s.t), before);

    await changed(agentId, 'upsert', { products: [sampleProduct(4)] });
    const [doc] = await documentsOf(s.t, agentId);
    assert.ok(doc);
    await runIndexJob(s.t, doc.id);
    assert.ok((await chunksOf(s.t, doc.id)).length > 0);
    const deleted = await changed(agentId, 'delete', { products: [{ wp_id: 4 }] });
    assert.deepEqual(expectData(deleted, 200, ZChangeResult), {
      action: 'delete',
      result: 'deleted',
      queued: 0,
      skipped_unchanged: 0,
      deleted: 1,
      failed: 0,
      failures: [],
    });
    assert.deepEqual(await documentsOf(s.t, agentId), []);
    assert.deepEqual(await chunksOf(s.t, doc.id), []);
    const unknown = await changed(agentId, 'delete', { product: { wp_id: 4 } });
    assert.equal(expectData(unknown, 200, ZChangeResult).result, 'not_found');
  });

  test('unknown or foreign agent → 404; nothing stored and no flip', async () => {
    const foreign = await createSite(s.t, {}, 'Foreign');
    const before = await snapshot(s.t);
    for (const agentId of ['01UNKNOWNAGENT00000000000', foreign.agentId]) {
      expectError(await sync(agentId, [sampleProduct(1)]), 404, 'not_found');
      expectError(await changed(agentId, 'upsert', { product: sampleProduct(1) }), 404, 'not_found');
    }
    assert.deepEqual(await snapshot(s.t), before);
    assert.equal(await siteTypeOf(s.t, foreign.agentId), 'generic');
  });
});
