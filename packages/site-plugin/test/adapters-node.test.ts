import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import express from 'express';
import { BODY_PARSED_MESSAGE, nodeHandler } from '../src/adapters/node.js';
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
import { PREFIX } from './plugin-fixtures.js';

// nodeHandler end to end, on a real loopback server: node:http and Express.

const servers: Server[] = [];
after(async () => {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

async function post(base: string, path: string, body: string, signature?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== undefined) headers['x-service-signature'] = signature;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body });
  return summary(res.status, await res.text(), res.headers.get('cache-control'));
}

/** A POST whose body is sent in chunks without Content-Length (so only the streaming cap can stop it). */
function postChunked(
  base: string,
  path: string,
  chunks: string[],
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('nodeHandler on node:http', () => {
  it('answers a signed lookup, refuses an unsigned request, and 404s other paths', async () => {
    const { plugin, sign } = setup();
    const base = await listen(nodeHandler(plugin));
    const path = `${PREFIX}orders/lookup`;
    assert.deepEqual(await post(base, path, LOOKUP_BODY, sign(LOOKUP_BODY)), {
      status: 200,
      body: EXPECTED_LOOKUP,
      cacheControl: 'no-store',
    });
    assert.deepEqual(await post(base, path, LOOKUP_BODY), {
      status: 401,
      body: MISSING,
      cacheControl: 'no-store',
    });
    const other = await post(base, '/shop', LOOKUP_BODY);
    assert.equal(other.status, 404);
  });

  it('caps the body at maxBodyBytes: 413 by Content-Length and while streaming', async () => {
    const { plugin, sign } = setup();
    const base = await listen(nodeHandler(plugin));
    const path = `${PREFIX}orders/lookup`;
    // JSON allows trailing whitespace: a valid body of exactly CAP bytes, then CAP + 1.
    const atCap = LOOKUP_BODY.padEnd(CAP, ' ');
    assert.equal((await post(base, path, atCap, sign(atCap))).status, 200);
    const overCap = `${atCap} `;
    assert.deepEqual(await post(base, path, overCap, sign(overCap)), {
      status: 413,
      body: TOO_LARGE,
      cacheControl: 'no-store',
    });
    const streamed = await postChunked(base, path, ['{"a":"', 'y'.repeat(200), 'y'.repeat(200), '"}']);
    assert.deepEqual(streamed, { status: 413, body: TOO_LARGE });
  });
});

describe('nodeHandler as Express middleware', () => {
  it('answers a signed lookup, refuses an unsigned one, and passes other paths to next()', async () => {
    const { plugin, sign } = setup();
    const app = express();
    app.use(nodeHandler(plugin));
    app.use(express.json());
    app.post('/api/echo', (req, res) => {
      res.json({ echoed: req.body });
    });
    const base = await listen(app);
    const path = `${PREFIX}orders/lookup`;
    assert.deepEqual(await post(base, path, LOOKUP_BODY, sign(LOOKUP_BODY)), {
      status: 200,
      body: EXPECTED_LOOKUP,
      cacheControl: 'no-store',
    });
    assert.deepEqual((await post(base, path, LOOKUP_BODY)).body, MISSING);
    assert.deepEqual((await post(base, '/api/echo', '{"a":1}')).body, { echoed: { a: 1 } });
    assert.deepEqual((await post(base, path, BIG_BODY, sign(BIG_BODY))).body, TOO_LARGE);
  });

  it('works under a mount path (reads originalUrl)', async () => {
    const { plugin, sign } = setup();
    const app = express();
    app.use('/wp-json', nodeHandler(plugin));
    const base = await listen(app);
    assert.equal((await post(base, `${PREFIX}orders/lookup`, LOOKUP_BODY, sign(LOOKUP_BODY))).status, 200);
  });

  it('uses the raw body a raw parser left (express.raw)', async () => {
    const { plugin, sign } = setup();
    const app = express();
    app.use(express.raw({ type: '*/*' }));
    app.use(nodeHandler(plugin));
    const base = await listen(app);
    assert.equal((await post(base, `${PREFIX}orders/lookup`, LOOKUP_BODY, sign(LOOKUP_BODY))).status, 200);
  });

  it('answers 500 telling to mount it before body parsers when only a parsed object is left', async () => {
    const { plugin, sign } = setup();
    const app = express();
    app.use(express.json());
    app.use(nodeHandler(plugin));
    const base = await listen(app);
    const answer = await post(base, `${PREFIX}orders/lookup`, LOOKUP_BODY, sign(LOOKUP_BODY));
    assert.deepEqual(answer, {
      status: 500,
      body: { error: { code: 'internal_error', message: BODY_PARSED_MESSAGE } },
      cacheControl: 'no-store',
    });
    assert.match(BODY_PARSED_MESSAGE, /before any body parser/);
  });
});
