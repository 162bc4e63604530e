import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createOpenAiEmbedder } from './openai-embedder.js';

type Seen = {
  url: string;
  authorization: string | undefined;
  body: { model?: string; input?: string[]; dimensions?: number };
};

describe('OpenAI-compatible embedder (fake server on 127.0.0.1)', () => {
  const seen: Seen[] = [];
  let mode: 'ok' | 'reversed' | 'error' | 'uneven' | 'garbage' = 'ok';
  let base = '';
  const server = createServer((req: IncomingMessage, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      seen.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
      const input: string[] = body.input;
      if (mode === 'error') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"overloaded"}');
        return;
      }
      if (mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('not json');
        return;
      }
      const data = input.map((text, index) => ({
        index,
        embedding: mode === 'uneven' && index === 1 ? [1] : [text.length, index, 1],
      }));
      if (mode === 'reversed') data.reverse();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('posts the batch to {base}/embeddings with the key and model, and orders vectors by index', async () => {
    mode = 'reversed';
    const provider = createOpenAiEmbedder({
      baseUrl: base,
      apiKey: 'sk-test-secret',
      model: 'nomic-embed-text',
    });
    const vectors = await provider.embed(['a', 'bbb']);
    assert.deepEqual(vectors, [
      [1, 0, 1],
      [3, 1, 1],
    ]);
    const last = seen.at(-1);
    assert.equal(last?.url, '/v1/embeddings');
    assert.equal(last?.authorization, 'Bearer sk-test-secret');
    assert.equal(last?.body.model, 'nomic-embed-text');
    assert.deepEqual(last?.body.input, ['a', 'bbb']);
    assert.equal(last?.body.dimensions, undefined);
    assert.match(provider.key, /^openai:127\.0\.0\.1:\d+:nomic-embed-text:native$/);
    assert.equal(provider.dimensions, null);
  });

  test('a configured dimension is sent, keyed, and enforced', async () => {
    mode = 'ok';
    const provider = createOpenAiEmbedder({ baseUrl: base, model: 'm', dimensions: 3 });
    assert.equal((await provider.embed(['x']))[0]?.length, 3);
    assert.equal(seen.at(-1)?.body.dimensions, 3);
    assert.equal(seen.at(-1)?.authorization, undefined);
    assert.match(provider.key, /:m:3$/);
    const wrong = createOpenAiEmbedder({ baseUrl: base, model: 'm', dimensions: 8 });
    await assert.rejects(wrong.embed(['x']), /3 dimensions, not 8/);
  });

  test('HTTP errors, bad bodies and uneven vectors reject, never leaking the key', async () => {
    const provider = createOpenAiEmbedder({ baseUrl: base, apiKey: 'sk-never-shown' });
    for (const [m, pattern] of [
      ['error', /HTTP 500/],
      ['garbage', /unexpected body/],
      ['uneven', /missing or uneven/],
    ] as const) {
      mode = m;
      await assert.rejects(provider.embed(['a', 'b']), (error: Error) => {
        assert.match(error.message, pattern);
        assert.ok(!error.message.includes('sk-never-shown'));
        return true;
      });
    }
  });

  test('an empty batch makes no request', async () => {
    const before = seen.length;
    assert.deepEqual(await createOpenAiEmbedder({ baseUrl: base }).embed([]), []);
    assert.equal(seen.length, before);
  });
});
