// The commerce paths of the plugin routes on a real WordPress with the WooCommerce stand-in
// (tests/woocommerce-stand-in/, a must-use plugin of exactly the WooCommerce functions the
// plugin calls; WooCommerce itself cannot be installed here): orders/lookup answers only the
// asked user's orders, cart/coupon refuses an unknown code with invalid_coupon, and a staged
// code is applied on the shopper's next page load (found by the svc_conversation cookie), once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../../../examples/demo-shop/test/support/loopback.js';
import { errorCode, pluginClient } from './support/plugin-calls.js';
import {
  connectPlugin,
  eventually,
  signingSecretOf,
  startWpService,
  type WpService,
} from './support/service.js';
import { startWordPress, type WordPress, wordpressMissing } from './support/wordpress.js';

const missing = wordpressMissing();

type Orders = {
  count: number;
  orders: Array<{ number: string; status: string; total: string }>;
  note?: string;
};

describe('commerce routes with the WooCommerce stand-in', { skip: missing ?? false }, () => {
  let wp: WordPress;
  let svc: WpService;
  let secret = '';
  let call: ReturnType<typeof pluginClient>;
  let rosa = 0;
  let tomas = 0;

  before(async () => {
    const port = await freePort();
    svc = await startWpService(port);
    wp = await startWordPress({ port, servicePort: svc.port, wooStandIn: true });
    call = pluginClient(wp, () => secret);
    secret = signingSecretOf(await connectPlugin(wp, svc));
    const ids = await wp.php<number[]>(`
      $rosa = wp_insert_user(['user_login' => 'rosa', 'user_email' => 'rosa@example.com', 'user_pass' => wp_generate_password(), 'role' => 'customer']);
      $tomas = wp_insert_user(['user_login' => 'tomas', 'user_email' => 'tomas@example.com', 'user_pass' => wp_generate_password(), 'role' => 'customer']);
      $item = [['name' => 'Ethiopia Yirgacheffe 250 g', 'qty' => 1, 'total' => '14.50', 'sku' => 'ETH-250']];
      foreach ([[1001, $rosa, '2026-10-01 09:00:00'], [1002, $tomas, '2026-10-02 09:00:00'], [1003, $rosa, '2026-10-03 09:00:00'], [1004, $rosa, '2026-10-04 09:00:00']] as [$n, $customer, $date]) {
        wc_stand_in_add_order(['id' => $n, 'number' => 'NW-' . $n, 'status' => 'processing', 'total' => '14.50',
          'currency' => 'EUR', 'date_created' => $date, 'customer_id' => $customer, 'items' => $item, 'meta' => []]);
      }
      wp_insert_post(['post_type' => 'shop_coupon', 'post_status' => 'publish', 'post_title' => 'WELCOME10',
        'post_excerpt' => '10% off a first order', 'meta_input' => ['coupon_amount' => '10', 'discount_type' => 'percent']]);
      return [$rosa, $tomas];
    `);
    rosa = ids[0] ?? 0;
    tomas = ids[1] ?? 0;
    assert.ok(rosa > 0 && tomas > 0, 'two customers');
  });
  after(async () => {
    await wp?.close();
    await svc?.close();
  });

  test("orders/lookup answers only that user's orders, newest first, within the limit", async () => {
    const all = await call('orders/lookup', { wp_user_id: rosa });
    assert.equal(all.status, 200, JSON.stringify(all.json));
    const data = all.json.data as Orders;
    assert.equal(data.note, undefined, 'no commerce_inactive note with WooCommerce active');
    assert.deepEqual(
      data.orders.map((order) => order.number),
      ['NW-1004', 'NW-1003', 'NW-1001'],
    );
    assert.equal(data.count, 3);

    const limited = (await call('orders/lookup', { wp_user_id: rosa, limit: 2 })).json.data as Orders;
    assert.deepEqual(
      limited.orders.map((order) => order.number),
      ['NW-1004', 'NW-1003'],
    );
    const one = (await call('orders/lookup', { wp_user_id: rosa, order_number: 'nw-1001' })).json
      .data as Orders;
    assert.deepEqual(
      one.orders.map((order) => order.number),
      ['NW-1001'],
    );
    // Another customer's order number asked for by Rosa's id: nothing.
    const other = (await call('orders/lookup', { wp_user_id: rosa, order_number: 'NW-1002' })).json
      .data as Orders;
    assert.deepEqual(other.orders, []);
    const tomasOrders = (await call('orders/lookup', { wp_user_id: tomas })).json.data as Orders;
    assert.deepEqual(
      tomasOrders.orders.map((order) => order.number),
      ['NW-1002'],
    );
    const nobody = (await call('orders/lookup', { wp_user_id: 999_999 })).json.data as Orders;
    assert.deepEqual(nobody, { orders: [], count: 0 });
  });

  test('orders/lookup by number finds an order older than the newest hundred', async () => {
    const busy = await wp.php<number>(`
      $id = wp_insert_user(['user_login' => 'busy', 'user_email' => 'busy@example.com', 'user_pass' => wp_generate_password(), 'role' => 'customer']);
      $item = [['name' => 'Filter papers', 'qty' => 1, 'total' => '4.00', 'sku' => 'FP-100']];
      for ($n = 0; $n < 130; $n++) {
        wc_stand_in_add_order(['id' => 5000 + $n, 'number' => 'BZ-' . (5000 + $n), 'status' => 'completed', 'total' => '4.00',
          'currency' => 'EUR', 'date_created' => gmdate('Y-m-d H:i:s', strtotime('2026-01-01') + $n * 3600),
          'customer_id' => $id, 'items' => $item, 'meta' => []]);
      }
      return $id;
    `);
    // BZ-5000 is the oldest of 130: on the second page of a hundred.
    const oldest = (await call('orders/lookup', { wp_user_id: busy, order_number: 'bz-5000' })).json
      .data as Orders;
    assert.deepEqual(
      oldest.orders.map((order) => order.number),
      ['BZ-5000'],
    );
    const newest = (await call('orders/lookup', { wp_user_id: busy, limit: 2 })).json.data as Orders;
    assert.deepEqual(
      newest.orders.map((order) => order.number),
      ['BZ-5129', 'BZ-5128'],
    );
  });

  test('a full sync sends the products and the coupons; a price change goes as a product delta', async () => {
    await wp.php(`
      foreach ([['Kenya Nyeri 250 g', 'KEN-250', '16.50'], ['Colombia Huila 250 g', 'COL-250', '13.90'], ['Hand grinder', 'GRN-01', '79.00']] as [$name, $sku, $price]) {
        wp_insert_post(['post_type' => 'product', 'post_status' => 'publish', 'post_title' => $name,
          'post_content' => $name . ': roasted in small batches.', 'meta_input' => ['_sku' => $sku, '_price' => $price,
          '_regular_price' => $price, '_stock_status' => 'instock']]);
      }
      return true;
    `);
    const started = await wp.php<Record<string, unknown>>('return ChatAgent\\SyncRunner::start();');
    assert.ok(started, 'the sync started');
    const done = await eventually(
      async () => {
        await wp.runCron();
        return wp.php<{ status: string }>('return ChatAgent\\SyncRunner::status();');
      },
      (status) => status.status === 'done' || status.status === 'failed',
      120_000,
    );
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.equal(await svc.documentCount('product'), 3);
    const db = svc.service.t.database.db;
    const products = await db
      .selectFrom('sources')
      .select(['config'])
      .where('agent_id', '=', svc.agentId)
      .where('type', '=', 'products')
      .executeTakeFirstOrThrow();
    const coupons = (products.config as { coupons?: Array<{ code: string }> }).coupons ?? [];
    assert.deepEqual(
      coupons.map((coupon) => coupon.code),
      ['WELCOME10'],
    );
    const agent = await db
      .selectFrom('agents')
      .select('site_type')
      .where('id', '=', svc.agentId)
      .executeTakeFirstOrThrow();
    assert.equal(agent.site_type, 'ecommerce', 'the first product switched the agent to ecommerce');

    // A price change is a product delta: the service re-indexes the product with its new price.
    await wp.php(`
      $id = (int) get_posts(['post_type' => 'product', 'title' => 'Kenya Nyeri 250 g', 'fields' => 'ids', 'numberposts' => 1])[0];
      update_post_meta($id, '_price', '18.00');
      update_post_meta($id, '_regular_price', '18.00');
      wp_update_post(['ID' => $id, 'post_content' => 'Kenya Nyeri 250 g: roasted in small batches, now priced 18.00.']);
      return $id;
    `);
    await svc.waitIndexed();
    const hits = await eventually(
      () => svc.search('Kenya Nyeri price'),
      (list) => list.some((hit) => hit.text.includes('18.00')),
      60_000,
    );
    assert.ok(
      hits.some((hit) => hit.text.includes('18.00')),
      JSON.stringify(hits),
    );
  });

  test('cart/coupon: an unknown code is invalid_coupon; a known one is staged and applied on the next page load, once', async () => {
    const conversation = '01JD0000000000000000000001';
    const unknown = await call('cart/coupon', { code: 'NOT-A-CODE', conversation_id: conversation });
    assert.equal(unknown.status, 400, JSON.stringify(unknown.json));
    assert.equal(errorCode(unknown), 'invalid_coupon');

    const staged = await call('cart/coupon', { code: 'WELCOME10', conversation_id: conversation });
    assert.equal(staged.status, 200, JSON.stringify(staged.json));
    const data = staged.json.data as { applied: boolean; pending: boolean; message: string };
    assert.equal(data.applied, false);
    assert.equal(data.pending, true);
    assert.equal(typeof data.message, 'string');
    const applied = () => wp.option<Array<{ code: string; cookie: string }>>('wc_stand_in_applied_coupons');
    assert.equal(await applied(), false, 'nothing applied at staging');

    // A visitor of another conversation loads a page: nothing for them.
    await (
      await fetch(`${wp.url}/`, { headers: { cookie: 'svc_conversation=01JD0000000000000000000002' } })
    ).text();
    assert.equal(await applied(), false);

    const page = await fetch(`${wp.url}/`, { headers: { cookie: `svc_conversation=${conversation}` } });
    assert.equal(page.status, 200);
    await page.text();
    const first = await applied();
    assert.ok(first, 'the staged code was applied on the next page load');
    assert.deepEqual(
      first.map((entry) => entry.code.toUpperCase()),
      ['WELCOME10'],
    );
    assert.match(first[0]?.cookie ?? '', new RegExp(conversation));

    await (await fetch(`${wp.url}/`, { headers: { cookie: `svc_conversation=${conversation}` } })).text();
    assert.equal(((await applied()) || []).length, 1, 'a staged code is applied once');
  });

  test('the plugin left no PHP error, warning or notice in debug.log', async () => {
    assert.deepEqual(wp.pluginNotices(), []);
  });
});
