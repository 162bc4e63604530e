// Test helpers: a fake service for the injected fetch, and a client that talks to a running
// shop the way a browser and the service do (forms with Origin, plugin calls signed with the
// shopper_signing_secret). Everything stays on loopback.
import assert from 'node:assert/strict';
import { signRequest } from '@service/contract';
import type { DemoShop } from '../../src/index.js';

/** The shopper_signing_secret the tests give the shop (instead of a handshake's). */
export const SECRET = 'test-shopper-signing-secret';
/** A service address nothing listens on; the sync client only ever reaches the fake below. */
export const SERVICE_URL = 'http://127.0.0.1:9';
/** The tests' fixed clock. */
export const clock = Date.now();
/** `now` for the shop, on the fixed clock. */
export const now = () => new Date(clock);

/** Reads `value.a.b…`, or undefined. */
export function at(value: unknown, ...path: Array<string | number>): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = Reflect.get(current, key);
  }
  return current;
}

/** What the fake service does (`mode`) and which routes it answered, with their item counts. */
export type FakeServiceState = {
  mode: 'down' | 'unauthorized' | 'ok';
  calls: Array<{ path: string; items: number }>;
};

/** A fake service: unreachable, refusing the token, or answering the sync routes. */
export function createFakeService() {
  const state: FakeServiceState = { mode: 'down', calls: [] };
  const agent = (id: string, isPublished: boolean) => ({
    id,
    name: id,
    site_type: 'generic',
    language_default: 'en',
    is_published: isPublished,
  });
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const path = new URL(url).pathname;
    if (state.mode === 'down') throw new TypeError('fetch failed');
    if (state.mode === 'unauthorized') {
      return Response.json(
        { message: 'Unauthenticated.', code: 'unauthenticated', errors: {} },
        { status: 401 },
      );
    }
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    const list = ['posts', 'products', 'coupons'].map((key) => at(body, key)).find(Array.isArray);
    const items = Array.isArray(list) ? list.length : 0;
    state.calls.push({ path, items });
    if (path === '/api/v1/wp/handshake') {
      return Response.json({
        data: {
          workspace: { id: 'ws_1', name: 'Demo (sample data)' },
          agents: [agent('agt_draft', false), agent('agt_test', true)],
          token: {
            id: 'tok_1',
            name: 'Demo shop',
            abilities: ['wp:integration'],
            shopper_signing_secret: SECRET,
          },
          recommended_site_type: 'ecommerce',
          echo: { site_url: 'http://127.0.0.1', plugin_version: '0.1.0' },
        },
      });
    }
    if (path === '/api/v1/wp/coupons/sync') return Response.json({ data: { stored: items } });
    return Response.json({ data: { queued: items, skipped_unchanged: 0, deleted: 0 } });
  };
  return { state, fetch: fetchImpl };
}

/** Talks to a running shop like a browser (pages, forms) and like the service (signed plugin calls). */
export function shopClient(shop: () => DemoShop) {
  return {
    /** POSTs to a plugin route as the service does: JSON, signed with the shopper_signing_secret. */
    async callPlugin(route: string, payload: unknown, options: { sign?: boolean } = {}) {
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (options.sign !== false)
        headers['x-service-signature'] = signRequest(SECRET, body, Math.floor(clock / 1000));
      const res = await fetch(`${shop().url}/wp-json/service/v1/${route}`, { method: 'POST', headers, body });
      const json: unknown = await res.json();
      return { status: res.status, json };
    },
    async get(path: string, cookie?: string) {
      const res = await fetch(`${shop().url}${path}`, {
        redirect: 'manual',
        headers: cookie ? { cookie } : {},
      });
      return { res, body: await res.text() };
    },
    /** A form post from the shop's own pages (Origin set to the shop's), unless `headers` say otherwise. */
    postForm(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
      return fetch(`${shop().url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: shop().origin, ...headers },
        body: new URLSearchParams(form).toString(),
      });
    },
  };
}

/** The `name=value` part of the session cookie a response sets. */
export function sessionCookieOf(res: Response): string {
  const cookie = res.headers.get('set-cookie')?.split(';')[0] ?? '';
  assert.match(cookie, /^shop_session=[\w-]{20,}$/);
  return cookie;
}
