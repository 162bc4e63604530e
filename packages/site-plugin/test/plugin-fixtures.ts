import { signRequest } from '@service/contract';
import type { PluginRequest } from '../src/plugin.js';
import type { SiteLead, SiteOrder, SiteStore } from '../src/site-store.js';

// Test helpers for the plugin routes: a tiny SiteStore on arrays, a clock tests move by hand,
// and signed requests (signed with the service's own signer, so every test is also interop).

/** The shopper_signing_secret the tests' sites store. */
export const SECRET = 'svc_shopper_secret_for_tests_0123456789';
/** The default plugin prefix. */
export const PREFIX = '/wp-json/service/v1/';
/** The tests' start time. */
export const T0 = new Date('2026-11-02T10:00:00Z');

/** A clock a test moves by hand. */
export type TestClock = { now: () => Date; seconds: () => number; advance(seconds: number): void };

/** A clock starting at `start` that only moves when told. */
export function createClock(start: Date = T0): TestClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    seconds: () => Math.floor(current / 1000),
    advance(seconds) {
      current += seconds * 1000;
    },
  };
}

/** A cart of the test site: the codes applied to it. */
export type TestCart = { id: string; coupons: string[] };

/** The test site's store, with its data open for tests to set and read. */
export type TestStore = SiteStore<TestCart> & {
  commerceActive: boolean;
  orders: { wpUserId: number; order: SiteOrder }[];
  /** Customers by lower-cased email. */
  customers: Map<string, { id: number; lead: SiteLead }>;
  coupons: Set<string>;
  /** Codes the site refuses at apply time (expired, used up). */
  refused: Set<string>;
  /** When set, findOrders ignores its query and returns every order (a careless store). */
  ignoresQuery: boolean;
  /** When set, every method throws this. */
  failure: Error | null;
  findOrdersCalls: { wpUserId: number; limit: number; orderNumber?: string }[];
};

/** A store on arrays in memory. */
export function createTestStore(): TestStore {
  let nextUserId = 100;
  const store: TestStore = {
    commerceActive: true,
    orders: [],
    customers: new Map(),
    coupons: new Set(['WELCOME10']),
    refused: new Set(),
    ignoresQuery: false,
    failure: null,
    findOrdersCalls: [],
    isCommerceActive() {
      if (store.failure) throw store.failure;
      return store.commerceActive;
    },
    async findOrders(query) {
      if (store.failure) throw store.failure;
      store.findOrdersCalls.push(query);
      if (store.ignoresQuery) return store.orders.map((entry) => entry.order);
      return store.orders
        .filter((entry) => entry.wpUserId === query.wpUserId)
        .map((entry) => entry.order)
        .filter((order) => query.orderNumber === undefined || order.number === query.orderNumber)
        .slice(0, query.limit);
    },
    async upsertCustomer(lead) {
      if (store.failure) throw store.failure;
      const email = lead.email.trim().toLowerCase();
      const existing = store.customers.get(email);
      if (existing) {
        existing.lead = lead;
        return existing.id;
      }
      nextUserId += 1;
      store.customers.set(email, { id: nextUserId, lead });
      return nextUserId;
    },
    async couponExists(code) {
      if (store.failure) throw store.failure;
      return store.coupons.has(code);
    },
    async applyCoupon(cart, code) {
      if (store.failure) throw store.failure;
      if (store.refused.has(code)) return false;
      cart.coupons.push(code);
      return true;
    },
    async listPosts() {
      return [];
    },
    async listProducts() {
      return [];
    },
    async listCoupons() {
      return [];
    },
  };
  return store;
}

/** A valid site order numbered `id`; `overrides` may change any field. */
export function siteOrder(id: number, overrides: Partial<SiteOrder> = {}): SiteOrder {
  return {
    id,
    number: String(id),
    status: 'processing',
    total: '59.80',
    currency: 'EUR',
    createdAt: new Date('2026-10-01T07:30:00Z'),
    items: [{ name: 'Trail Shoe', qty: 2, sku: 'SKU-1', total: '59.80' }],
    orderUrl: `https://shop.example.com/my-account/view-order/${id}/`,
    ...overrides,
  };
}

/** Options of {@link signedRequest}. */
export type SignedRequestOptions = {
  /** The route below the prefix, e.g. `orders/lookup`. */
  route: string;
  /** A value to send as JSON, or the raw text. */
  body: unknown;
  /** Unix seconds the signature claims. */
  timestamp: number;
  secret?: string;
  method?: string;
  /** Replaces the header; null leaves it out. */
  header?: string | null;
};

/** A POST under the prefix, signed by the service's signer (contract `signRequest`). */
export function signedRequest(options: SignedRequestOptions): PluginRequest {
  const body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const header =
    options.header === undefined
      ? signRequest(options.secret ?? SECRET, body, options.timestamp)
      : options.header;
  return {
    method: options.method ?? 'POST',
    path: `${PREFIX}${options.route}`,
    headers: header === null ? {} : { 'x-service-signature': header },
    body: new TextEncoder().encode(body),
  };
}

/** The JSON body of a plugin answer. */
export function bodyOf(response: { body: string } | null): unknown {
  if (response === null) throw new Error('expected an answer, got null');
  return JSON.parse(response.body);
}

/** The error code of a plugin error answer, or null when it is not one. */
export function errorCodeOf(response: { body: string } | null): string | null {
  const body = bodyOf(response);
  if (typeof body !== 'object' || body === null || !('error' in body)) return null;
  const error = body.error;
  if (typeof error !== 'object' || error === null || !('code' in error) || typeof error.code !== 'string')
    return null;
  return error.code;
}
