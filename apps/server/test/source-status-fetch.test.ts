import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TSource, ZSource } from '@service/contract';
import { expectData } from './support/http.js';
import { createAgent } from './support/site-sync.js';
import { origin, PAGES, PAUSE_AT, sourceStatusApp, startEmptySitemap } from './support/source-status.js';
import { documentsOfSource, jobsFor, runFetchJob, sourceRow } from './support/sources.js';
import { createTestApp, injectJson, seedTenant } from './support/test-app.js';

const s = sourceStatusApp();
const { get, create, indexPending, embed, chunksWithoutVector } = s;

describe('source status of a fetch: indexed once the fetch, every index job and the embedding run are done', () => {
  test('a sitemap whose first pages are indexed while the fetch runs is not indexed before it is all done', async () => {
    const source = await create({ type: 'sitemap', url: `${origin(s.site)}/sitemap.xml`, max_pages: 1000 });
    const seen: { status: string; documents: number; indexedMidway: number }[] = [];
    s.site.onPage = async (i) => {
      if (i !== PAUSE_AT) return;
      // A worker drains every index job queued so far, and the embedding run, mid-fetch.
      const indexedMidway = await indexPending(source.id);
      await embed();
      const row = await sourceRow(s.t, source.id);
      const documents = (await documentsOfSource(s.t, source.id)).length;
      seen.push({ status: row.status, documents, indexedMidway });
    };
    await runFetchJob(s.t, source.id);
    s.site.onPage = async () => {};

    assert.equal(seen.length, 1, 'the pause page was fetched once');
    assert.ok((seen[0]?.indexedMidway ?? 0) >= 10, 'some documents were indexed while the fetch ran');
    assert.ok((seen[0]?.documents ?? 0) < PAGES, 'the fetch was not over yet');
    assert.equal(seen[0]?.status, 'fetching', 'a source being fetched is never indexed');

    const fetched = await get(source.id);
    assert.equal(fetched.status, 'indexing', 'fetch over, index jobs pending');
    assert.equal(fetched.document_count, PAGES);
    assert.ok(fetched.progress.documents_pending > 0);
    assert.equal(fetched.progress.documents_indexed + fetched.progress.documents_pending, PAGES);

    // Any order: the last index job settles it (or leaves it for the vectors).
    assert.ok((await indexPending(source.id, 'desc')) > 0);
    const indexedOnly = await get(source.id);
    assert.equal(indexedOnly.progress.documents_pending, 0);
    assert.equal(indexedOnly.progress.documents_indexed, PAGES);
    if (s.embeddings) {
      assert.ok((await chunksWithoutVector(source.id)) > 0);
      assert.equal(indexedOnly.status, 'indexing', 'chunks without vectors: not done yet');
      assert.ok((await jobsFor(s.t, 'embed-chunks', s.agentId)) > 0, 'an embedding run is queued');
      await embed();
    }
    const done = await get(source.id);
    assert.equal(done.status, 'indexed');
    assert.equal(done.error, null);
    assert.equal(done.progress.documents_failed, 0);
    const docs = await documentsOfSource(s.t, source.id);
    assert.equal(docs.length, PAGES);
    assert.ok(docs.every((doc) => doc.index_status === 'indexed'));
    const chunks = await s.t.database.db
      .selectFrom('chunks')
      .select('document_id')
      .where(
        'document_id',
        'in',
        docs.map((doc) => doc.id),
      )
      .execute();
    assert.equal(new Set(chunks.map((c) => c.document_id)).size, PAGES, 'every page has its chunks');
    assert.equal(await chunksWithoutVector(source.id), 0, 'every chunk has its vector');

    // A fetch that finds everything unchanged queues nothing and is indexed at once.
    await runFetchJob(s.t, source.id);
    assert.equal((await get(source.id)).status, 'indexed');
  });

  test('a re-index asked for during a fetch leaves the source queued for the next fetch', async () => {
    const source = await create({ type: 'sitemap', url: `${origin(s.site)}/sitemap.xml`, max_pages: 20 });
    let during: TSource | null = null;
    s.site.onPage = async (i) => {
      if (i !== 15 || during) return;
      const res = await s.t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/sources/${source.id}/reindex`,
        headers: s.acme.auth,
      });
      during = expectData(res, 202, ZSource);
    };
    await runFetchJob(s.t, source.id);
    s.site.onPage = async () => {};
    assert.equal((during as TSource | null)?.status, 'queued');
    await indexPending(source.id);
    await embed();
    const after = await get(source.id);
    assert.equal(after.status, 'queued', 'still waiting for the fetch the re-index asked for');
    assert.equal(after.progress.last_run?.fetched, 20);

    await runFetchJob(s.t, source.id);
    await indexPending(source.id);
    await embed();
    assert.equal((await get(source.id)).status, 'indexed');
  });

  test('a sitemap that lists nothing is indexed at once with no documents', async () => {
    const empty = await startEmptySitemap();
    try {
      const local = await createTestApp({
        env: { SAFE_URL_ALLOW: `127.0.0.1:${empty.port}`, CRAWL_DELAY_MS: '0' },
      });
      try {
        const owner = await seedTenant(local, 'Empty');
        const agent = await createAgent(local, owner);
        const res = await injectJson(
          local.app,
          'POST',
          `/api/v1/admin/agents/${agent}/sources`,
          { type: 'sitemap', url: `http://127.0.0.1:${empty.port}/sitemap.xml` },
          owner.auth,
        );
        const source = expectData(res, 201, ZSource);
        await runFetchJob(local, source.id);
        const row = await sourceRow(local, source.id);
        assert.equal(row.status, 'indexed');
        assert.equal((await documentsOfSource(local, source.id)).length, 0);
      } finally {
        await local.close();
      }
    } finally {
      await empty.close();
    }
  });
});
