import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { runIndexJob, siteSyncApp } from './support/site-sync.js';
import { injectJson } from './support/test-app.js';

const s = siteSyncApp({ env: {} });

test('handshake, signed posts sync, unchanged skip, and indexing', async () => {
  const hs = await injectJson(
    s.t.app,
    'POST',
    '/api/v1/wp/handshake',
    {
      site_url: 'https://Shop.example.com/',
      plugin_version: '1.2.0',
      commerce_active: true,
      cms_version: '6.5',
    },
    { authorization: `Bearer ${s.site.token}` },
  );
  assert.equal(hs.statusCode, 200, hs.body);
  assert.equal(hs.json().data.recommended_site_type, 'ecommerce');
  assert.equal(hs.json().data.agents.length, 1);

  const post = {
    wp_id: 7,
    post_type: 'page',
    permalink: 'https://shop.example.com/returns',
    title: 'Returns policy',
    content_html: '<h2>Returns</h2><p>You can return any item within 30 days for a full refund.</p>',
    excerpt: '',
    content_hash: 'abc123abc123',
    modified_at: '2026-11-01T10:00:00+00:00',
    language: 'en',
    taxonomy_terms: ['policy'],
  };
  const body = {
    agent_id: s.site.agentId,
    site_url: 'https://shop.example.com',
    plugin_version: '1.2.0',
    posts: [post],
  };
  const first = await s.post('posts/sync', body);
  assert.equal(first.statusCode, 200, first.body);
  assert.deepEqual(first.json().data, {
    queued: 1,
    skipped_unchanged: 0,
    deleted: 0,
    failed: 0,
    failures: [],
  });
  const again = await s.post('posts/sync', body);
  assert.deepEqual(again.json().data, {
    queued: 0,
    skipped_unchanged: 1,
    deleted: 0,
    failed: 0,
    failures: [],
  });
  const unsigned = await injectJson(s.t.app, 'POST', '/api/v1/wp/posts/sync', body, {
    authorization: `Bearer ${s.site.token}`,
  });
  assert.equal(unsigned.statusCode, 401);
  assert.equal(unsigned.json().code, 'missing_signature');

  const doc = await s.t.database.db.selectFrom('documents').selectAll().executeTakeFirstOrThrow();
  await runIndexJob(s.t, doc.id);
  const hits = await s.t.database.db
    .selectFrom('chunks')
    .select('content')
    .where('document_id', '=', doc.id)
    .where(sql<boolean>`tsv @@ websearch_to_tsquery('english', ${'refund'})`)
    .execute();
  assert.equal(hits.length, 1);
});
