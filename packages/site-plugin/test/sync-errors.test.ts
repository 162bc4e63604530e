import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSignatureHeader } from '@service/contract';
import { createSyncClient, type SyncClientOptions } from '../src/sync-client.js';
import { SyncError } from '../src/sync-error.js';
import {
  AGENT_ID,
  type FakeService,
  makePost,
  makeStore,
  type Override,
  requestsTo,
  SITE_URL,
  startFakeService,
  TEST_TOKEN,
  useFakeService,
} from './sync-fake-service.js';

let fake: FakeService;
useFakeService((service) => {
  fake = service;
});

/** A client on a test clock that `sleep` advances; `sleeps` records every wait. */
function client(overrides: Partial<SyncClientOptions> = {}) {
  let clock = Math.floor(Date.now() / 1000) * 1000;
  const sleeps: number[] = [];
  const sync = createSyncClient({
    serviceUrl: fake.url,
    apiToken: TEST_TOKEN,
    siteUrl: SITE_URL,
    pluginVersion: '1.4.0',
    now: () => new Date(clock),
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    ...overrides,
  });
  return { sync, sleeps, now: () => clock };
}

async function failure(promise: Promise<unknown>): Promise<SyncError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SyncError) return error;
    throw error;
  }
  assert.fail('expected a SyncError');
}

const syncOne = (sync: ReturnType<typeof client>['sync'], agentId = AGENT_ID) =>
  sync.syncPosts({ agentId, store: makeStore({ posts: [makePost(1)] }) });

const throttled = (retryAfter?: string): Override => ({
  status: 429,
  body: { message: 'Too many requests.', code: 'rate_limited', errors: {} },
  headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
});

describe('429 and Retry-After', () => {
  it('sleeps Retry-After seconds, then resends the same body with a fresh signature', async () => {
    const { sync, sleeps } = client();
    let count = 0;
    fake.intercept = (request) =>
      request.path.endsWith('/posts/sync') && ++count === 1 ? throttled('2') : undefined;
    const report = await syncOne(sync);
    assert.equal(report.queued + report.skipped_unchanged, 1);
    assert.deepEqual(sleeps, [2000]);
    const [first, second] = requestsTo(fake, 'posts/sync');
    assert.ok(first && second);
    assert.equal(second.signature, 'ok');
    assert.equal(first.rawBody.toString('utf8'), second.rawBody.toString('utf8'));
    const t1 = parseSignatureHeader(String(first.headers['x-service-signature']))?.t ?? 0;
    const t2 = parseSignatureHeader(String(second.headers['x-service-signature']))?.t ?? 0;
    assert.equal(t2 - t1, 2);
  });

  it('reads an HTTP-date Retry-After against the injected clock', async () => {
    const { sync, sleeps, now } = client();
    let count = 0;
    fake.intercept = () => (++count === 1 ? throttled(new Date(now() + 5000).toUTCString()) : undefined);
    await syncOne(sync);
    assert.deepEqual(sleeps, [5000]);
  });

  it('backs off 1 s when Retry-After is missing', async () => {
    const { sync, sleeps } = client();
    let count = 0;
    fake.intercept = () => (++count === 1 ? throttled() : undefined);
    await syncOne(sync);
    assert.deepEqual(sleeps, [1000]);
  });

  it('fails with SyncError 429 once maxRetries retries are spent', async () => {
    const { sync, sleeps } = client({ maxRetries: 2 });
    fake.intercept = () => throttled('1');
    const error = await failure(syncOne(sync));
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.retryAfterSeconds, 1);
    assert.equal(error.isRetryable, true);
    assert.match(error.message, /after 2 retries/);
    assert.deepEqual(sleeps, [1000, 1000]);
    assert.equal(fake.requests.length, 3);
  });

  it('fails at once, without sleeping, when Retry-After exceeds maxRetryAfterSeconds (60 passes, 61 fails)', async () => {
    const edge = client();
    let count = 0;
    fake.intercept = () => (++count === 1 ? throttled('60') : undefined);
    await syncOne(edge.sync);
    assert.deepEqual(edge.sleeps, [60_000]);

    const { sync, sleeps } = client();
    fake.intercept = () => throttled('61');
    const error = await failure(syncOne(sync));
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterSeconds, 61);
    assert.match(error.message, /longer than maxRetryAfterSeconds \(60 s\)/);
    assert.deepEqual(sleeps, []);
  });
});

