// The shop on a data directory: seeded once, locked while open, and its KV table (sync state,
// staged coupons) kept across a restart.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { type DemoShop, startDemoShop } from '../src/index.js';
import { now, SECRET, SERVICE_URL, shopClient } from './support/harness.js';

it('keeps its data across restarts, seeds once and is locked while open', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'demo-shop-'));
  const options = {
    serviceUrl: SERVICE_URL,
    apiToken: 'svc_test_token',
    agentId: 'agt_test',
    port: 0,
    dataDir,
    seed: { posts: 4, products: 3 },
    syncOnStart: false,
    signingSecret: SECRET,
    now,
    log: () => {},
  };
  let shop: DemoShop | null = null;
  const client = shopClient(() => {
    assert.ok(shop);
    return shop;
  });
  try {
    shop = await startDemoShop(options);
    await assert.rejects(startDemoShop(options), /is in use by process/);
    const staged = await client.callPlugin('cart/coupon', {
      code: 'FREESHIP',
      conversation_id: 'conv_restart',
    });
    assert.equal(staged.status, 200);
    assert.equal((await client.get('/blog')).body.match(/class="card"/g)?.length, 4);
    await shop.close();

    shop = await startDemoShop(options);
    assert.equal((await shop.customers()).length, 3, 'seeded once');
    const cart = await client.get('/cart', 'svc_conversation=conv_restart');
    assert.match(
      cart.body,
      /Coupon FREESHIP from the chat was applied/,
      'the staged coupon survived the restart',
    );
  } finally {
    await shop?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
