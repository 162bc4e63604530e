import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ZSource } from '@service/contract';
import type { EmbeddingProvider } from '../src/embeddings/index.js';
import { embedChunksJob } from '../src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { expectData } from './support/http.js';
import { dbFailingFirstTransaction, origin, sourceStatusApp } from './support/source-status.js';
import { documentsOfSource, runFetchJob } from './support/sources.js';

const s = sourceStatusApp();
const { get, create, jobContext, indexPending, embed } = s;

describe('source status after index jobs and embedding runs: settled, failed, or with the count in error', () => {
  test('a text source is indexed only after its index job and its vectors', async () => {
    const source = await create({
      type: 'text',
      text: 'Our lanterns are repaired for free within two years.',
    });
    assert.equal(source.status, 'indexing');
    await indexPending(source.id);
    if (s.embeddings) {
      assert.equal((await get(source.id)).status, 'indexing', 'vectors pending');
      await embed();
    }
    const done = await get(source.id);
    assert.equal(done.status, 'indexed');
    assert.equal(done.progress.documents_indexed, 1);
  });

  test('an index job that gives up marks its document failed: the source ends, with the count in error', async () => {
    const first = await create({ type: 'text', text: 'Stores open at nine on weekdays.' });
    const second = await create({ type: 'text', text: 'Stores close at six on Saturdays.' });
    const failingDb = dbFailingFirstTransaction(s.t.database.db);
    const [doc] = await documentsOfSource(s.t, second.id);
    assert.ok(doc);

    // An attempt with retries left fails and changes nothing.
    await assert.rejects(
      indexDocumentJob.handle(
        { documentId: doc.id },
        jobContext(dbFailingFirstTransaction(s.t.database.db), 1),
      ),
      /boom/,
    );
    assert.equal((await documentsOfSource(s.t, second.id))[0]?.index_status, 'pending');
    assert.equal((await get(second.id)).status, 'indexing');

    // The last attempt (the 6th: 5 retries) fails too: the document is failed and the source settles.
    await assert.rejects(indexDocumentJob.handle({ documentId: doc.id }, jobContext(failingDb, 6)), /boom/);
    assert.equal((await documentsOfSource(s.t, second.id))[0]?.index_status, 'failed');
    const failed = await get(second.id);
    assert.equal(failed.status, 'failed', 'nothing of it could be indexed');
    assert.equal(failed.error, '1 of 1 documents could not be indexed');
    assert.equal(failed.progress.documents_failed, 1);
    assert.equal(failed.progress.documents_pending, 0);

    // A re-index queues the failed document again; this time it works.
    const res = await s.t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${second.id}/reindex`,
      headers: s.acme.auth,
    });
    assert.equal(expectData(res, 202, ZSource).status, 'indexing');
    assert.equal(
      (await get(second.id)).progress.documents_pending,
      1,
      'the failed document is pending again',
    );
    await indexPending(second.id);
    await indexPending(first.id);
    if (s.embeddings) await embed();
    assert.equal((await get(second.id)).status, 'indexed');
    assert.equal((await get(second.id)).error, null);
    assert.equal((await get(first.id)).status, 'indexed');
  });

  test('a source with some failed documents is indexed, with the count in error', async () => {
    const source = await create({ type: 'sitemap', url: `${origin(s.site)}/sitemap.xml`, max_pages: 3 });
    await runFetchJob(s.t, source.id);
    const docs = await documentsOfSource(s.t, source.id);
    assert.equal(docs.length, 3);
    const broken = docs[0];
    assert.ok(broken);
    await assert.rejects(
      indexDocumentJob.handle(
        { documentId: broken.id },
        jobContext(dbFailingFirstTransaction(s.t.database.db), 6),
      ),
    );
    assert.equal((await get(source.id)).status, 'indexing', 'two documents still pending');
    await indexPending(source.id);
    if (s.embeddings) await embed();
    const done = await get(source.id);
    assert.equal(done.status, 'indexed');
    assert.equal(done.error, '1 of 3 documents could not be indexed');
    assert.equal(done.progress.documents_indexed, 2);
    assert.equal(done.progress.documents_failed, 1);
  });

  test('an embedding run that gives up settles the source without vectors, and says so', async (ctx) => {
    if (!s.embeddings) return ctx.skip('no vectors on this engine');
    const source = await create({ type: 'text', text: 'Lantern batteries are shipped separately.' });
    await indexPending(source.id);
    assert.equal((await get(source.id)).status, 'indexing');
    const broken: EmbeddingProvider = {
      ...s.embeddings,
      key: s.embeddings.key,
      embed: () => Promise.reject(new Error('embeddings server down')),
    };
    const context = { ...jobContext(), embeddings: broken };
    await assert.rejects(embedChunksJob.handle({ agentId: s.agentId }, context), /down/);
    assert.equal((await get(source.id)).status, 'indexing', 'retries left: still waiting');
    await assert.rejects(embedChunksJob.handle({ agentId: s.agentId }, { ...context, attempt: 9 }), /down/);
    const settled = await get(source.id);
    assert.equal(settled.status, 'indexed');
    assert.equal(settled.error, 'vectors could not be computed; full-text search only');
  });
});
