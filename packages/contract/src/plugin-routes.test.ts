import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ORDERS_LOOKUP_DEFAULT_LIMIT,
  ORDERS_LOOKUP_MAX_LIMIT,
  PLUGIN_ROUTE_SCHEMAS,
  PLUGIN_ROUTES,
  ZCartCouponRequest,
  ZLeadPushRequest,
  ZOrder,
  ZOrdersLookupRequest,
  ZOrdersLookupResult,
} from './plugin-routes.js';
import { ZWebhookCreate } from './webhook.js';

const order = {
  id: 101,
  number: '101',
  status: 'completed',
  total: '59.80',
  currency: 'EUR',
  date_created: '2026-10-01T09:30:00+02:00',
  items: [{ name: 'Trail Shoe', qty: 2, sku: 'SKU-1', total: '59.80' }],
  tracking_url: '',
  order_url: 'https://shop.example.com/my-account/view-order/101/',
};

describe('plugin route schemas (contract section B)', () => {
  test('every route has a request and a result schema', () => {
    assert.deepEqual(Object.keys(PLUGIN_ROUTE_SCHEMAS).sort(), [...PLUGIN_ROUTES].sort());
  });

  test('orders/lookup: limit defaults to 5 and is 1..20 at its edges', () => {
    assert.equal(ZOrdersLookupRequest.parse({ wp_user_id: 7 }).limit, ORDERS_LOOKUP_DEFAULT_LIMIT);
    assert.equal(
      ZOrdersLookupRequest.safeParse({ wp_user_id: 7, limit: ORDERS_LOOKUP_MAX_LIMIT }).success,
      true,
    );
    assert.equal(
      ZOrdersLookupRequest.safeParse({ wp_user_id: 7, limit: ORDERS_LOOKUP_MAX_LIMIT + 1 }).success,
      false,
    );
    assert.equal(ZOrdersLookupRequest.safeParse({ wp_user_id: 7, limit: 0 }).success, false);
    assert.equal(ZOrdersLookupRequest.safeParse({ wp_user_id: 0 }).success, false);
    assert.equal(ZOrdersLookupRequest.safeParse({ wp_user_id: 7, order_number: 'A-1' }).success, true);
    assert.equal(ZOrdersLookupRequest.safeParse({ wp_user_id: 7, extra: 1 }).success, false);
  });

  test('an order: contract fields, empty tracking_url allowed, +0000 offsets read, no offset refused', () => {
    assert.deepEqual(ZOrder.parse(order), order);
    assert.equal(
      ZOrder.parse({ ...order, date_created: '2026-10-01T09:30:00+0000' }).date_created,
      '2026-10-01T09:30:00+00:00',
    );
    for (const broken of [
      { date_created: '2026-10-01T09:30:00' },
      { total: '59,80' },
      { tracking_url: 'javascript:alert(1)' },
      { items: [{ name: 'x', qty: 1.5, sku: '', total: '1' }] },
    ]) {
      assert.equal(ZOrder.safeParse({ ...order, ...broken }).success, false, JSON.stringify(broken));
    }
  });

  test('a lookup result keeps its note and drops fields it does not know', () => {
    const parsed = ZOrdersLookupResult.parse({
      count: 0,
      orders: [],
      note: 'commerce_inactive',
      extra: true,
    });
    assert.deepEqual(parsed, { count: 0, orders: [], note: 'commerce_inactive' });
  });

  test('leads and cart/coupon requests carry exactly their contract fields', () => {
    const lead = { email: 'a@b.example', name: '', phone: '', conversation_id: 'c', service_lead_id: 'l' };
    assert.deepEqual(ZLeadPushRequest.parse(lead), lead);
    assert.equal(ZLeadPushRequest.safeParse({ ...lead, service_lead_id: '' }).success, false);
    assert.deepEqual(ZCartCouponRequest.parse({ code: ' SAVE10 ', conversation_id: 'c' }), {
      code: 'SAVE10',
      conversation_id: 'c',
    });
    assert.equal(ZCartCouponRequest.safeParse({ code: '', conversation_id: 'c' }).success, false);
  });
});

describe('ZWebhookCreate', () => {
  test('http(s) URLs and known events only; repeats collapse', () => {
    const parsed = ZWebhookCreate.parse({
      url: 'https://hooks.example.com/x',
      events: ['lead.captured', 'lead.captured'],
    });
    assert.deepEqual(parsed.events, ['lead.captured']);
    for (const body of [
      { url: 'ftp://hooks.example.com/x', events: ['lead.captured'] },
      { url: 'https://hooks.example.com/x', events: [] },
      { url: 'https://hooks.example.com/x', events: ['lead.deleted'] },
    ]) {
      assert.equal(ZWebhookCreate.safeParse(body).success, false, JSON.stringify(body));
    }
  });
});
