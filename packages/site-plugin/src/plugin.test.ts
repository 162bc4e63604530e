import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestCart } from '../test/plugin-fixtures.js';
import {
  bodyOf,
  createClock,
  createTestStore,
  errorCodeOf,
  PREFIX,
  SECRET,
  signedRequest,
} from '../test/plugin-fixtures.js';
import { createSitePlugin, type SitePluginOptions } from './plugin.js';

function setup(overrides: Partial<SitePluginOptions<TestCart>> = {}) {
  const clock = createClock();
  const store = createTestStore();
  const errors: unknown[] = [];
  const plugin = createSitePlugin<TestCart>({
    store,
    signingSecret: () => SECRET,
    now: clock.now,
    onError: (error) => errors.push(error),
    ...overrides,
  });
  return { clock, store, plugin, errors };
}

const LOOKUP = { wp_user_id: 7, limit: 5 };

describe('createSitePlugin: routing', () => {
  it('returns null for a path outside the prefix', async () => {
    const { plugin } = setup();
    assert.equal(plugin.prefix, PREFIX);
    const answer = await plugin.handle({ method: 'POST', path: '/cart', headers: {}, body: '' });
    assert.equal(answer, null);
    assert.equal(
      await plugin.handle({ method: 'POST', path: '/wp-json/service/v2/leads', headers: {}, body: '' }),
      null,
    );
  });

  it('answers 404 rest_no_route for an unknown route or a method other than POST', async () => {
    const { plugin, clock } = setup();
    const unknown = await plugin.handle(
      signedRequest({ route: 'orders', body: LOOKUP, timestamp: clock.seconds() }),
    );
    assert.equal(unknown?.status, 404);
    assert.equal(errorCodeOf(unknown), 'rest_no_route');
    const get = await plugin.handle(
      signedRequest({ route: 'orders/lookup', body: LOOKUP, timestamp: clock.seconds(), method: 'GET' }),
    );
    assert.equal(get?.status, 404);
    assert.equal(errorCodeOf(get), 'rest_no_route');
    const bare = await plugin.handle({ method: 'POST', path: '/wp-json/service/v1', headers: {}, body: '' });
    assert.equal(errorCodeOf(bare), 'rest_no_route');
  });

  it('accepts a query string and a trailing slash on a route', async () => {
    const { plugin, clock } = setup();
    const request = signedRequest({ route: 'orders/lookup/', body: LOOKUP, timestamp: clock.seconds() });
    const answer = await plugin.handle({ ...request, path: `${request.path}?lang=en` });
    assert.equal(answer?.status, 200);
  });

  it('uses a custom prefix, normalised to start and end with /', async () => {
    const { plugin, clock } = setup({ prefix: 'api/site' });
    assert.equal(plugin.prefix, '/api/site/');
    const request = signedRequest({ route: 'orders/lookup', body: LOOKUP, timestamp: clock.seconds() });
    assert.equal(await plugin.handle(request), null);
    const answer = await plugin.handle({ ...request, path: '/api/site/orders/lookup' });
    assert.equal(answer?.status, 200);
  });

  it('answers every time as no-store JSON in the plugin envelope', async () => {
    const { plugin, clock } = setup();
    const ok = await plugin.handle(
      signedRequest({ route: 'orders/lookup', body: LOOKUP, timestamp: clock.seconds() }),
    );
    const refused = await plugin.handle(
      signedRequest({ route: 'leads', body: {}, timestamp: 0, header: null }),
    );
    for (const answer of [ok, refused]) {
      assert.equal(answer?.headers['cache-control'], 'no-store');
      assert.match(answer?.headers['content-type'] ?? '', /^application\/json/);
    }
    assert.deepEqual(bodyOf(ok), { data: { orders: [], count: 0 } });
    assert.deepEqual(bodyOf(refused), {
      error: { code: 'missing_signature', message: 'The request signature is missing.' },
    });
  });

  it('refuses a body over maxBodyBytes with 413 in the envelope (n accepted, n + 1 refused)', async () => {
    const body = JSON.stringify(LOOKUP);
    const { plugin, clock } = setup({ maxBodyBytes: body.length });
    const fits = await plugin.handle(
      signedRequest({ route: 'orders/lookup', body, timestamp: clock.seconds() }),
    );
    assert.equal(fits?.status, 200);
    const over = await plugin.handle(
      signedRequest({ route: 'orders/lookup', body: `${body} `, timestamp: clock.seconds() }),
    );
    assert.equal(over?.status, 413);
    assert.equal(errorCodeOf(over), 'payload_too_large');
  });

  it('defaults the body cap to 64 KiB and refuses a nonsense cap at creation', () => {
    assert.equal(setup().plugin.maxBodyBytes, 65536);
    assert.throws(() =>
      createSitePlugin({ store: createTestStore(), signingSecret: () => SECRET, maxBodyBytes: 0 }),
    );
  });
});

