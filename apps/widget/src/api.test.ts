/// <reference types="node" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApi, type TFetch } from './api.js';
import type { TSseFrame } from './sse.js';
import type { TInit } from './types.js';

type TCall = { url: string; method: string; auth: string; body: string };

const initData = (token: string): TInit => ({
  token,
  conversation_id: 'c1',
  conversation_status: 'open',
  agent: {
    name: 'Shop',
    language_default: null,
    theme: {
      position: 'bottom-right',
      primary: '#112233',
      accent: '#445566',
      radius: 12,
      launcher_label: 'Chat',
    },
    features: { coupons: false, leads: true, human: true, satisfaction: false },
    behavior_rules: [],
  },
  messages: [],
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** A fake service: init hands out tok1, tok2, …; `route` answers the other calls. */
function fakeService(route: (call: TCall, n: number) => Response | Promise<Response>) {
  const calls: TCall[] = [];
  let tokens = 0;
  let routed = 0;
  const fetch: TFetch = async (url, init) => {
    const headers = new Headers(init.headers);
    const call = {
      url,
      method: init.method ?? 'GET',
      auth: headers.get('authorization') ?? '',
      body: typeof init.body === 'string' ? init.body : '',
    };
    calls.push(call);
    if (url.endsWith('/v1/widget/init')) return json(200, { data: initData(`tok${++tokens}`) });
    return route(call, ++routed);
  };
  const inits: TInit[] = [];
  const api = createApi({
    base: 'https://svc.example',
    fetch,
    initBody: () => ({ agent_id: 'a1', anon_id: 'anon_anon_anon' }),
    onInit: (data) => inits.push(data),
    stallMs: 200,
  });
  return {
    api,
    calls,
    inits,
    paths: () => calls.map((c) => `${c.method} ${new URL(c.url).pathname} ${c.auth}`.trim()),
  };
}

describe('api: auth and retry rules', () => {
  it('inits first, then sends the bearer token', async () => {
    const { api, paths, inits } = fakeService(() => json(202, null));
    const result = await api.call('POST', '/v1/widget/events', { kind: 'widget_opened' });
    assert.equal(result.ok, true);
    assert.deepEqual(paths(), ['POST /v1/widget/init', 'POST /v1/widget/events Bearer tok1']);
    assert.equal(inits.length, 1);
  });

  it('on 401 re-inits once and retries the request once with the new token', async () => {
    const { api, paths } = fakeService((_call, n) =>
      n === 1 ? json(401, {}) : json(200, { data: { status: 'waiting' } }),
    );
    await api.init();
    const result = await api.call('POST', '/v1/widget/request-human');
    assert.deepEqual(result, { ok: true, status: 200, data: { status: 'waiting' } });
    assert.deepEqual(paths(), [
      'POST /v1/widget/init',
      'POST /v1/widget/request-human Bearer tok1',
      'POST /v1/widget/init',
      'POST /v1/widget/request-human Bearer tok2',
    ]);
  });

  it('gives up after the retried request is a 401 again (no loop)', async () => {
    const { api, paths } = fakeService(() => json(401, {}));
    await api.init();
    const result = await api.call('GET', '/v1/widget/conversation/messages');
    assert.equal(result.ok, false);
    assert.equal(result.ok ? '' : result.error, 'unauthorized');
    assert.equal(paths().length, 4);
  });

  it('on 429 abandons the request: no retry, no re-init', async () => {
    const { api, paths } = fakeService(() =>
      json(429, { code: 'rate_limited', message: 'Slow down' }, { 'retry-after': '30' }),
    );
    await api.init();
    const result = await api.call('POST', '/v1/widget/leads', { email: 'a@b.example' });
    assert.equal(result.ok ? '' : result.error, 'rate_limited');
    assert.deepEqual(paths(), ['POST /v1/widget/init', 'POST /v1/widget/leads Bearer tok1']);
  });

  it('turns a network failure into a result, never a throw', async () => {
    const { api } = fakeService(() => Promise.reject(new TypeError('Failed to fetch')));
    await api.init();
    const result = await api.call('POST', '/v1/widget/typing', { typing: true });
    assert.equal(result.ok ? '' : result.error, 'network');
  });

  it("keeps the service's message and code on other failures", async () => {
    const { api } = fakeService(() =>
      json(400, { message: 'That code is not valid.', code: 'invalid_coupon', errors: {} }),
    );
    const result = await api.call('POST', '/api/v1/widget/coupon/apply', { code: 'X' });
    assert.deepEqual(result, {
      ok: false,
      status: 400,
      error: 'failed',
      code: 'invalid_coupon',
      message: 'That code is not valid.',
    });
  });

  it('shares one init between concurrent callers', async () => {
    const { api, paths } = fakeService(() => json(202, null));
    await Promise.all([api.call('POST', '/v1/widget/events', {}), api.call('POST', '/v1/widget/typing', {})]);
    assert.equal(paths().filter((p) => p.includes('/init')).length, 1);
  });

  it('switches to a token from conversation/clear', async () => {
    const { api, calls } = fakeService(() => json(202, null));
    await api.init();
    api.setToken('cleared');
    await api.call('POST', '/v1/widget/events', {});
    assert.equal(calls.at(-1)?.auth, 'Bearer cleared');
  });

  it('a refused init is returned as it is', async () => {
    const calls: string[] = [];
    const api = createApi({
      base: 'https://svc.example',
      fetch: async (url) => {
        calls.push(url);
        return json(403, { code: 'origin_forbidden', message: 'Forbidden' });
      },
      initBody: () => ({ agent_id: 'a1', anon_id: 'anon_anon_anon' }),
      onInit: () => assert.fail('no init data'),
    });
    const result = await api.call('POST', '/v1/widget/events', {});
    assert.deepEqual(result.ok ? null : [result.status, result.code], [403, 'origin_forbidden']);
    assert.equal(calls.length, 1);
  });
});

describe('api: stream', () => {
  const sse = (text: string, status = 200) =>
    new Response(text, { status, headers: { 'content-type': 'text/event-stream' } });

  it('feeds the frames to the caller', async () => {
    const { api } = fakeService(() =>
      sse('event: token\ndata: {"t":"Hi"}\n\nevent: done\ndata: {"message_id":"m2"}\n\n'),
    );
    const frames: TSseFrame[] = [];
    const result = await api.stream('/v1/widget/messages/stream', { message: 'hi' }, (f) => frames.push(f));
    assert.equal(result.ok, true);
    assert.deepEqual(
      frames.map((f) => f.event),
      ['token', 'done'],
    );
  });

  it('re-inits once on 401 before the stream starts', async () => {
    const { api, paths } = fakeService((_c, n) =>
      n === 1 ? json(401, {}) : sse('event: done\ndata: {}\n\n'),
    );
    await api.init();
    const result = await api.stream('/v1/widget/messages/stream', { message: 'hi' }, () => {});
    assert.equal(result.ok, true);
    assert.deepEqual(paths().slice(1), [
      'POST /v1/widget/messages/stream Bearer tok1',
      'POST /v1/widget/init',
      'POST /v1/widget/messages/stream Bearer tok2',
    ]);
  });

  it('does not retry a 429', async () => {
    const { api, paths } = fakeService(() => json(429, {}));
    await api.init();
    const result = await api.stream('/v1/widget/messages/stream', { message: 'hi' }, () => {});
    assert.equal(result.ok ? '' : result.error, 'rate_limited');
    assert.equal(paths().length, 2);
  });

  it('reports a stalled stream', async () => {
    const { api } = fakeService(() => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('event: start\ndata: {}\n\n'));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const result = await api.stream('/v1/widget/messages/stream', { message: 'hi' }, () => {});
    assert.equal(result.ok ? '' : result.error, 'stalled');
  });
});
