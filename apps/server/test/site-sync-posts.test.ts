import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ZSyncResult } from '@service/contract';
import { expectData, expectError, expectValidation } from './support/http.js';
import {
  createSite,
  documentsOf,
  hexHash,
  type Json,
  queuedJobs,
  range,
  runIndexJob,
  samplePost,
  siteSyncApp,
  snapshot,
  sourcesOf,
  target,
  without,
  wpPost,
} from './support/site-sync.js';
import { issueToken } from './support/test-app.js';

describe('site integration: posts/sync', () => {
  const s = siteSyncApp();

  const { freshAgent } = s;
  const sync = (agentId: string, posts: unknown[], siteUrl?: string) =>
    s.sync('posts', agentId, posts, siteUrl ? { site_url: siteUrl } : {});

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
    const jobs = await queuedJobs(s.t);
    await expectCounts(
      await sync(
        agentId,
        range(1, 50).map((id) => samplePost(id)),
      ),
      50,
      0,
    );
    const docs = await documentsOf(s.t, agentId);
    assert.equal(docs.length, 50);
    for (const doc of docs) {
      assert.equal(doc.kind, 'post');
      assert.equal(doc.index_status, 'pending');
      assert.equal(doc.content_hash, hexHash(`post-${doc.external_id}`));
      assert.equal(doc.indexed_hash, null);
    }
    assert.equal((await queuedJobs(s.t)) - jobs, 50);
  });

  test('51 posts or none → 422 naming posts; nothing stored or queued', async () => {
    const agentId = await freshAgent();
    const before = await snapshot(s.t);
    expectValidation(
      await sync(
        agentId,
        range(1, 51).map((id) => samplePost(id)),
      ),
      ['posts'],
    );
    expectValidation(await sync(agentId, []), ['posts']);
    expectValidation(await s.post('posts/sync', target(agentId)), ['posts']);
    assert.deepEqual(await snapshot(s.t), before);
  });

  test('new hash → queued and stored; same hash → skipped; changed hash → queued again', async () => {
    const agentId = await freshAgent();
    const jobs = await queuedJobs(s.t);
    await expectCounts(await sync(agentId, [samplePost(7)]), 1, 0);
    const [stored] = await documentsOf(s.t, agentId);
    assert.ok(stored);
    assert.equal(stored.external_id, '7');
    assert.equal(stored.title, 'Post 7');
    assert.equal(stored.url, 'https://shop.example.com/post-7');
    assert.equal(stored.language, 'en');
    assert.match(stored.content_text, /Body of post number 7 about returns and refunds\./);
    assert.doesNotMatch(stored.content_text, /<p>|<h2>/);
    assert.equal((await queuedJobs(s.t)) - jobs, 1);

    // Same hash (even in upper case): nothing rewritten, nothing queued.
    await runIndexJob(s.t, stored.id);
    const indexed = await documentsOf(s.t, agentId);
    const upper = samplePost(7, { content_hash: hexHash('post-7').toUpperCase(), title: 'Ignored' });
    await expectCounts(await sync(agentId, [upper]), 0, 1);
    assert.deepEqual(await documentsOf(s.t, agentId), indexed);
    assert.equal((await queuedJobs(s.t)) - jobs, 1);

    // Changed hash: content replaced, back to pending, same document row.
    const changed = samplePost(7, {
      content_hash: hexHash('v2'),
      title: 'Post 7 v2',
      content_html: '<p>New</p>',
    });
    await expectCounts(await sync(agentId, [changed]), 1, 0);
    const [after] = await documentsOf(s.t, agentId);
    assert.ok(after);
    assert.equal(after.id, stored.id);
    assert.equal(after.title, 'Post 7 v2');
    assert.equal(after.content_hash, hexHash('v2'));
    assert.equal(after.index_status, 'pending');
    assert.match(after.content_text, /New/);
    // One pending job per document: the earlier job (still waiting) covers the new content.
    assert.equal((await queuedJobs(s.t)) - jobs, 1);
  });

  test('a wp_id twice in one batch is counted once; the last one wins', async () => {
    const agentId = await freshAgent();
    const jobs = await queuedJobs(s.t);
    const first = samplePost(3, { title: 'First' });
    const last = samplePost(3, { title: 'Last', content_hash: hexHash('last') });
    await expectCounts(await sync(agentId, [first, last]), 1, 0);
    const docs = await documentsOf(s.t, agentId);
    assert.deepEqual(
      docs.map((doc) => [doc.external_id, doc.title, doc.content_hash]),
      [['3', 'Last', hexHash('last')]],
    );
    assert.equal((await queuedJobs(s.t)) - jobs, 1);
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
    const jobs = await queuedJobs(s.t);
    const batch = [
      samplePost(1),
      samplePost(2),
      samplePost(3, { content_hash: hexHash('3-v2') }),
      samplePost(4),
      samplePost(5),
    ];
    await expectCounts(await sync(agentId, batch), 3, 2);
    const docs = await documentsOf(s.t, agentId);
    assert.deepEqual(
      docs.map((doc) => doc.external_id),
      ['1', '2', '3', '4', '5'],
    );
    // Posts 4 and 5 are new documents; post 3 already had a waiting job.
    assert.equal((await queuedJobs(s.t)) - jobs, 2);
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
    const before = await snapshot(s.t);
    for (const [bad, field] of cases) {
      const posts = range(1, 50).map((id) => (id === 20 ? bad : samplePost(id)));
      expectValidation(await sync(agentId, posts), [field]);
    }
    assert.deepEqual(await snapshot(s.t), before);
    assert.deepEqual(await sourcesOf(s.t, agentId), []);
  });

  test('invalid common fields → 422; nothing stored', async () => {
    const agentId = await freshAgent();
    const before = await snapshot(s.t);
    const posts = [samplePost(1)];
    const base = { ...target(agentId), posts };
    expectValidation(await s.post('posts/sync', { ...base, site_url: 'nope' }), ['site_url']);
    expectValidation(await s.post('posts/sync', without(base, 'agent_id')), ['agent_id']);
    expectValidation(await s.post('posts/sync', without(base, 'plugin_version')), ['plugin_version']);
    expectValidation(await s.post('posts/sync', { ...base, posts: 'x' }), ['posts']);
    assert.deepEqual(await snapshot(s.t), before);
  });

  test('an unknown agent_id or another workspace’s agent → 404; nothing stored', async () => {
    const foreign = await createSite(s.t, {}, 'Foreign');
    const before = await snapshot(s.t);
    for (const agentId of ['01UNKNOWNAGENT00000000000', foreign.agentId]) {
      const res = await sync(agentId, [samplePost(1)]);
      const body = expectError(res, 404, 'not_found');
      assert.deepEqual(body.errors, {});
    }
    assert.deepEqual(await snapshot(s.t), before);
    assert.deepEqual(await documentsOf(s.t, foreign.agentId), []);
    assert.deepEqual(await sourcesOf(s.t, foreign.agentId), []);
  });

  test('one site source per agent and normalised site URL, recording the last sync', async () => {
    const agentId = await freshAgent();
    await expectCounts(await sync(agentId, [samplePost(1)], 'https://Shop.Example.com/'), 1, 0);
    const [first] = await sourcesOf(s.t, agentId);
    assert.ok(first);
    assert.equal(first.type, 'site');
    assert.equal(first.site_url, 'https://shop.example.com');
    assert.equal(first.plugin_base, 'https://shop.example.com/wp-json/service/v1/');
    assert.equal(first.plugin_version, '1.2.0');
    assert.equal(first.api_token_id, s.site.tokenId);
    assert.equal(first.workspace_id, s.site.tenant.workspace.id);
    assert.ok(first.last_synced_at instanceof Date);

    // Same site spelled differently, a newer plugin and another token: the same row, updated.
    const second = (await issueToken(s.t, s.site.tenant, ['wp:integration'])).token;
    const body = {
      ...target(agentId, 'https://shop.example.com'),
      plugin_version: '1.3.0',
      posts: [samplePost(2)],
    };
    const res = await wpPost(s.t, 'posts/sync', second, body);
    await expectCounts(res, 1, 0);
    const sources = await sourcesOf(s.t, agentId);
    assert.equal(sources.length, 1);
    const [updated] = sources;
    assert.ok(updated && first.last_synced_at);
    assert.equal(updated.id, first.id);
    assert.equal(updated.plugin_version, '1.3.0');
    assert.notEqual(updated.api_token_id, s.site.tokenId);
    assert.equal(updated.plugin_base, 'https://shop.example.com/wp-json/service/v1/');
    assert.ok(updated.last_synced_at && updated.last_synced_at >= first.last_synced_at);
    const docs = await documentsOf(s.t, agentId);
    assert.deepEqual(new Set(docs.map((doc) => doc.source_id)), new Set([first.id]));

    // The first post again, under yet another spelling of the site: the same document, unchanged.
    await expectCounts(await sync(agentId, [samplePost(1)], 'HTTPS://SHOP.EXAMPLE.COM:443/'), 0, 1);

    // Another site is another source.
    await expectCounts(await sync(agentId, [samplePost(1)], 'https://blog.example.com'), 1, 0);
    assert.equal((await sourcesOf(s.t, agentId)).length, 2);
  });

  test('posts never change the agent’s site_type', async () => {
    const agentId = await freshAgent();
    await expectCounts(await sync(agentId, [samplePost(1)]), 1, 0);
    const agent = await s.t.database.db
      .selectFrom('agents')
      .select('site_type')
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow();
    assert.equal(agent.site_type, 'generic');
  });
});
