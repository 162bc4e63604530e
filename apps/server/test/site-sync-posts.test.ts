import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZSyncResult } from '@service/contract';
import { expectData, expectError, expectValidation } from './support/http.js';
import {
  createAgent,
  createSite,
  documentsOf,
  hexHash,
  type Json,
  queuedJobs,
  range,
  runIndexJob,
  type Site,
  samplePost,
  snapshot,
  sourcesOf,
  target,
  UNTHROTTLED,
  without,
  wpPost,
} from './support/site-sync.js';
import { createTestApp, issueToken, type TestApp } from './support/test-app.js';

describe('site integration: posts/sync', () => {
  let t: TestApp;
  let site: Site;

  before(async () => {
    t = await createTestApp({ env: UNTHROTTLED });
    site = await createSite(t);
  });
  after(() => t.close());

  /** A fresh agent in the site's workspace, so each test starts from no documents. */
  const freshAgent = () => createAgent(t, site.tenant);

  function sync(agentId: string, posts: unknown[], siteUrl?: string) {
    return wpPost(t, 'posts/sync', site.token, { ...target(agentId, siteUrl), posts });
  }

  async function expectCounts(res: Awaited<ReturnType<typeof sync>>, queued: number, skipped: number) {
    assert.deepEqual(expectData(res, 200, ZSyncResult), {
      queued,
      skipped_unchanged: skipped,
      deleted: 0,
      failed: 0,
      failures: [],
    });
  }

  test('50 posts are accepted: each stored pending and queued once', async () => {
    const agentId = await freshAgent();
    const jobs = await queuedJobs(t);
    await expectCounts(
      await sync(
        agentId,
        range(1, 50).map((id) => samplePost(id)),
      ),
      50,
      0,
    );
    const docs = await documentsOf(t, agentId);
    assert.equal(docs.length, 50);
    for (const doc of docs) {
      assert.equal(doc.kind, 'post');
      assert.equal(doc.index_status, 'pending');
      assert.equal(doc.content_hash, hexHash(`post-${doc.external_id}`));
      assert.equal(doc.indexed_hash, null);
    }
    assert.equal((await queuedJobs(t)) - jobs, 50);
  });

  test('51 posts or none → 422 naming posts; nothing stored or queued', async () => {
    const agentId = await freshAgent();
    const before = await snapshot(t);
    expectValidation(
      await sync(
        agentId,
        range(1, 51).map((id) => samplePost(id)),
      ),
      ['posts'],
    );
    expectValidation(await sync(agentId, []), ['posts']);
    expectValidation(await wpPost(t, 'posts/sync', site.token, target(agentId)), ['posts']);
    assert.deepEqual(await snapshot(t), before);
  });

  test('new hash → queued and stored; same hash → skipped; changed hash → queued again', async () => {
    const agentId = await freshAgent();
    const jobs = await queuedJobs(t);
    await expectCounts(await sync(agentId, [samplePost(7)]), 1, 0);
    const [stored] = await documentsOf(t, agentId);
    assert.ok(stored);
    assert.equal(stored.external_id, '7');
    assert.equal(stored.title, 'Post 7');
    assert.equal(stored.url, 'https://shop.example.com/post-7');
    assert.equal(stored.language, 'en');
    assert.match(stored.content_text, /Body of post number 7 about returns and refunds\./);
    assert.doesNotMatch(stored.content_text, /<p>|<h2>/);
    assert.equal((await queuedJobs(t)) - jobs, 1);

    // Same hash (even in upper case): nothing rewritten, nothing queued.
    await runIndexJob(t, stored.id);
    const indexed = await documentsOf(t, agentId);
    const upper = samplePost(7, { content_hash: hexHash('post-7').toUpperCase(), title: 'Ignored' });
    await expectCounts(await sync(agentId, [upper]), 0, 1);
    assert.deepEqual(await documentsOf(t, agentId), indexed);
    assert.equal((await queuedJobs(t)) - jobs, 1);

    // Changed hash: content replaced, back to pending, same document row.
    const changed = samplePost(7, {
      content_hash: hexHash('v2'),
      title: 'Post 7 v2',
      content_html: '<p>New</p>',
    });
    await expectCounts(await sync(agentId, [changed]), 1, 0);
    const [after] = await documentsOf(t, agentId);
    assert.ok(after);
    assert.equal(after.id, stored.id);
    assert.equal(after.title, 'Post 7 v2');
    assert.equal(after.content_hash, hexHash('v2'));
    assert.equal(after.index_status, 'pending');
    assert.match(after.content_text, /New/);
    // One pending job per document: the earlier job (still waiting) covers the new content.
    assert.equal((await queuedJobs(t)) - jobs, 1);
  });

  test('a wp_id twice in one batch is counted once; the last one wins', async () => {
    const agentId = await freshAgent();
    const jobs = await queuedJobs(t);
    const first = samplePost(3, { title: 'First' });
    const last = samplePost(3, { title: 'Last', content_hash: hexHash('last') });
    await expectCounts(await sync(agentId, [first, last]), 1, 0);
    const docs = await documentsOf(t, agentId);
    assert.deepEqual(
      docs.map((doc) => [doc.external_id, doc.title, doc.content_hash]),
      [['3', 'Last', hexHash('last')]],
    );
    assert.equal((await queuedJobs(t)) - jobs, 1);
  });

  test('a mixed batch counts new, changed and unchanged posts', async () => {
    const agentId = await freshAgent();
    await expectCounts(
      await sync(
        agentId,
        [1, 2, 3].map((id) => samplePost(id)),
      ),
      3,
      0,
    );
    const jobs = await queuedJobs(t);
    const batch = [
      samplePost(1),
      samplePost(2),
      samplePost(3, { content_hash: hexHash('3-v2') }),
      samplePost(4),
      samplePost(5),
    ];
    await expectCounts(await sync(agentId, batch), 3, 2);
    const docs = await documentsOf(t, agentId);
    assert.deepEqual(
      docs.map((doc) => doc.external_id),
      ['1', '2', '3', '4', '5'],
    );
    // Posts 4 and 5 are new documents; post 3 already had a waiting job.
    assert.equal((await queuedJobs(t)) - jobs, 2);
  });

  test('one invalid post among 50 → 422 naming it; the whole batch is rejected', async () => {
    const agentId = await freshAgent();
    const cases: Array<[Json, string]> = [
      [samplePost(20, { permalink: 'not a url' }), 'posts.19.permalink'],
      [samplePost(20, { permalink: 'javascript:alert(1)' }), 'posts.19.permalink'],
      [samplePost(20, { modified_at: '2026-11-01T10:00:00' }), 'posts.19.modified_at'],
      [samplePost(20, { modified_at: '1 November 2026' }), 'posts.19.modified_at'],
      [without(samplePost(20), 'content_hash'), 'posts.19.content_hash'],
      [samplePost(20, { content_hash: 'not-hex!' }), 'posts.19.content_hash'],
      [samplePost(20, { wp_id: '20' }), 'posts.19.wp_id'],
      [samplePost(20, { wp_id: 0 }), 'posts.19.wp_id'],
      [samplePost(20, { wp_id: 2.5 }), 'posts.19.wp_id'],
      [samplePost(20, { taxonomy_terms: 'news' }), 'posts.19.taxonomy_terms'],
    ];
    const before = await snapshot(t);
    for (const [bad, field] of cases) {
      const posts = range(1, 50).map((id) => (id === 20 ? bad : samplePost(id)));
      expectValidation(await sync(agentId, posts), [field]);
    }
    assert.deepEqual(await snapshot(t), before);
    assert.deepEqual(await sourcesOf(t, agentId), []);
  });

  test('invalid common fields → 422; nothing stored', async () => {
    const agentId = await freshAgent();
    const before = await snapshot(t);
    const posts = [samplePost(1)];
    const base = { ...target(agentId), posts };
    expectValidation(await wpPost(t, 'posts/sync', site.token, { ...base, site_url: 'nope' }), ['site_url']);
    expectValidation(await wpPost(t, 'posts/sync', site.token, without(base, 'agent_id')), ['agent_id']);
    expectValidation(await wpPost(t, 'posts/sync', site.token, without(base, 'plugin_version')), [
      'plugin_version',
    ]);
    expectValidation(await wpPost(t, 'posts/sync', site.token, { ...base, posts: 'x' }), ['posts']);
    assert.deepEqual(await snapshot(t), before);
  });

  test('an unknown agent_id or another workspace’s agent → 404; nothing stored', async () => {
    const foreign = await createSite(t, {}, 'Foreign');
    const before = await snapshot(t);
    for (const agentId of ['01UNKNOWNAGENT00000000000', foreign.agentId]) {
      const res = await sync(agentId, [samplePost(1)]);
      const body = expectError(res, 404, 'not_found');
      assert.deepEqual(body.errors, {});
    }
    assert.deepEqual(await snapshot(t), before);
    assert.deepEqual(await documentsOf(t, foreign.agentId), []);
    assert.deepEqual(await sourcesOf(t, foreign.agentId), []);
  });

  test('one site source per agent and normalised site URL, recording the last sync', async () => {
    const agentId = await freshAgent();
    await expectCounts(await sync(agentId, [samplePost(1)], 'https://Shop.Example.com/'), 1, 0);
    const [first] = await sourcesOf(t, agentId);
    assert.ok(first);
    assert.equal(first.type, 'site');
    assert.equal(first.site_url, 'https://shop.example.com');
    assert.equal(first.plugin_base, 'https://shop.example.com/wp-json/service/v1/');
    assert.equal(first.plugin_version, '1.2.0');
    assert.equal(first.api_token_id, site.tokenId);
    assert.equal(first.workspace_id, site.tenant.workspace.id);
    assert.ok(first.last_synced_at instanceof Date);

    // Same site spelled differently, a newer plugin and another token: the same row, updated.
    const second = (await issueToken(t, site.tenant, ['wp:integration'])).token;
    const body = {
      ...target(agentId, 'https://shop.example.com'),
      plugin_version: '1.3.0',
      posts: [samplePost(2)],
    };
    const res = await wpPost(t, 'posts/sync', second, body);
    await expectCounts(res, 1, 0);
    const sources = await sourcesOf(t, agentId);
    assert.equal(sources.length, 1);
    const [updated] = sources;
    assert.ok(updated && first.last_synced_at);
    assert.equal(updated.id, first.id);
    assert.equal(updated.plugin_version, '1.3.0');
    assert.notEqual(updated.api_token_id, site.tokenId);
    assert.equal(updated.plugin_base, 'https://shop.example.com/wp-json/service/v1/');
    assert.ok(updated.last_synced_at && updated.last_synced_at >= first.last_synced_at);
    const docs = await documentsOf(t, agentId);
    assert.deepEqual(new Set(docs.map((doc) => doc.source_id)), new Set([first.id]));

    // The first post again, under yet another spelling of the site: the same document, unchanged.
    await expectCounts(await sync(agentId, [samplePost(1)], 'HTTPS://SHOP.EXAMPLE.COM:443/'), 0, 1);

    // Another site is another source.
    await expectCounts(await sync(agentId, [samplePost(1)], 'https://blog.example.com'), 1, 0);
    assert.equal((await sourcesOf(t, agentId)).length, 2);
  });

  test('posts never change the agent’s site_type', async () => {
    const agentId = await freshAgent();
    await expectCounts(await sync(agentId, [samplePost(1)]), 1, 0);
    const agent = await t.database.db
      .selectFrom('agents')
      .select('site_type')
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow();
    assert.equal(agent.site_type, 'generic');
  });
});
