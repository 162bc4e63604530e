import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ZOrdersLookupResult } from '@service/contract';
import { EXPECTED_LOOKUP } from '../test/adapter-fixtures.js';
import {
  bodyOf,
  createClock,
  createTestStore,
  errorCodeOf,
  SECRET,
  signedRequest,
  siteOrder,
  type TestCart,
} from '../test/plugin-fixtures.js';
import { formatIsoWithOffset, TRACKING_URL_META_KEYS } from './order-record.js';
import { createSitePlugin } from './plugin.js';

function setup() {
  const clock = createClock();
  const store = createTestStore();
  const plugin = createSitePlugin<TestCart>({ store, signingSecret: () => SECRET, now: clock.now });
  const call = async (route: string, body: unknown) => {
    const answer = await plugin.handle(signedRequest({ route, body, timestamp: clock.seconds() }));
    if (!answer) throw new Error('no answer');
    return { status: answer.status, body: bodyOf(answer), code: errorCodeOf(answer) };
  };
  return { store, plugin, call };
}

/** The `data` of an order lookup answer, checked against the contract. */
function lookupData(body: unknown) {
  assert.ok(typeof body === 'object' && body !== null && 'data' in body);
  return ZOrdersLookupResult.parse(body.data);
}

describe('orders/lookup', () => {
  it('answers 200 with no orders and note commerce_inactive when the shop is off', async () => {
    const { store, call } = setup();
    store.commerceActive = false;
    store.orders.push({ wpUserId: 7, order: siteOrder(1) });
    const answer = await call('orders/lookup', { wp_user_id: 7 });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { data: { orders: [], count: 0, note: 'commerce_inactive' } });
    assert.equal(store.findOrdersCalls.length, 0);
  });

  it('maps site orders to contract Order records', async () => {
    const { store, call } = setup();
    store.orders.push({ wpUserId: 7, order: siteOrder(1001) });
    const answer = await call('orders/lookup', { wp_user_id: 7 });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, EXPECTED_LOOKUP);
  });

  it('asks the store with the default limit 5, or the given limit and order number', async () => {
    const { store, call } = setup();
    await call('orders/lookup', { wp_user_id: 7 });
    await call('orders/lookup', { wp_user_id: 7, limit: 20, order_number: ' 1002 ' });
    assert.deepEqual(store.findOrdersCalls, [
      { wpUserId: 7, limit: 5 },
      { wpUserId: 7, limit: 20, orderNumber: '1002' },
    ]);
  });

  it('refuses limit 0 and 21 (max 20) with 400 naming the field', async () => {
    const { call } = setup();
    for (const limit of [0, 21]) {
      const answer = await call('orders/lookup', { wp_user_id: 7, limit });
      assert.equal(answer.status, 400);
      assert.equal(answer.code, 'rest_invalid_param');
      assert.match(JSON.stringify(answer.body), /limit/);
    }
    assert.equal((await call('orders/lookup', { wp_user_id: 7, limit: 20 })).status, 200);
  });

  it('filters by order_number and caps at limit even when the store ignores its query', async () => {
    const { store, call } = setup();
    store.ignoresQuery = true;
    for (let id = 1; id <= 8; id += 1) store.orders.push({ wpUserId: 7, order: siteOrder(id) });
    const capped = lookupData((await call('orders/lookup', { wp_user_id: 7, limit: 3 })).body);
    assert.deepEqual(
      capped.orders.map((order) => order.number),
      ['1', '2', '3'],
    );
    assert.equal(capped.count, 3);
    const one = lookupData((await call('orders/lookup', { wp_user_id: 7, order_number: '6' })).body);
    assert.deepEqual(
      one.orders.map((order) => order.number),
      ['6'],
    );
    const none = lookupData((await call('orders/lookup', { wp_user_id: 7, order_number: '99' })).body);
    assert.deepEqual(none, { orders: [], count: 0 });
    // Visitors type order numbers in any case.
    store.orders.push({ wpUserId: 7, order: siteOrder(9, { number: 'NW-1009' }) });
    const typed = lookupData((await call('orders/lookup', { wp_user_id: 7, order_number: 'nw-1009' })).body);
    assert.deepEqual(
      typed.orders.map((order) => order.number),
      ['NW-1009'],
    );
  });

  it('drops records that are not valid orders', async () => {
    const { store, call } = setup();
    store.orders.push(
      { wpUserId: 7, order: siteOrder(1, { total: 'about ten' }) },
      { wpUserId: 7, order: siteOrder(2, { createdAt: new Date(Number.NaN) }) },
      { wpUserId: 7, order: siteOrder(3, { orderUrl: 'javascript:alert(1)' }) },
      { wpUserId: 7, order: siteOrder(4, { items: [{ name: 'x', qty: 1.5, sku: 'S', total: '1.00' }] }) },
      { wpUserId: 7, order: siteOrder(5) },
    );
    const data = lookupData((await call('orders/lookup', { wp_user_id: 7 })).body);
    assert.deepEqual(
      data.orders.map((order) => order.id),
      [5],
    );
  });

  it('reads the tracking URL from each of the three keys, in order', async () => {
    assert.deepEqual(TRACKING_URL_META_KEYS, ['_tracking_url', '_shipment_tracking_url', 'tracking_url']);
    for (const key of TRACKING_URL_META_KEYS) {
      const { store, call } = setup();
      store.orders.push({
        wpUserId: 7,
        order: siteOrder(1, { meta: { [key]: `https://track.example/${key}` } }),
      });
      const data = lookupData((await call('orders/lookup', { wp_user_id: 7 })).body);
      assert.equal(data.orders[0]?.tracking_url, `https://track.example/${key}`, key);
    }
    const { store, call } = setup();
    const meta = {
      tracking_url: 'https://track.example/third',
      _shipment_tracking_url: 'http://track.example/second',
      _tracking_url: 'https://track.example/first',
    };
    store.orders.push({ wpUserId: 7, order: siteOrder(1, { meta }) });
    const data = lookupData((await call('orders/lookup', { wp_user_id: 7 })).body);
    assert.equal(data.orders[0]?.tracking_url, 'https://track.example/first');
  });

  it("gives '' when no key holds an http(s) URL, ignoring javascript:, data: and junk", async () => {
    const cases: Record<string, string | undefined>[] = [
      {},
      { other_key: 'https://track.example/x' },
      { _tracking_url: 'javascript:alert(document.cookie)' },
      { _tracking_url: 'data:text/html,<script>1</script>', _shipment_tracking_url: 'ftp://x.example/' },
      { tracking_url: '/relative/path', _tracking_url: '   ', _shipment_tracking_url: undefined },
    ];
    for (const meta of cases) {
      const { store, call } = setup();
      store.orders.push({ wpUserId: 7, order: siteOrder(1, { meta }) });
      const data = lookupData((await call('orders/lookup', { wp_user_id: 7 })).body);
      assert.equal(data.orders[0]?.tracking_url, '', JSON.stringify(meta));
    }
    const { store, call } = setup();
    store.orders.push({
      wpUserId: 7,
      order: siteOrder(1, {
        meta: { _tracking_url: 'javascript:alert(1)', tracking_url: 'https://ok.example/t' },
      }),
    });
    const data = lookupData((await call('orders/lookup', { wp_user_id: 7 })).body);
    assert.equal(data.orders[0]?.tracking_url, 'https://ok.example/t');
  });

  it('formats dates as ISO 8601 with an explicit offset', () => {
    assert.equal(formatIsoWithOffset(new Date('2026-03-04T05:06:07.891Z')), '2026-03-04T05:06:07+00:00');
  });

  it('refuses a bad body with 400 naming the field', async () => {
    const { call } = setup();
    const missing = await call('orders/lookup', { limit: 5 });
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body), /wp_user_id/);
    const extra = await call('orders/lookup', { wp_user_id: 7, admin: true });
    assert.equal(extra.code, 'rest_invalid_param');
    assert.match(JSON.stringify(extra.body), /admin/);
    const notObject = await call('orders/lookup', [1, 2]);
    assert.equal(notObject.code, 'rest_invalid_param');
  });
});

