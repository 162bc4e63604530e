import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { fastifyPlugin } from '../src/adapters/fastify.js';
import { fetchHandler } from '../src/adapters/fetch.js';
import {
  BIG_BODY,
  CAP,
  EXPECTED_LOOKUP,
  LOOKUP_BODY,
  MISSING,
  setup,
  summary,
  TOO_LARGE,
} from './adapter-fixtures.js';
import { errorCodeOf, PREFIX } from './plugin-fixtures.js';

// fastifyPlugin (through inject) and fetchHandler (with Request objects), end to end.

describe('fastifyPlugin', () => {
  it('answers a signed lookup, refuses an unsigned one, caps the body, and leaves other routes alone', async () => {
    const { plugin, sign } = setup();
    const app = Fastify();
    await app.register(fastifyPlugin(plugin));
    app.post('/api/echo', async (request) => ({ echoed: request.body }));
    const url = `${PREFIX}orders/lookup`;
    const headers = { 'content-type': 'application/json' };
    const ok = await app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'x-service-signature': sign(LOOKUP_BODY) },
      payload: LOOKUP_BODY,
    });
    assert.deepEqual(summary(ok.statusCode, ok.body, ok.headers['cache-control']?.toString()), {
      status: 200,
      body: EXPECTED_LOOKUP,
      cacheControl: 'no-store',
    });
    const unsigned = await app.inject({ method: 'POST', url, headers, payload: LOOKUP_BODY });
    assert.equal(unsigned.statusCode, 401);
    assert.deepEqual(JSON.parse(unsigned.body), MISSING);
    const big = await app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'x-service-signature': sign(BIG_BODY) },
      payload: BIG_BODY,
    });
    assert.equal(big.statusCode, 413);
    assert.deepEqual(JSON.parse(big.body), TOO_LARGE);
    const unknown = await app.inject({ method: 'POST', url: `${PREFIX}nope`, headers, payload: '{}' });
    assert.equal(errorCodeOf(unknown), 'rest_no_route');
    // The raw-body parser is scoped to the plugin: the app's own JSON routes still parse.
    const echo = await app.inject({ method: 'POST', url: '/api/echo', headers, payload: '{"a":1}' });
    assert.deepEqual(JSON.parse(echo.body), { echoed: { a: 1 } });
    await app.close();
  });

  it('reads the raw body whatever the content type, or none', async () => {
    const { plugin, sign } = setup();
    const app = Fastify();
    await app.register(fastifyPlugin(plugin));
    for (const contentType of ['text/plain', 'application/octet-stream', undefined]) {
      const res = await app.inject({
        method: 'POST',
        url: `${PREFIX}orders/lookup`,
        headers: {
          'x-service-signature': sign(LOOKUP_BODY),
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        payload: Buffer.from(LOOKUP_BODY),
      });
      assert.equal(res.statusCode, 200, `${contentType}: ${res.body}`);
    }
    const atCap = LOOKUP_BODY.padEnd(CAP, ' ');
    const res = await app.inject({
      method: 'POST',
      url: `${PREFIX}orders/lookup`,
      headers: { 'x-service-signature': sign(atCap), 'content-type': 'application/json' },
      payload: atCap,
    });
    assert.equal(res.statusCode, 200);
    await app.close();
  });
});

describe('fetchHandler', () => {
  const base = 'https://shop.example.com';

  it('answers a signed lookup, refuses an unsigned one, and 404s other paths', async () => {
    const { plugin, sign } = setup();
    const handler = fetchHandler(plugin);
    const url = `${base}${PREFIX}orders/lookup`;
    const ok = await handler(
      new Request(url, {
        method: 'POST',
        headers: { 'x-service-signature': sign(LOOKUP_BODY) },
        body: LOOKUP_BODY,
      }),
    );
    assert.deepEqual(summary(ok.status, await ok.text(), ok.headers.get('cache-control')), {
      status: 200,
      body: EXPECTED_LOOKUP,
      cacheControl: 'no-store',
    });
    const unsigned = await handler(new Request(url, { method: 'POST', body: LOOKUP_BODY }));
    assert.equal(unsigned.status, 401);
    assert.deepEqual(await unsigned.json(), MISSING);
    const other = await handler(new Request(`${base}/shop`, { method: 'POST', body: '{}' }));
    assert.equal(other.status, 404);
    assert.equal(errorCodeOf({ body: await other.text() }), 'rest_no_route');
  });

  it('caps the body: 413 by Content-Length and while streaming', async () => {
    const { plugin, sign } = setup();
    const handler = fetchHandler(plugin);
    const url = `${base}${PREFIX}orders/lookup`;
    const big = await handler(
      new Request(url, {
        method: 'POST',
        headers: { 'x-service-signature': sign(BIG_BODY) },
        body: BIG_BODY,
      }),
    );
    assert.equal(big.status, 413);
    assert.deepEqual(await big.json(), TOO_LARGE);
    const atCap = LOOKUP_BODY.padEnd(CAP, ' ');
    const fits = await handler(
      new Request(url, { method: 'POST', headers: { 'x-service-signature': sign(atCap) }, body: atCap }),
    );
    assert.equal(fits.status, 200);
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i += 1) controller.enqueue(encoder.encode('z'.repeat(100)));
        controller.close();
      },
    });
    const streamed = await handler(new Request(url, { method: 'POST', body: stream, duplex: 'half' }));
    assert.equal(streamed.status, 413);
  });
});
