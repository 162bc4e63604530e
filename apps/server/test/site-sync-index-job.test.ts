import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  chunksOf,
  documentsOf,
  hexHash,
  queuedJobs,
  runIndexJob,
  samplePost,
  sampleProduct,
  siteSyncApp,
  target,
} from './support/site-sync.js';

/** A post long enough to make several chunks. */
function longPost(wpId: number, hashSeed: string) {
  const paragraphs = Array.from(
    { length: 60 },
    (_, i) => `<p>Paragraph ${i} on shipping zones, parcel tracking and delivery windows for order ${i}.</p>`,
  );
  return samplePost(wpId, { content_html: paragraphs.join(''), content_hash: hexHash(hashSeed) });
}

describe('site integration: the index-document job', () => {
  const s = siteSyncApp();

  async function syncOne(agentId: string, post: Record<string, unknown>) {
    const res = await s.sync('posts', agentId, [post]);
    assert.equal(res.statusCode, 200, res.body);
    const [doc] = await documentsOf(s.t, agentId);
    assert.ok(doc);
    return doc;
  }

  test('a synced document is queued once, then indexed into chunks at its hash', async () => {
    const agentId = await s.freshAgent();
    const jobs = await queuedJobs(s.t);
    const doc = await syncOne(agentId, longPost(1, 'long-v1'));
    assert.equal(doc.index_status, 'pending');
    assert.equal((await queuedJobs(s.t)) - jobs, 1);
    const job = await sql<{ data: { documentId: string } }>`
      select data from pgboss.job where name = 'index-document' and singleton_key = ${doc.id}`.execute(
      s.t.database.db,
    );
    assert.deepEqual(
      job.rows.map((row) => row.data),
      [{ documentId: doc.id }],
    );

    await runIndexJob(s.t, doc.id);
    const [indexed] = await documentsOf(s.t, agentId);
    assert.ok(indexed);
    assert.equal(indexed.index_status, 'indexed');
    assert.equal(indexed.indexed_hash, hexHash('long-v1'));
    assert.ok(indexed.indexed_at instanceof Date);
    const chunks = await chunksOf(s.t, doc.id);
    assert.ok(chunks.length > 1, `a long post makes several chunks, got ${chunks.length}`);
    assert.deepEqual(
      chunks.map((chunk) => chunk.ordinal),
      chunks.map((_, i) => i),
    );
    for (const chunk of chunks) {
      assert.equal(chunk.agent_id, agentId);
      assert.equal(chunk.workspace_id, s.site.tenant.workspace.id);
    }
    const hits = await s.t.database.db
      .selectFrom('chunks')
      .select('id')
      .where('document_id', '=', doc.id)
      .where(sql<boolean>`tsv @@ websearch_to_tsquery('english', ${'parcel tracking'})`)
      .execute();
    assert.ok(hits.length > 0, 'the chunks are searchable');
  });

  test('running the job twice leaves identical chunks', async () => {
    const agentId = await s.freshAgent();
    const doc = await syncOne(agentId, longPost(2, 'twice'));
    await runIndexJob(s.t, doc.id);
    const first = await chunksOf(s.t, doc.id);
    const firstDoc = await documentsOf(s.t, agentId);
    await runIndexJob(s.t, doc.id);
    assert.deepEqual(await chunksOf(s.t, doc.id), first);
    assert.deepEqual(await documentsOf(s.t, agentId), firstDoc);

    // Forced to re-run (say, a retry after a crash before the status was written): same content.
    await s.t.database.db
      .updateTable('documents')
      .set({ index_status: 'pending' })
      .where('id', '=', doc.id)
      .execute();
    await runIndexJob(s.t, doc.id);
    const again = await chunksOf(s.t, doc.id);
    const strip = (rows: typeof first) => rows.map((row) => [row.ordinal, row.content, row.tsv]);
    assert.deepEqual(strip(again), strip(first));
  });

  test('a changed hash re-indexes: old chunks replaced, indexed_hash follows', async () => {
    const agentId = await s.freshAgent();
    const doc = await syncOne(agentId, longPost(3, 'v1'));
    await runIndexJob(s.t, doc.id);
    const changed = samplePost(3, {
      content_html: '<p>Completely new short text.</p>',
      content_hash: hexHash('v2'),
    });
    await syncOne(agentId, changed);
    const [pending] = await documentsOf(s.t, agentId);
    assert.equal(pending?.index_status, 'pending');
    assert.equal(pending?.indexed_hash, hexHash('v1'));
    await runIndexJob(s.t, doc.id);
    const [indexed] = await documentsOf(s.t, agentId);
    assert.equal(indexed?.index_status, 'indexed');
    assert.equal(indexed?.indexed_hash, hexHash('v2'));
    const chunks = await chunksOf(s.t, doc.id);
    assert.equal(chunks.length, 1);
    assert.match(chunks[0]?.content ?? '', /Completely new short text\./);
  });

  test('a document deleted before the job runs: the handler is a no-op', async () => {
    const agentId = await s.freshAgent();
    const doc = await syncOne(agentId, samplePost(4));
    const deleted = await s.post('posts/changed', {
      ...target(agentId),
      action: 'delete',
      post: { wp_id: 4 },
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    const chunksBefore = await s.t.database.db.selectFrom('chunks').selectAll().orderBy('id').execute();
    await runIndexJob(s.t, doc.id);
    await runIndexJob(s.t, 'never-existed');
    assert.deepEqual(await documentsOf(s.t, agentId), []);
    assert.deepEqual(
      await s.t.database.db.selectFrom('chunks').selectAll().orderBy('id').execute(),
      chunksBefore,
    );
  });

  test('products are indexed the same way, with their facts searchable', async () => {
    const agentId = await s.freshAgent();
    const res = await s.post('products/sync', {
      ...target(agentId),
      products: [sampleProduct(5)],
    });
    assert.equal(res.statusCode, 200, res.body);
    const [doc] = await documentsOf(s.t, agentId);
    assert.ok(doc);
    await runIndexJob(s.t, doc.id);
    const chunks = await chunksOf(s.t, doc.id);
    assert.ok(chunks.length > 0);
    assert.match(chunks.map((chunk) => chunk.content).join('\n'), /Vibram/);
  });
});
