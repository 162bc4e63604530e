import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type TSource, ZSource } from '@service/contract';
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.js';
import type { EmbeddingProvider } from '../src/embeddings/index.js';
import { embedChunksJob } from '../src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { createLogger } from '../src/logger.js';
import { expectData } from './support/http.js';
import { createAgent } from './support/site-sync.js';
import { completeJobs, documentsOfSource, jobsFor, runFetchJob, sourceRow } from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

/** Pages the sitemap lists: several flushes of the crawl (it stores 10 pages per transaction). */
const PAGES = 60;
/**
 * While serving this page, the test site runs every index job queued so far (as a worker would):
 * by then the first flush (10 pages) is stored. Early, so that work stays well within the
 * crawl's 15 s page budget even on a loaded machine.
 */
const PAUSE_AT = 12;

type Site = {
  port: number;
  /** Called before answering a page request; its promise is awaited. */
  onPage: (i: number) => Promise<void>;
  close(): Promise<void>;
};

/** A sitemap of PAGES pages on 127.0.0.1; `onPage` runs while the crawl waits for a page. */
async function startSite(): Promise<Site> {
  const site: Site = { port: 0, onPage: async () => {}, close: async () => {} };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    if (path === '/sitemap.xml') {
      const urls = Array.from({ length: PAGES }, (_, i) => `<url><loc>${origin(site)}/p/${i}</loc></url>`);
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`,
      );
    }
    const match = /^\/p\/(\d+)$/.exec(path);
    if (!match) return res.writeHead(404, { 'content-type': 'text/plain' }).end('none');
    const i = Number(match[1]);
    return void site
      .onPage(i)
      .then(() =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1>` +
              `<p>Guide ${i}: the lantern model ${i} keeps its charge for ${i + 3} nights on the trail.</p></main></body></html>`,
          ),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.port = (server.address() as AddressInfo).port;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

const origin = (site: Site) => `http://127.0.0.1:${site.port}`;

describe('source status: indexed means the fetch, every index job and the embedding run are done', () => {
  let t: TestApp;
  let site: Site;
  let acme: Tenant;
  let agentId: string;
  let embeddings: EmbeddingProvider | null;

  const get = async (id: string) =>
    expectData(await t.app.inject({ url: `/api/v1/admin/sources/${id}`, headers: acme.auth }), 200, ZSource);
  const create = async (body: unknown) =>
    expectData(
      await injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/sources`, body, acme.auth),
      201,
      ZSource,
    );
  const jobContext = (db: Kysely<DB> = t.database.db, attempt = 1) => ({
    db,
    clock: t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt,
    embeddings,
    queue: t.queue,
  });
  /** Runs the index job of every pending document of the source, in the given order. */
  const indexPending = async (sourceId: string, order: 'asc' | 'desc' = 'asc') => {
    const pending = await t.database.db
      .selectFrom('documents')
      .select('id')
      .where('source_id', '=', sourceId)
      .where('index_status', '=', 'pending')
      .orderBy('id', order)
      .execute();
    for (const doc of pending) {
      await indexDocumentJob.handle({ documentId: doc.id }, jobContext());
      await completeJobs(t, 'index-document', doc.id);
    }
    return pending.length;
  };
  /** Runs the agent's embedding run, as the worker would once the index jobs queued it. */
  const embed = async () => {
    await embedChunksJob.handle({ agentId }, jobContext());
    await completeJobs(t, 'embed-chunks', agentId);
  };
  /** Chunks of the source without a vector under the active provider. */
  const chunksWithoutVector = async (sourceId: string) => {
    if (!embeddings) return 0;
    const key = embeddings.key;
    const row = await t.database.db
      .selectFrom('chunks')
      .innerJoin('documents', 'documents.id', 'chunks.document_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('documents.source_id', '=', sourceId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('embeddings')
              .select('embeddings.content_hash')
              .whereRef('embeddings.agent_id', '=', 'chunks.agent_id')
              .whereRef('embeddings.content_hash', '=', 'chunks.content_hash')
              .where('embeddings.model', '=', key),
          ),
        ),
      )
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  before(async () => {
    site = await startSite();
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${site.port}`, CRAWL_DELAY_MS: '0' } });
    embeddings = t.embeddings;
    acme = await seedTenant(t, 'Acme');
    agentId = await createAgent(t, acme, { language_default: 'en' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  test('a sitemap whose first pages are indexed while the fetch runs is not indexed before it is all done', async () => {
    const source = await create({ type: 'sitemap', url: `${origin(site)}/sitemap.xml`, max_pages: 1000 });
    const seen: { status: string; documents: number; indexedMidway: number }[] = [];
    site.onPage = async (i) => {
      if (i !== PAUSE_AT) return;
      // A worker drains every index job queued so far, and the embedding run, mid-fetch.
      const indexedMidway = await indexPending(source.id);
      await embed();
      const row = await sourceRow(t, source.id);
      const documents = (await documentsOfSource(t, source.id)).length;
      seen.push({ status: row.status, documents, indexedMidway });
    };
    await runFetchJob(t, source.id);
    site.onPage = async () => {};

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
    if (embeddings) {
      assert.ok((await chunksWithoutVector(source.id)) > 0);
      assert.equal(indexedOnly.status, 'indexing', 'chunks without vectors: not done yet');
      assert.ok((await jobsFor(t, 'embed-chunks', agentId)) > 0, 'an embedding run is queued');
      await embed();
    }
    const done = await get(source.id);
    assert.equal(done.status, 'indexed');
    assert.equal(done.error, null);
    assert.equal(done.progress.documents_failed, 0);
    const docs = await documentsOfSource(t, source.id);
    assert.equal(docs.length, PAGES);
    assert.ok(docs.every((doc) => doc.index_status === 'indexed'));
    const chunks = await t.database.db
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
    await runFetchJob(t, source.id);
    assert.equal((await get(source.id)).status, 'indexed');
  });

  test('a re-index asked for during a fetch leaves the source queued for the next fetch', async () => {
    const source = await create({ type: 'sitemap', url: `${origin(site)}/sitemap.xml`, max_pages: 20 });
    let during: TSource | null = null;
    site.onPage = async (i) => {
      if (i !== 15 || during) return;
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/sources/${source.id}/reindex`,
        headers: acme.auth,
      });
      during = expectData(res, 202, ZSource);
    };
    await runFetchJob(t, source.id);
    site.onPage = async () => {};
    assert.equal((during as TSource | null)?.status, 'queued');
    await indexPending(source.id);
    await embed();
    const after = await get(source.id);
    assert.equal(after.status, 'queued', 'still waiting for the fetch the re-index asked for');
    assert.equal(after.progress.last_run?.fetched, 20);

    await runFetchJob(t, source.id);
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

  test('a text source is indexed only after its index job and its vectors', async () => {
    const source = await create({
      type: 'text',
      text: 'Our lanterns are repaired for free within two years.',
    });
    assert.equal(source.status, 'indexing');
    await indexPending(source.id);
    if (embeddings) {
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
    const failingDb = dbFailingFirstTransaction(t.database.db);
    const [doc] = await documentsOfSource(t, second.id);
    assert.ok(doc);

    // An attempt with retries left fails and changes nothing.
    await assert.rejects(
      indexDocumentJob.handle(
        { documentId: doc.id },
        jobContext(dbFailingFirstTransaction(t.database.db), 1),
      ),
      /boom/,
    );
    assert.equal((await documentsOfSource(t, second.id))[0]?.index_status, 'pending');
    assert.equal((await get(second.id)).status, 'indexing');

    // The last attempt (the 6th: 5 retries) fails too: the document is failed and the source settles.
    await assert.rejects(indexDocumentJob.handle({ documentId: doc.id }, jobContext(failingDb, 6)), /boom/);
    assert.equal((await documentsOfSource(t, second.id))[0]?.index_status, 'failed');
    const failed = await get(second.id);
    assert.equal(failed.status, 'failed', 'nothing of it could be indexed');
    assert.equal(failed.error, '1 of 1 documents could not be indexed');
    assert.equal(failed.progress.documents_failed, 1);
    assert.equal(failed.progress.documents_pending, 0);

    // A re-index queues the failed document again; this time it works.
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${second.id}/reindex`,
      headers: acme.auth,
    });
    assert.equal(expectData(res, 202, ZSource).status, 'indexing');
    assert.equal(
      (await get(second.id)).progress.documents_pending,
      1,
      'the failed document is pending again',
    );
    await indexPending(second.id);
    await indexPending(first.id);
    if (embeddings) await embed();
    assert.equal((await get(second.id)).status, 'indexed');
    assert.equal((await get(second.id)).error, null);
    assert.equal((await get(first.id)).status, 'indexed');
  });

  test('a source with some failed documents is indexed, with the count in error', async () => {
    const source = await create({ type: 'sitemap', url: `${origin(site)}/sitemap.xml`, max_pages: 3 });
    await runFetchJob(t, source.id);
    const docs = await documentsOfSource(t, source.id);
    assert.equal(docs.length, 3);
    const broken = docs[0];
    assert.ok(broken);
    await assert.rejects(
      indexDocumentJob.handle(
        { documentId: broken.id },
        jobContext(dbFailingFirstTransaction(t.database.db), 6),
      ),
    );
    assert.equal((await get(source.id)).status, 'indexing', 'two documents still pending');
    await indexPending(source.id);
    if (embeddings) await embed();
    const done = await get(source.id);
    assert.equal(done.status, 'indexed');
    assert.equal(done.error, '1 of 3 documents could not be indexed');
    assert.equal(done.progress.documents_indexed, 2);
    assert.equal(done.progress.documents_failed, 1);
  });

  test('an embedding run that gives up settles the source without vectors, and says so', async (ctx) => {
    if (!embeddings) return ctx.skip('no vectors on this engine');
    const source = await create({ type: 'text', text: 'Lantern batteries are shipped separately.' });
    await indexPending(source.id);
    assert.equal((await get(source.id)).status, 'indexing');
    const broken: EmbeddingProvider = {
      ...embeddings,
      key: embeddings.key,
      embed: () => Promise.reject(new Error('embeddings server down')),
    };
    const context = { ...jobContext(), embeddings: broken };
    await assert.rejects(embedChunksJob.handle({ agentId }, context), /down/);
    assert.equal((await get(source.id)).status, 'indexing', 'retries left: still waiting');
    await assert.rejects(embedChunksJob.handle({ agentId }, { ...context, attempt: 9 }), /down/);
    const settled = await get(source.id);
    assert.equal(settled.status, 'indexed');
    assert.equal(settled.error, 'vectors could not be computed; full-text search only');
  });
});

/** A db handle whose first `transaction()` throws `boom` (an index job failing mid-way); the rest works. */
function dbFailingFirstTransaction(db: Kysely<DB>): Kysely<DB> {
  let failed = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction' && !failed) {
        failed = true;
        return () => ({
          execute: () => Promise.reject(new Error('boom')),
        });
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A site whose sitemap lists no page. */
async function startEmptySitemap(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === '/sitemap.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>',
      );
    }
    return res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
