import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ZCouponsSync, ZPostsChanged, ZProductsChanged } from '@service/contract';
import { postContentHash, productContentHash } from '../src/content-hash.js';
import { createSyncClient } from '../src/sync-client.js';
import {
  AGENT_ID,
  type FakeService,
  makePost,
  makeProduct,
  requestsTo,
  SITE_URL,
  TEST_TOKEN,
  useFakeService,
} from './sync-fake-service.js';

let fake: FakeService;
useFakeService((service) => {
  fake = service;
});

const sync = () =>
  createSyncClient({ serviceUrl: fake.url, apiToken: TEST_TOKEN, siteUrl: SITE_URL, pluginVersion: '1.4.0' });

describe('deltas', () => {
  it('post upsert sends posts: [record with content_hash], signed, and returns the parsed result', async () => {
    const post = makePost(42);
    const result = await sync().postChanged({ agentId: AGENT_ID, action: 'upsert', post });
    assert.deepEqual(result, {
      queued: 1,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 0,
      failures: [],
      action: 'upsert',
      result: 'queued',
    });
    const [request] = requestsTo(fake, 'posts/changed');
    assert.equal(request?.signature, 'ok');
    assert.deepEqual(request?.json, {
      agent_id: AGENT_ID,
      site_url: SITE_URL,
      plugin_version: '1.4.0',
      action: 'upsert',
      posts: [{ ...post, content_hash: await postContentHash(post) }],
    });
    const parsed = ZPostsChanged.parse(request?.json);
    assert.equal(parsed.change.action, 'upsert');

    const same = await sync().postChanged({ agentId: AGENT_ID, action: 'upsert', post });
    assert.equal(same.result, 'skipped_unchanged');
  });

  it('post delete sends posts: [{wp_id}] only; deleting twice is not_found, still a success', async () => {
    await sync().postChanged({ agentId: AGENT_ID, action: 'upsert', post: makePost(43) });
    const deleted = await sync().postChanged({ agentId: AGENT_ID, action: 'delete', wpId: 43 });
    assert.equal(deleted.result, 'deleted');
    assert.equal(deleted.deleted, 1);
    const request = requestsTo(fake, 'posts/changed').at(-1);
    assert.deepEqual(request?.json, {
      agent_id: AGENT_ID,
      site_url: SITE_URL,
      plugin_version: '1.4.0',
      action: 'delete',
      posts: [{ wp_id: 43 }],
    });
    const again = await sync().postChanged({ agentId: AGENT_ID, action: 'delete', wpId: 43 });
    assert.equal(again.result, 'not_found');
  });

  it('product upsert and delete use products: [...] with the configured hash', async () => {
    const product = makeProduct(5);
    const client = createSyncClient({
      serviceUrl: fake.url,
      apiToken: TEST_TOKEN,
      siteUrl: SITE_URL,
      pluginVersion: '1.4.0',
      productHash: { includePriceAndStock: false },
    });
    const upsert = await client.productChanged({ agentId: AGENT_ID, action: 'upsert', product });
    assert.equal(upsert.result, 'queued');
    const [request] = requestsTo(fake, 'products/changed');
    assert.equal(request?.signature, 'ok');
    const parsed = ZProductsChanged.parse(request?.json);
    assert.equal(parsed.change.action, 'upsert');
    if (parsed.change.action === 'upsert')
      assert.equal(
        parsed.change.item.content_hash,
        await productContentHash(product, { includePriceAndStock: false }),
      );

    const repriced = await client.productChanged({
      agentId: AGENT_ID,
      action: 'upsert',
      product: { ...product, price: '1.00' },
    });
    assert.equal(repriced.result, 'skipped_unchanged');

    const deleted = await client.productChanged({ agentId: AGENT_ID, action: 'delete', wpId: 5 });
    assert.equal(deleted.result, 'deleted');
    const deleteRequest = requestsTo(fake, 'products/changed').at(-1);
    assert.deepEqual(
      deleteRequest?.json && typeof deleteRequest.json === 'object' && 'products' in deleteRequest.json
        ? deleteRequest.json.products
        : null,
      [{ wp_id: 5 }],
    );
  });
});

describe('coupons', () => {
  it('posts the whole list, signed, and returns how many are stored; an empty list clears it', async () => {
    const coupons = [
      {
        code: 'WELCOME10',
        label: '10% off your first order',
        discount: '10%',
        expires_at: '2026-12-31T23:59:59+00:00',
      },
      { code: 'SHIPFREE', label: 'Free shipping', discount: '0', expires_at: null },
    ];
    assert.deepEqual(await sync().syncCoupons({ agentId: AGENT_ID, coupons }), { stored: 2 });
    const [request] = requestsTo(fake, 'coupons/sync');
    assert.equal(request?.signature, 'ok');
    assert.deepEqual(ZCouponsSync.parse(request?.json).coupons, coupons);
    assert.deepEqual(fake.coupons, coupons);

    assert.deepEqual(await sync().syncCoupons({ agentId: AGENT_ID, coupons: [] }), { stored: 0 });
    assert.deepEqual(fake.coupons, []);
  });
});
