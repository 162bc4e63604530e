import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import { signRequest, ZChangeResult, ZSyncResult } from '@service/contract';
import { z } from 'zod';
import { closeExtractionPool, configureExtractionPool } from '../src/extraction/shared-extraction-pool.js';
import { HEALTH_BOUND_MS, type HealthReport, probeHealth } from './support/health-probe.js';
import {
  createAgent,
  createSite,
  documentsOf,
  hexHash,
  type Json,
  queuedJobs,
  range,
  type Site,
  samplePost,
  sampleProduct,
  target,
  UNTHROTTLED,
  unixNow,
  WP,
} from './support/site-sync.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** 2 extraction threads (the default) and a 30 s limit per item, so an overrun ends sooner. */
const LIMITS = { EXTRACT_WORKERS: '2', EXTRACT_TIMEOUT_MS: '30000' };

/**
 * Why a huge body failed: the text cap when the converter got that far, or (on a loaded
 * machine) the thread's time or memory met first.
 */
const OVER_A_LIMIT =
  /^its HTML (has more than 2,000,000 characters of text|could not be converted to text within the limits: it (needs more than \d+ MB of memory|takes longer than 30 s) to read)$/;

/** Why deeply nested markup failed: the converter ran out of stack, or its time ran out first. */
const TOO_DEEP =
  /^its HTML could not be converted to text (\(Maximum call stack size exceeded\)|within the limits: it takes longer than 30 s to read)$/;

/** `depth` nested divs around one word. */
const nested = (depth: number) => `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`;

/** A body of `bytes` bytes of paragraphs (45 bytes each): about 0.9 characters of text a byte. */
const paragraphs = (bytes: number) =>
  '<p>lorem ipsum dolor sit amet consectetur</p>'.repeat(Math.ceil(bytes / 45));

