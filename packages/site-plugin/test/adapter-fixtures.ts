import { signRequest } from '@service/contract';
import { createSitePlugin } from '../src/plugin.js';
import { createClock, createTestStore, SECRET, siteOrder, type TestCart } from './plugin-fixtures.js';

// Shared by the adapter tests: one plugin with a small body cap, and the answers expected of it.

/** The body cap of the adapter tests' plugin. */
export const CAP = 256;
/** A valid order lookup body. */
export const LOOKUP_BODY = JSON.stringify({ wp_user_id: 7, limit: 5 });
/** A body over the cap. */
export const BIG_BODY = JSON.stringify({ wp_user_id: 7, padding: 'x'.repeat(CAP) });

/** A plugin over a store holding order 1001 for user 7, and a signer on the plugin's clock. */
export function setup() {
  const clock = createClock();
  const store = createTestStore();
  store.orders.push({ wpUserId: 7, order: siteOrder(1001) });
  const plugin = createSitePlugin<TestCart>({
    store,
    signingSecret: () => SECRET,
    now: clock.now,
    maxBodyBytes: CAP,
  });
  const sign = (body: string) => signRequest(SECRET, body, clock.seconds());
  return { plugin, sign };
}

/** The parsed body of a lookup answer, reduced to what the tests compare. */
export function summary(status: number, text: string, cacheControl: string | null | undefined) {
  const body: unknown = JSON.parse(text);
  return { status, body, cacheControl };
}

/** The answer to LOOKUP_BODY. */
export const EXPECTED_LOOKUP = {
  data: {
    count: 1,
    orders: [
      {
        id: 1001,
        number: '1001',
        status: 'processing',
        total: '59.80',
        currency: 'EUR',
        date_created: '2026-10-01T07:30:00+00:00',
        items: [{ name: 'Trail Shoe', qty: 2, sku: 'SKU-1', total: '59.80' }],
        tracking_url: '',
        order_url: 'https://shop.example.com/my-account/view-order/1001/',
      },
    ],
  },
};
/** The answer to an unsigned request. */
export const MISSING = { error: { code: 'missing_signature', message: 'The request signature is missing.' } };
/** The answer to a body over the cap. */
export const TOO_LARGE = {
  error: { code: 'payload_too_large', message: `The request body is larger than ${CAP} bytes.` },
};
