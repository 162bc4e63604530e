import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ZPostsSync } from '@service/contract';
import { createMemoryStore } from '../src/memory-store.js';
import {
  createSyncClient,
  HANDSHAKE_STATE_KEY,
  type SyncClientOptions,
  syncCursorKey,
  syncRunKey,
} from '../src/sync-client.js';
import { SyncError } from '../src/sync-error.js';
import {
  AGENT_ID,
  type FakeService,
  makePost,
  makeProduct,
  makeStore,
  posts,
  requestsTo,
  SITE_URL,
  TEST_SECRET,
  TEST_TOKEN,
  useFakeService,
} from './sync-fake-service.js';

let fake: FakeService;
useFakeService((service) => {
  fake = service;
});

function client(overrides: Partial<SyncClientOptions> = {}) {
  const state = overrides.state ?? createMemoryStore();
  const sync = createSyncClient({
    serviceUrl: fake.url,
    apiToken: TEST_TOKEN,
    siteUrl: SITE_URL,
    pluginVersion: '1.4.0',
    state,
    ...overrides,
  });
  return { sync, state };
}

describe('handshake', () => {
  it('sends the bearer and no signature, and stores the answer with its signing secret', async () => {
    const { sync, state } = client();
    assert.equal(await sync.signingSecret(), null);
    assert.equal(await sync.storedHandshake(), null);
    const data = await sync.handshake({ commerceActive: true, cmsVersion: '6.8.1' });
    assert.equal(data.token.shopper_signing_secret, TEST_SECRET);
    assert.equal(data.recommended_site_type, 'ecommerce');
    assert.equal(await sync.signingSecret(), TEST_SECRET);
    assert.deepEqual(await sync.storedHandshake(), data);
    assert.ok(await state.get(HANDSHAKE_STATE_KEY));

    const [request] = requestsTo(fake, 'handshake');
    assert.ok(request);
    assert.equal(request.headers.authorization, `Bearer ${TEST_TOKEN}`);
    assert.equal(request.headers['x-service-signature'], undefined);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.match(
      request.headers['user-agent'] ?? '',
      /^service-site-plugin\/\d+\.\d+\.\d+ \(plugin 1\.4\.0\)$/,
    );
    assert.deepEqual(request.json, {
      site_url: SITE_URL,
      plugin_version: '1.4.0',
      commerce_active: true,
      cms_version: '6.8.1',
    });
  });

  it('a corrupt stored handshake reads as none', async () => {
    const { sync, state } = client();
    await state.set(HANDSHAKE_STATE_KEY, '{"token":');
    assert.equal(await sync.storedHandshake(), null);
    assert.equal(await sync.signingSecret(), null);
  });

  it('works with a trailing slash on serviceUrl', async () => {
    const { sync } = client({ serviceUrl: `${fake.url}/` });
    await sync.handshake({ commerceActive: false, cmsVersion: '' });
    assert.equal(fake.requests[0]?.path, '/api/v1/wp/handshake');
  });
});