describe('hostile site sync: HTML is converted off the request thread, each item fails alone', () => {
  let t: TestApp;
  let site: Site;
  let origin: string;

  before(async () => {
    t = await createTestApp({ env: { ...UNTHROTTLED, ...LIMITS } });
    // As the service does at start: the process-wide pool with the configured limits.
    await configureExtractionPool(t.config.extraction);
    site = await createSite(t);
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await closeExtractionPool();
    await t.close();
  });

  /** POSTs a signed body over real HTTP while another thread polls /healthz every 100 ms. */
  const postWhileProbing = async (path: string, body: Json) => {
    const probe = probeHealth(`${origin}/healthz`);
    await probe.ready;
    const raw = JSON.stringify(body);
    let response: Response;
    let health: HealthReport;
    try {
      response = await fetch(`${origin}${WP}/${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${site.token}`,
          'x-service-signature': signRequest(site.token, raw, unixNow()),
        },
        body: raw,
      });
    } finally {
      health = await probe.stop();
    }
    return { status: response.status, body: await response.json(), health };
  };

  /** Asserts /healthz answered throughout, each time within the bound; reports the slowest answer. */
  const expectResponsive = (context: TestContext, health: HealthReport) => {
    context.diagnostic(`/healthz: ${health.samples} answers, slowest ${health.maxMs.toFixed(0)} ms`);
    assert.ok(health.samples >= 1, JSON.stringify(health));
    assert.equal(health.failures, 0, JSON.stringify(health));
    assert.ok(health.maxMs < HEALTH_BOUND_MS, `slowest /healthz: ${health.maxMs.toFixed(0)} ms`);
  };

  const dataOf = <T extends z.ZodType>(result: { status: number; body: unknown }, schema: T): z.output<T> => {
    assert.equal(result.status, 200, JSON.stringify(result.body).slice(0, 500));
    const envelope = z.strictObject({ data: z.unknown() }).parse(result.body);
    return schema.parse(envelope.data);
  };

  const newAgent = () => createAgent(t, site.tenant);

  test('a 19 MB batch of 50: three 4.9 MB bodies and 100,000-deep nesting reported, 46 stored', async (context) => {
    const agentId = site.agentId;
    const jobs = await queuedJobs(t);
    const posts = range(1, 50).map((wpId) =>
      // 30 posts of 100 KB: many items with real work besides the hostile ones.
      wpId > 20 ? samplePost(wpId, { content_html: paragraphs(100_000) }) : samplePost(wpId),
    );
    for (const wpId of [10, 11, 12]) {
      // Just under the schema's 5,000,000-character field limit; about 4.4 million characters of text.
      posts[wpId - 1] = samplePost(wpId, { content_html: paragraphs(4_900_000).slice(0, 4_900_000) });
    }
    posts[19] = samplePost(20, { content_html: nested(100_000) });
    const body = { ...target(agentId), posts };
    assert.ok(JSON.stringify(body).length > 16 * 1024 * 1024);
    const result = await postWhileProbing('posts/sync', body);
    const data = dataOf(result, ZSyncResult);
    assert.deepEqual(
      { ...data, failures: [] },
      { queued: 46, skipped_unchanged: 0, deleted: 0, failed: 4, failures: [] },
    );
    const failures = [...data.failures].sort((x, y) => x.wp_id - y.wp_id);
    assert.deepEqual(
      failures.map((failure) => failure.wp_id),
      [10, 11, 12, 20],
    );
    for (const failure of failures.slice(0, 3)) assert.match(failure.reason, OVER_A_LIMIT);
    assert.match(failures[3]?.reason ?? '', TOO_DEEP);
    expectResponsive(context, result.health);

    const docs = await documentsOf(t, agentId);
    assert.deepEqual(
      docs.map((doc) => Number(doc.external_id)).sort((x, y) => x - y),
      range(1, 50).filter((wpId) => ![10, 11, 12, 20].includes(wpId)),
    );
    const long = docs.find((doc) => doc.external_id === '30');
    assert.ok(long?.content_text.startsWith('Post 30\n\nlorem ipsum dolor sit amet consectetur\n\n'));
    const stored = await t.database.db
      .selectFrom('documents')
      .select(['content_text', 'content_hash', 'index_status'])
      .where('agent_id', '=', agentId)
      .where('external_id', '=', '7')
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, {
      content_text: 'Post 7\n\nPost 7\n\nBody of post number 7 about returns and refunds.',
      content_hash: hexHash('post-7'),
      index_status: 'pending',
    });
    assert.equal(await queuedJobs(t), jobs + 46);
  });

  test('a delta that breaks a stored post: result failed, the stored version and its hash stay', async (context) => {
    const agentId = await newAgent();
    const first = await postWhileProbing('posts/changed', {
      ...target(agentId),
      action: 'upsert',
      post: samplePost(1),
    });
    assert.equal(dataOf(first, ZChangeResult).result, 'queued');
    const before = await documentsOf(t, agentId);
    const jobs = await queuedJobs(t);
    const broken = samplePost(1, { content_html: nested(20_000), content_hash: hexHash('post-1-broken') });
    const result = await postWhileProbing('posts/changed', {
      ...target(agentId),
      action: 'upsert',
      post: broken,
    });
    const data = dataOf(result, ZChangeResult);
    assert.equal(data.failures.length, 1);
    assert.match(data.failures[0]?.reason ?? '', TOO_DEEP);
    assert.deepEqual(
      { ...data, failures: [] },
      {
        action: 'upsert',
        result: 'failed',
        queued: 0,
        skipped_unchanged: 0,
        deleted: 0,
        failed: 1,
        failures: [],
      },
    );
    assert.equal(data.failures[0]?.wp_id, 1);
    expectResponsive(context, result.health);
    assert.deepEqual(await documentsOf(t, agentId), before);
    const stored = await t.database.db
      .selectFrom('documents')
      .select('content_hash')
      .where('agent_id', '=', agentId)
      .executeTakeFirstOrThrow();
    assert.equal(stored.content_hash, hexHash('post-1'));
    assert.equal(await queuedJobs(t), jobs);
  });

  test('text at the cap: 2,000,000 characters are stored, 2,000,001 reported', async (context) => {
    const agentId = await newAgent();
    // The document's text is the title, a blank line and the body: the cap counts the body.
    const body = (chars: number) => `<p>${'a'.repeat(chars)}</p>`;
    const result = await postWhileProbing('posts/sync', {
      ...target(agentId),
      posts: [
        samplePost(1, { content_html: body(2_000_000) }),
        samplePost(2, { content_html: body(2_000_001) }),
      ],
    });
    const data = dataOf(result, ZSyncResult);
    assert.deepEqual(data, {
      queued: 1,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 1,
      failures: [{ wp_id: 2, reason: 'its HTML has more than 2,000,000 characters of text' }],
    });
    expectResponsive(context, result.health);
    const docs = await t.database.db
      .selectFrom('documents')
      .select(['external_id', 'content_text'])
      .where('agent_id', '=', agentId)
      .execute();
    assert.deepEqual(
      docs.map((doc) => [doc.external_id, doc.content_text.length]),
      [['1', 'Post 1\n\n'.length + 2_000_000]],
    );
  });

  test('products: a hostile description fails alone; the other product is stored', async (context) => {
    const agentId = await newAgent();
    const result = await postWhileProbing('products/sync', {
      ...target(agentId),
      products: [sampleProduct(1, { description: nested(20_000) }), sampleProduct(2)],
    });
    const data = dataOf(result, ZSyncResult);
    assert.deepEqual(
      { ...data, failures: [] },
      { queued: 1, skipped_unchanged: 0, deleted: 0, failed: 1, failures: [] },
    );
    assert.equal(data.failures[0]?.wp_id, 1);
    assert.match(data.failures[0]?.reason ?? '', TOO_DEEP);
    expectResponsive(context, result.health);
    const docs = await documentsOf(t, agentId);
    assert.deepEqual(
      docs.map((doc) => [doc.external_id, doc.kind]),
      [['2', 'product']],
    );
  });

  test('a full sync final batch keeps a stored post whose new HTML failed (it was listed)', async (context) => {
    const agentId = await newAgent();
    const plain = await postWhileProbing('posts/sync', {
      ...target(agentId),
      posts: range(1, 3).map((wpId) => samplePost(wpId)),
    });
    assert.equal(dataOf(plain, ZSyncResult).queued, 3);
    const broken = samplePost(1, { content_html: nested(20_000), content_hash: hexHash('post-1-broken') });
    const result = await postWhileProbing('posts/sync', {
      ...target(agentId),
      posts: [broken, samplePost(2)],
      full_sync: { id: 'run-hostile', final: true },
    });
    const data = dataOf(result, ZSyncResult);
    assert.deepEqual(
      { ...data, failures: [] },
      { queued: 0, skipped_unchanged: 1, deleted: 1, failed: 1, failures: [] },
    );
    assert.equal(data.failures[0]?.wp_id, 1);
    expectResponsive(context, result.health);
    const docs = await t.database.db
      .selectFrom('documents')
      .select(['external_id', 'content_hash'])
      .where('agent_id', '=', agentId)
      .orderBy('external_id')
      .execute();
    assert.deepEqual(docs, [
      { external_id: '1', content_hash: hexHash('post-1') },
      { external_id: '2', content_hash: hexHash('post-2') },
    ]);
  });
});