describe('leads', () => {
  const lead = {
    email: 'Ana@Example.com',
    name: 'Ana',
    phone: '+351 900 000 000',
    conversation_id: 'conv-1',
    service_lead_id: 'lead-1',
  };

  it('upserts the customer and answers its user id; the same email in other case is the same user', async () => {
    const { store, call } = setup();
    const first = await call('leads', lead);
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { data: { user_id: 101 } });
    const again = await call('leads', { ...lead, email: 'ANA@EXAMPLE.COM', service_lead_id: 'lead-2' });
    assert.deepEqual(again.body, { data: { user_id: 101 } });
    const other = await call('leads', { ...lead, email: 'bo@example.com' });
    assert.deepEqual(other.body, { data: { user_id: 102 } });
    assert.deepEqual(store.customers.get('ana@example.com')?.lead, {
      email: 'ANA@EXAMPLE.COM',
      name: 'Ana',
      phone: '+351 900 000 000',
      conversationId: 'conv-1',
      serviceLeadId: 'lead-2',
    });
  });

  it('refuses a lead without service_lead_id with 400 naming it', async () => {
    const { store, call } = setup();
    const { service_lead_id: _omitted, ...rest } = lead;
    const answer = await call('leads', rest);
    assert.equal(answer.status, 400);
    assert.equal(answer.code, 'rest_invalid_param');
    assert.match(JSON.stringify(answer.body), /service_lead_id/);
    assert.equal(store.customers.size, 0);
  });
});