describe('full sync', () => {
  it('sends 120 posts in 3 signed batches (50, 50, 20) with content hashes, then clears the cursor', async () => {
    const { sync, state } = client();
    const store = makeStore({ posts: posts(120) });
    const report = await sync.syncPosts({ agentId: AGENT_ID, store });
    assert.deepEqual(report, {
      kind: 'posts',
      batches: 3,
      sent: 120,
      queued: 120,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 0,
      failures: [],
      resumedAfter: null,
    });
    assert.deepEqual(
      fake.batches.map((batch) => batch.ids.length),
      [50, 50, 20],
    );
    assert.deepEqual(
      fake.batches.flatMap((batch) => batch.ids),
      [...Array(120).keys()].map((i) => i + 1),
    );
    for (const request of requestsTo(fake, 'posts/sync')) {
      assert.equal(request.signature, 'ok');
      const body = ZPostsSync.parse(request.json);
      assert.equal(body.agent_id, AGENT_ID);
      assert.match(body.posts[0]?.content_hash ?? '', /^[0-9a-f]{64}$/);
    }
    assert.deepEqual(
      store.listed.map((query) => query.afterId),
      [0, 50, 100, 120],
    );
    assert.equal(await state.get(syncCursorKey('posts', AGENT_ID)), null);

    const again = await sync.syncPosts({ agentId: AGENT_ID, store });
    assert.equal(again.queued, 0);
    assert.equal(again.skipped_unchanged, 120);
  });

  it('exactly 50 posts is one batch; 51 is two', async () => {
    const { sync } = client();
    assert.equal(
      (await sync.syncPosts({ agentId: AGENT_ID, store: makeStore({ posts: posts(50) }) })).batches,
      1,
    );
    fake.batches.length = 0;
    const report = await sync.syncPosts({ agentId: AGENT_ID, store: makeStore({ posts: posts(51) }) });
    assert.deepEqual(
      fake.batches.map((batch) => batch.ids.length),
      [50, 1],
    );
    assert.equal(report.sent, 51);
  });

  it('an empty site sends one empty final batch, which removes what the service still holds', async () => {
    const { sync } = client();
    await sync.syncPosts({ agentId: AGENT_ID, store: makeStore({ posts: posts(3) }) });
    fake.batches.length = 0;
    const report = await sync.syncPosts({ agentId: AGENT_ID, store: makeStore({}) });
    assert.equal(report.batches, 1);
    assert.equal(report.deleted, 3);
    assert.deepEqual(fake.batches[0]?.ids, []);
    assert.equal(fake.batches[0]?.fullSync?.final, true);
  });

  it('every batch of a run carries one run id, only the last is final, and removed posts are counted', async () => {
    const { sync, state } = client();
    await sync.syncPosts({ agentId: AGENT_ID, store: makeStore({ posts: posts(120) }) });
    const first = fake.batches.map((batch) => batch.fullSync);
    assert.equal(first.length, 3);
    const runId = first[0]?.id ?? '';
    assert.match(runId, /^[0-9a-f]{32}$/);
    assert.deepEqual(first, [
      { id: runId, final: false },
      { id: runId, final: false },
      { id: runId, final: true },
    ]);
    assert.equal(await state.get(syncRunKey('posts', AGENT_ID)), null, 'the run id is dropped when done');

    // Posts 101–120 were removed on the site while no delta was sent.
    fake.batches.length = 0;
    const report = await sync.syncPosts({ agentId: AGENT_ID, store: makeStore({ posts: posts(100) }) });
    assert.equal(report.deleted, 20);
    assert.equal(report.batches, 2);
    assert.equal(fake.batches[1]?.fullSync?.final, true);
    assert.notEqual(fake.batches[0]?.fullSync?.id, runId, 'a new run, a new id');
  });

  it('a resumed run keeps its run id; fromStart starts a new one', async () => {
    const { sync, state } = client();
    const store = makeStore({ posts: posts(120) });
    let postSyncs = 0;
    fake.intercept = (request) =>
      request.path.endsWith('/posts/sync') && ++postSyncs === 2
        ? { status: 500, body: { message: 'Server Error', code: 'internal_error', errors: {} } }
        : undefined;
    await assert.rejects(sync.syncPosts({ agentId: AGENT_ID, store }));
    fake.intercept = null;
    const runId = await state.get(syncRunKey('posts', AGENT_ID));
    assert.equal(fake.batches[0]?.fullSync?.id, runId);
    fake.batches.length = 0;
    await client({ state }).sync.syncPosts({ agentId: AGENT_ID, store });
    assert.deepEqual(
      fake.batches.map((batch) => batch.fullSync),
      [
        { id: runId, final: false },
        { id: runId, final: true },
      ],
    );

    await state.set(syncCursorKey('posts', AGENT_ID), '50');
    await state.set(syncRunKey('posts', AGENT_ID), 'old-run');
    fake.batches.length = 0;
    await sync.syncPosts({ agentId: AGENT_ID, store, fromStart: true });
    assert.ok(fake.batches.every((batch) => batch.fullSync?.id !== 'old-run'));
    assert.equal(fake.batches[0]?.ids[0], 1);
  });

  it('a failure on batch 2 throws and keeps the cursor; the next call resumes after batch 1', async () => {
    const { sync, state } = client();
    const store = makeStore({ posts: posts(120) });
    let postSyncs = 0;
    fake.intercept = (request) =>
      request.path.endsWith('/posts/sync') && ++postSyncs === 2
        ? { status: 500, body: { message: 'Server Error', code: 'internal_error', errors: {} } }
        : undefined;
    const failure = await sync.syncPosts({ agentId: AGENT_ID, store }).then(
      () => assert.fail('expected a SyncError'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof SyncError);
    assert.equal(failure.status, 500);
    assert.equal(failure.isRetryable, true);
    assert.equal(await state.get(syncCursorKey('posts', AGENT_ID)), '50');

    fake.intercept = null;
    const sentBefore = requestsTo(fake, 'posts/sync').length;
    // A new client over the same state, as after a crash and restart.
    const restarted = client({ state }).sync;
    const report = await restarted.syncPosts({ agentId: AGENT_ID, store });
    assert.equal(report.resumedAfter, 50);
    assert.equal(report.batches, 2);
    assert.equal(report.sent, 70);
    const resumed = requestsTo(fake, 'posts/sync').slice(sentBefore);
    assert.equal(resumed.length, 2);
    assert.equal(ZPostsSync.parse(resumed[0]?.json).posts[0]?.wp_id, 51);
    assert.equal(await state.get(syncCursorKey('posts', AGENT_ID)), null);
  });

  it('fromStart ignores a saved cursor', async () => {
    const { sync, state } = client();
    await state.set(syncCursorKey('posts', AGENT_ID), '100');
    const report = await sync.syncPosts({
      agentId: AGENT_ID,
      store: makeStore({ posts: posts(60) }),
      fromStart: true,
    });
    assert.equal(report.resumedAfter, null);
    assert.equal(report.sent, 60);
  });

  it('honours a smaller batchSize and refuses one above 50', () => {
    assert.throws(() => client({ batchSize: 51 }), /batchSize must be an integer from 1 to 50/);
    assert.throws(() => client({ batchSize: 0 }), /batchSize/);
    assert.throws(() => client({ serviceUrl: 'service.example.com' }), /serviceUrl must be an http\(s\) URL/);
    assert.throws(() => client({ apiToken: ' ' }), /apiToken is empty/);
  });

  it('with batchSize 20, 45 products go in 3 batches', async () => {
    const { sync } = client({ batchSize: 20 });
    const products = Array.from({ length: 45 }, (_, i) => makeProduct(i + 1));
    const report = await sync.syncProducts({ agentId: AGENT_ID, store: makeStore({ products }) });
    assert.equal(report.kind, 'products');
    assert.deepEqual(
      fake.batches.map((batch) => [batch.kind, batch.ids.length]),
      [
        ['products', 20],
        ['products', 20],
        ['products', 5],
      ],
    );
  });

  it('refuses a store that lists out of order instead of skipping items', async () => {
    const { sync } = client();
    const store = { listPosts: async () => [makePost(5), makePost(3)] };
    await assert.rejects(
      sync.syncPosts({ agentId: AGENT_ID, store }),
      /ascending \(PageQuery\); got 3 after 5/,
    );
  });

  it('product price-only changes are re-sent as changed only when includePriceAndStock is on', async () => {
    for (const includePriceAndStock of [true, false]) {
      const { sync } = client({ productHash: { includePriceAndStock } });
      const agentStore = (price: string) =>
        makeStore({ products: [makeProduct(900 + Number(includePriceAndStock), { price })] });
      await sync.syncProducts({ agentId: AGENT_ID, store: agentStore('10.00') });
      const report = await sync.syncProducts({ agentId: AGENT_ID, store: agentStore('12.00') });
      assert.equal(
        report.queued,
        includePriceAndStock ? 1 : 0,
        `includePriceAndStock ${includePriceAndStock}`,
      );
      assert.equal(report.skipped_unchanged, includePriceAndStock ? 0 : 1);
    }
  });

  it('syncAll sends products and coupons only when commerce is active', async () => {
    const { sync } = client();
    const content = {
      posts: posts(3),
      products: [makeProduct(1)],
      coupons: [{ code: 'WELCOME10', label: '10% off', discount: '10%', expires_at: null }],
    };
    const off = await sync.syncAll({ agentId: AGENT_ID, store: makeStore(content) });
    assert.equal(off.products, null);
    assert.equal(off.coupons, null);
    assert.equal(requestsTo(fake, 'products/sync').length, 0);

    const on = await sync.syncAll({ agentId: AGENT_ID, store: makeStore({ ...content, commerce: true }) });
    assert.equal(on.posts.skipped_unchanged, 3);
    assert.equal(on.products?.sent, 1);
    assert.deepEqual(on.coupons, { stored: 1 });
    const forced = await sync.syncAll({ agentId: AGENT_ID, store: makeStore(content), commerceActive: true });
    assert.deepEqual(forced.coupons, { stored: 1 });
  });

  it('signs the exact bytes sent, non-ASCII text included', async () => {
    const { sync } = client();
    const post = makePost(7, {
      title: 'Ünïcödé “quotes” — 日本語 🚀',
      content_html: '<p>line\r\nbreak  </p>',
    });
    await sync.syncPosts({ agentId: AGENT_ID, store: makeStore({ posts: [post] }) });
    const [request] = requestsTo(fake, 'posts/sync');
    assert.equal(request?.signature, 'ok');
    assert.equal(ZPostsSync.parse(request?.json).posts[0]?.title, post.title);
  });
});