describe('refusals', () => {
  it('401 for a wrong token names the token and the clock', async () => {
    const { sync } = client({ apiToken: 'svc_wrong' });
    const error = await failure(syncOne(sync));
    assert.equal(error.status, 401);
    assert.equal(error.code, 'unauthenticated');
    assert.match(error.message, /token is wrong or revoked/);
    assert.match(error.message, /clock/);
    assert.equal(error.isRetryable, false);
  });

  it('401 signature_mismatch when the site clock is 10 minutes off', async () => {
    const { sync } = client({ now: () => new Date(Date.now() - 600_000) });
    const error = await failure(syncOne(sync));
    assert.equal(error.status, 401);
    assert.equal(error.code, 'signature_mismatch');
    assert.match(error.message, /clock is within 300 s/);
  });

  it('403 says the token lacks wp:integration', async () => {
    const { sync } = client();
    fake.intercept = () => ({
      status: 403,
      body: { message: 'This action is unauthorized.', code: 'forbidden', errors: {} },
    });
    const error = await failure(sync.handshake({ commerceActive: false, cmsVersion: '' }));
    assert.equal(error.status, 403);
    assert.equal(error.code, 'forbidden');
    assert.match(error.message, /lacks the `wp:integration` ability/);
  });

  it('404 for an unknown agent says to re-run the handshake', async () => {
    const { sync } = client();
    const error = await failure(syncOne(sync, 'agent-that-does-not-exist'));
    assert.equal(error.status, 404);
    assert.equal(error.code, 'not_found');
    assert.match(error.message, /agent-that-does-not-exist/);
    assert.match(error.message, /Re-run the handshake/);
  });

  it('422 lists the invalid fields, naming the wp_id of each item', async () => {
    const { sync } = client();
    const store = makeStore({
      posts: [
        makePost(1),
        makePost(2),
        makePost(3, { permalink: 'ftp://shop.example.com/x', modified_at: 'yesterday' }),
      ],
    });
    const error = await failure(sync.syncPosts({ agentId: AGENT_ID, store }));
    assert.equal(error.status, 422);
    assert.equal(error.code, 'validation_failed');
    assert.deepEqual(Object.keys(error.fieldErrors ?? {}).sort(), [
      'posts.2.modified_at',
      'posts.2.permalink',
    ]);
    assert.match(error.message, /posts\.2\.permalink \(wp_id 3\): The posts\.2\.permalink field is invalid/);
    assert.match(error.message, /Fix these fields/);
  });

  it('400 carries the envelope code and message', async () => {
    const { sync } = client();
    fake.intercept = () => ({
      status: 400,
      body: { message: 'The request body is not valid JSON.', code: 'malformed_json', errors: {} },
    });
    const error = await failure(syncOne(sync));
    assert.equal(error.status, 400);
    assert.equal(error.code, 'malformed_json');
    assert.match(error.message, /not valid JSON/);
  });

  it('a 5xx without an envelope is internal_error with the request id', async () => {
    const { sync } = client();
    fake.intercept = () => ({ status: 503, body: '<html>Bad gateway</html>' });
    const error = await failure(syncOne(sync));
    assert.equal(error.status, 503);
    assert.equal(error.code, 'internal_error');
    assert.equal(error.requestId, 'req_1');
    assert.match(error.message, /request id req_1/);
  });
});

describe('bad answers and no answer', () => {
  it('a non-JSON 200 is bad_response (502)', async () => {
    const { sync } = client();
    fake.intercept = () => ({ status: 200, body: '<html>Log in</html>' });
    const error = await failure(syncOne(sync));
    assert.equal(error.status, 502);
    assert.equal(error.code, 'bad_response');
    assert.match(error.message, /not JSON: "<html>Log in<\/html>"/);
    assert.equal(error.isRetryable, false);
  });

  it('a 200 of the wrong shape is bad_response', async () => {
    const { sync } = client();
    fake.intercept = () => ({ status: 200, body: { data: { queued: 'many' } } });
    const error = await failure(syncOne(sync));
    assert.equal(error.code, 'bad_response');
    assert.match(error.message, /data\.queued/);
    fake.intercept = () => ({ status: 200, body: { queued: 1, skipped_unchanged: 0, deleted: 0 } });
    assert.match((await failure(syncOne(sync))).message, /without the `data` envelope/);
  });

  it('a refused connection is network_error (status 0)', async () => {
    const closed = await startFakeService();
    await closed.close();
    const { sync } = client({ serviceUrl: closed.url });
    const error = await failure(sync.handshake({ commerceActive: false, cmsVersion: '' }));
    assert.equal(error.status, 0);
    assert.equal(error.code, 'network_error');
    assert.match(error.message, /could not reach the service/);
    assert.equal(error.isRetryable, true);
  });

  it('a request that outlives timeoutMs is aborted as timeout', async () => {
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    const { sync } = client({ fetch: hanging, timeoutMs: 20 });
    const error = await failure(syncOne(sync));
    assert.equal(error.status, 0);
    assert.equal(error.code, 'timeout');
    assert.match(error.message, /did not answer within 20 ms/);
  });
});
