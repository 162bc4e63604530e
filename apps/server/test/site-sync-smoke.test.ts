import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { createLogger } from '../src/logger.js';
import { wpPost } from './support/site-sync.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

let t: TestApp;
let tenant: Tenant;
let token: string;
let agentId: string;

before(async () => {
  t = await createTestApp();
  tenant = await seedTenant(t);
  token = (await issueToken(t, tenant, ['wp:integration'])).token;
  const agent = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Shop bot' }, tenant.auth);
  agentId = agent.json().data.id;
});
after(() => t.close());

test('handshake, signed posts sync, unchanged skip, and indexing', async () => {
  const hs = await injectJson(
    t.app,
    'POST',
    '/api/v1/wp/handshake',
    {
      site_url: 'https://Shop.example.com/',
      plugin_version: '1.2.0',
      commerce_active: true,
      cms_version: '6.5',
    },
    { authorization: `Bearer ${token}` },
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
    agent_id: agentId,
    site_url: 'https://shop.example.com',
    plugin_version: '1.2.0',
    posts: [post],
  };
  const first = await wpPost(t, 'posts/sync', token, body);
  assert.equal(first.statusCode, 200, first.body);
  assert.deepEqual(first.json().data, {
    queued: 1,
    skipped_unchanged: 0,
    deleted: 0,
    failed: 0,
    failures: [],
  });
  const again = await wpPost(t, 'posts/sync', token, body);
  assert.deepEqual(again.json().data, {
    queued: 0,
    skipped_unchanged: 1,
    deleted: 0,
    failed: 0,
    failures: [],
  });
  const unsigned = await injectJson(t.app, 'POST', '/api/v1/wp/posts/sync', body, {
    authorization: `Bearer ${token}`,
  });
  assert.equal(unsigned.statusCode, 401);
  assert.equal(unsigned.json().code, 'missing_signature');

  const doc = await t.database.db.selectFrom('documents').selectAll().executeTakeFirstOrThrow();
  await indexDocumentJob.handle(
    { documentId: doc.id },
    { db: t.database.db, log: createLogger('silent'), jobId: 'x', attempt: 1, queue: t.queue },
  );
  const hits = await t.database.db
    .selectFrom('chunks')
    .select('content')
    .where('document_id', '=', doc.id)
    .where(sql<boolean>`tsv @@ websearch_to_tsquery('english', ${'refund'})`)
    .execute();
  assert.equal(hits.length, 1);
});