describe('createSitePlugin: verification order', () => {
  it('1. no header (even with an empty secret) → 401 missing_signature', async () => {
    const { plugin, clock } = setup({ signingSecret: () => '' });
    for (const header of [null, '']) {
      const answer = await plugin.handle(
        signedRequest({ route: 'leads', body: 'not json', timestamp: clock.seconds(), header }),
      );
      assert.equal(answer?.status, 401);
      assert.equal(errorCodeOf(answer), 'missing_signature');
    }
  });

  it('2. a header but no stored secret (empty or null) → 401 plugin_unconfigured', async () => {
    for (const secret of ['', null]) {
      const { plugin, clock } = setup({ signingSecret: async () => secret });
      const answer = await plugin.handle(
        signedRequest({ route: 'leads', body: 'not json', timestamp: clock.seconds() }),
      );
      assert.equal(answer?.status, 401);
      assert.equal(errorCodeOf(answer), 'plugin_unconfigured');
    }
  });

  it('3. a signature that does not match the raw body → 401 signature_mismatch, before the body is parsed', async () => {
    const { plugin, clock } = setup();
    const request = signedRequest({ route: 'orders/lookup', body: LOOKUP, timestamp: clock.seconds() });
    const bytes = new Uint8Array(
      request.body instanceof Uint8Array ? request.body : new TextEncoder().encode(request.body),
    );
    bytes[bytes.length - 2] = (bytes[bytes.length - 2] ?? 0) + 1; // one byte of the limit: 5 → 6
    const answer = await plugin.handle({ ...request, body: bytes });
    assert.equal(answer?.status, 401);
    assert.equal(errorCodeOf(answer), 'signature_mismatch');
    const garbage = await plugin.handle(
      signedRequest({ route: 'leads', body: 'not json', timestamp: clock.seconds(), header: 'v1=zz' }),
    );
    assert.equal(errorCodeOf(garbage), 'signature_mismatch');
    const wrongKey = await plugin.handle(
      signedRequest({ route: 'orders/lookup', body: LOOKUP, timestamp: clock.seconds(), secret: 'another' }),
    );
    assert.equal(errorCodeOf(wrongKey), 'signature_mismatch');
  });

  it('4. a correct signature more than 300 s away → 401 signature_mismatch; 300 s is accepted, both ways', async () => {
    const { plugin, clock } = setup();
    const at = (offset: number) =>
      plugin.handle(
        signedRequest({ route: 'orders/lookup', body: LOOKUP, timestamp: clock.seconds() + offset }),
      );
    assert.equal((await at(-300))?.status, 200);
    assert.equal((await at(300))?.status, 200);
    for (const offset of [-301, 301, -86_400]) {
      const answer = await at(offset);
      assert.equal(answer?.status, 401);
      assert.equal(errorCodeOf(answer), 'signature_mismatch');
    }
  });

  it('only then parses the body: invalid JSON → 400 rest_invalid_param', async () => {
    const { plugin, clock } = setup();
    const answer = await plugin.handle(
      signedRequest({ route: 'leads', body: '{"email":', timestamp: clock.seconds() }),
    );
    assert.equal(answer?.status, 400);
    assert.equal(errorCodeOf(answer), 'rest_invalid_param');
  });

  it('reads the header case-insensitively and from a repeated header', async () => {
    const { plugin, clock } = setup();
    const request = signedRequest({ route: 'orders/lookup', body: LOOKUP, timestamp: clock.seconds() });
    const header = request.headers['x-service-signature'];
    assert.equal(typeof header, 'string');
    const upper = await plugin.handle({ ...request, headers: { 'X-Service-Signature': header } });
    assert.equal(upper?.status, 200);
    const repeated = await plugin.handle({
      ...request,
      headers: { 'x-service-signature': [String(header), String(header)] },
    });
    assert.equal(errorCodeOf(repeated), 'signature_mismatch');
  });
});

describe('createSitePlugin: store failures', () => {
  it('answers 500 internal_error without the error text, and tells onError', async () => {
    const { plugin, clock, store, errors } = setup();
    store.failure = new Error('SQLSTATE[HY000] secret dsn mysql://root:pw@db');
    for (const [route, body] of [
      ['orders/lookup', LOOKUP],
      ['leads', { email: 'a@b.co', name: '', phone: '', conversation_id: 'c1', service_lead_id: 'l1' }],
      ['cart/coupon', { code: 'WELCOME10', conversation_id: 'c1' }],
    ] as const) {
      const answer = await plugin.handle(signedRequest({ route, body, timestamp: clock.seconds() }));
      assert.equal(answer?.status, 500, route);
      assert.equal(errorCodeOf(answer), 'internal_error');
      assert.doesNotMatch(answer?.body ?? '', /SQLSTATE|mysql|pw@/);
    }
    assert.equal(errors.length, 3);
  });

  it('answers 500 when reading the secret throws, and when onError itself throws', async () => {
    const { plugin, clock } = setup({
      signingSecret: () => {
        throw new Error('vault down');
      },
      onError: () => {
        throw new Error('logger down');
      },
    });
    const answer = await plugin.handle(
      signedRequest({ route: 'leads', body: {}, timestamp: clock.seconds() }),
    );
    assert.equal(answer?.status, 500);
    assert.doesNotMatch(answer?.body ?? '', /vault|logger/);
  });

  it('answers 500 when upsertCustomer returns no user id', async () => {
    const { plugin, clock, store } = setup();
    store.upsertCustomer = async () => Number.NaN;
    const answer = await plugin.handle(
      signedRequest({
        route: 'leads',
        body: { email: 'a@b.co', name: '', phone: '', conversation_id: 'c1', service_lead_id: 'l1' },
        timestamp: clock.seconds(),
      }),
    );
    assert.equal(answer?.status, 500);
  });
});
