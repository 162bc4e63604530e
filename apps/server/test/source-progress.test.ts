import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type TSource, ZSource, ZSourceFailure } from '@service/contract';
import { z } from 'zod';
import { embedChunksJob } from '../src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { createLogger } from '../src/logger.js';
import { expectData } from './support/http.js';
import { createAgent } from './support/site-sync.js';
import { completeJobs, runFetchJob } from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

/** Pages the sitemap lists; every fifth one (4, 9, …) answers 500 while `broken` is set. */
const PAGES = 30;
const FAILING = [4, 9, 14, 19, 24, 29];
/** While serving this page the test reads the source as an admin would, mid-fetch. */
const PAUSE_AT = 22;

const ZFailurePage = z.object({
  data: z.array(ZSourceFailure),
  meta: z.object({ next_cursor: z.string().nullable() }),
});

type Site = { port: number; broken: boolean; onPage: (i: number) => Promise<void>; close(): Promise<void> };

async function startSite(): Promise<Site> {
  const site: Site = { port: 0, broken: true, onPage: async () => {}, close: async () => {} };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const base = `http://127.0.0.1:${site.port}`;
    if (path === '/sitemap.xml') {
      const urls = Array.from({ length: PAGES }, (_, i) => `<url><loc>${base}/p/${i}</loc></url>`).join('');
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
      );
    }
    const i = Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? Number.NaN);
    if (!Number.isInteger(i)) return res.writeHead(404).end();
    return void site.onPage(i).then(() => {
      if (site.broken && FAILING.includes(i)) {
        res.writeHead(500, { 'content-type': 'text/html' }).end('<p>down</p>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><title>Lamp ${i}</title></head><body><main><h1>Lamp ${i}</h1>` +
          `<p>The brass lamp number ${i} burns for ${i + 2} hours on one filling of oil.</p></main></body></html>`,
      );
    });
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

describe('source progress: live counts, chunks embedded, every failed page listed', () => {
  let t: TestApp;
  let site: Site;
  let acme: Tenant;
  let other: Tenant;
  let agentId: string;

  before(async () => {
    site = await startSite();
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${site.port}`, CRAWL_DELAY_MS: '0' } });
    acme = await seedTenant(t, 'Acme');
    other = await seedTenant(t, 'Other');
    agentId = await createAgent(t, acme, { language_default: 'en' });
  });
  after(async () => {
    await t?.close();
    await site?.close();
  });

  const get = async (id: string, tenant: Tenant = acme) =>
    expectData(
      await t.app.inject({ url: `/api/v1/admin/sources/${id}`, headers: tenant.auth }),
      200,
      ZSource,
    );
  const failures = (id: string, query = '', tenant: Tenant = acme) =>
    t.app.inject({ url: `/api/v1/admin/sources/${id}/failures${query}`, headers: tenant.auth });
  const jobContext = () => ({
    db: t.database.db,
    clock: t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt: 1,
    embeddings: t.embeddings,
  });
  const embed = async () => {
    await embedChunksJob.handle({ agentId }, jobContext());
    await completeJobs(t, 'embed-chunks', agentId);
  };
  let sourceId = '';

  test('while fetching, progress.run counts pages found, fetched and failed; after, last_run keeps them', async () => {
    const created = expectData(
      await injectJson(
        t.app,
        'POST',
        `/api/v1/admin/agents/${agentId}/sources`,
        { type: 'sitemap', url: `http://127.0.0.1:${site.port}/sitemap.xml`, max_pages: 100 },
        acme.auth,
      ),
      201,
      ZSource,
    );
    sourceId = created.id;
    assert.equal(created.progress.run, null, 'queued: no fetch runs');
    assert.equal(created.progress.chunks_total, 0);
    const midway: TSource[] = [];
    site.onPage = async (i) => {
      if (i === PAUSE_AT) midway.push(await get(sourceId));
    };
    await runFetchJob(t, sourceId);
    site.onPage = async () => {};

    const seen = midway[0];
    assert.equal(seen?.status, 'fetching');
    const run = seen?.progress.run;
    assert.ok(run, 'a running fetch shows its counts');
    assert.equal(run.found, PAGES, 'every sitemap entry is found before the pages are fetched');
    // Written with each batch of 10 stored pages (and every second): stale by a page or two.
    assert.ok(run.fetched >= 9 && run.fetched < PAGES, `fetched ${run.fetched} so far`);
    assert.ok(run.failed >= 1 && run.failed < FAILING.length, `failed ${run.failed} so far`);
    assert.ok(!Number.isNaN(Date.parse(run.started_at)));

    const fetched = await get(sourceId);
    assert.equal(fetched.status, 'indexing');
    assert.equal(fetched.progress.run, null, 'the run is over');
    const last = fetched.progress.last_run;
    assert.equal(last?.found, PAGES);
    assert.equal(last?.fetched, PAGES - FAILING.length);
    assert.equal(last?.failed, FAILING.length);
    assert.equal(last?.failures.length, FAILING.length);
  });

  test('chunks_total counts the chunks written, chunks_embedded those with a vector (null without vectors)', async () => {
    const pending = await t.database.db
      .selectFrom('documents')
      .select('id')
      .where('source_id', '=', sourceId)
      .where('index_status', '=', 'pending')
      .execute();
    for (const doc of pending) {
      await indexDocumentJob.handle({ documentId: doc.id }, { ...jobContext(), queue: t.queue });
      await completeJobs(t, 'index-document', doc.id);
    }
    const indexed = await get(sourceId);
    assert.equal(indexed.progress.documents_indexed, PAGES - FAILING.length);
    assert.ok(indexed.progress.chunks_total >= PAGES - FAILING.length, 'at least a chunk per page');
    if (!t.embeddings) {
      assert.equal(indexed.progress.chunks_embedded, null);
      return;
    }
    assert.equal(indexed.progress.chunks_embedded, 0, 'no embedding run yet');
    assert.equal(indexed.status, 'indexing');
    await embed();
    const done = await get(sourceId);
    assert.equal(done.progress.chunks_embedded, done.progress.chunks_total);
    assert.equal(done.status, 'indexed');
  });

  test('GET /sources/{id}/failures lists every failed page with its reason, in order, a page at a time', async () => {
    const base = `http://127.0.0.1:${site.port}`;
    const first = ZFailurePage.parse((await failures(sourceId, '?limit=4')).json());
    assert.equal(first.data.length, 4);
    assert.ok(first.meta.next_cursor);
    const second = ZFailurePage.parse(
      (await failures(sourceId, `?limit=4&cursor=${encodeURIComponent(first.meta.next_cursor)}`)).json(),
    );
    assert.equal(second.data.length, FAILING.length - 4);
    assert.equal(second.meta.next_cursor, null);
    const all = [...first.data, ...second.data];
    assert.deepEqual(all.map((f) => f.url).sort(), FAILING.map((i) => `${base}/p/${i}`).sort());
    for (const failure of all) {
      assert.equal(failure.reason, `failed: ${failure.url} answered HTTP 500`);
      assert.ok(!Number.isNaN(Date.parse(failure.at)));
    }
    const newest = ZFailurePage.parse((await failures(sourceId, '?order=desc&limit=100')).json());
    assert.deepEqual(
      newest.data.map((f) => f.url),
      all.map((f) => f.url).reverse(),
    );
  });

  test('another workspace, an unknown id, a forged or foreign cursor: 404 and 422', async () => {
    assert.equal((await failures(sourceId, '', other)).statusCode, 404);
    assert.equal((await failures('01JAAAAAAAAAAAAAAAAAAAAAAA')).statusCode, 404);
    assert.equal((await failures(sourceId, '?cursor=bm90LWEtY3Vyc29y')).statusCode, 422);
    assert.equal((await failures(sourceId, '?limit=0')).statusCode, 422);
    assert.equal((await failures(sourceId, "?limit=1'%20or%201=1")).statusCode, 422);
    // A cursor of the agent's sources list is bound to that list: refused here.
    const list = await t.app.inject({
      url: `/api/v1/admin/agents/${agentId}/sources?limit=1`,
      headers: acme.auth,
    });
    const text = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agentId}/sources`,
      { type: 'text', text: 'x' },
      acme.auth,
    );
    assert.equal(text.statusCode, 201);
    const cursor = z
      .object({ meta: z.object({ next_cursor: z.string().nullable() }) })
      .parse(
        (
          await t.app.inject({ url: `/api/v1/admin/agents/${agentId}/sources?limit=1`, headers: acme.auth })
        ).json(),
      ).meta.next_cursor;
    assert.equal(list.statusCode, 200);
    assert.ok(cursor);
    assert.equal((await failures(sourceId, `?cursor=${encodeURIComponent(cursor)}`)).statusCode, 422);
    assert.equal((await t.app.inject({ url: `/api/v1/admin/sources/${sourceId}/failures` })).statusCode, 401);
  });

  test('a new fetch starts its own list: failures fixed since are gone', async () => {
    site.broken = false;
    const reindex = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${sourceId}/reindex`,
      headers: acme.auth,
    });
    assert.equal(reindex.statusCode, 202);
    await runFetchJob(t, sourceId);
    const page = ZFailurePage.parse((await failures(sourceId)).json());
    assert.deepEqual(page.data, []);
    const source = await get(sourceId);
    assert.equal(source.progress.last_run?.failed, 0);
    assert.equal(source.progress.last_run?.fetched, PAGES);
  });
});

describe('source politeness settings: crawl_delay_ms and concurrency, bounded', () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;
  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme');
    agentId = await createAgent(t, acme, { language_default: 'en' });
  });
  after(async () => {
    await t?.close();
  });
  const create = (body: Record<string, unknown>) =>
    injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/sources`, body, acme.auth);

  test('edges are accepted and shown in config; absent settings are not invented', async () => {
    for (const type of ['crawl', 'sitemap']) {
      const low = expectData(
        await create({ type, url: 'https://shop.example/sitemap.xml', crawl_delay_ms: 0, concurrency: 1 }),
        201,
        ZSource,
      );
      assert.equal(low.config.crawl_delay_ms, 0);
      assert.equal(low.config.concurrency, 1);
      const high = expectData(
        await create({
          type,
          url: 'https://shop.example/sitemap.xml',
          crawl_delay_ms: 60_000,
          concurrency: 8,
        }),
        201,
        ZSource,
      );
      assert.equal(high.config.crawl_delay_ms, 60_000);
      assert.equal(high.config.concurrency, 8);
      const plain = expectData(await create({ type, url: 'https://shop.example/sitemap.xml' }), 201, ZSource);
      assert.equal('crawl_delay_ms' in plain.config, false);
      assert.equal('concurrency' in plain.config, false);
    }
  });

  test('out of bounds, fractional, strings, null and other types are 422, naming the field', async () => {
    const bad: [string, unknown][] = [
      ['crawl_delay_ms', -1],
      ['crawl_delay_ms', 60_001],
      ['crawl_delay_ms', 1.5],
      ['crawl_delay_ms', '100'],
      ['crawl_delay_ms', null],
      ['crawl_delay_ms', 1e308],
      ['concurrency', 0],
      ['concurrency', 9],
      ['concurrency', 2.5],
      ['concurrency', '2'],
      ['concurrency', true],
      ['concurrency', [2]],
    ];
    for (const [field, value] of bad) {
      for (const type of ['crawl', 'sitemap']) {
        const response = await create({ type, url: 'https://shop.example/', [field]: value });
        assert.equal(response.statusCode, 422, `${type} ${field}=${JSON.stringify(value)}`);
        const body = z.object({ errors: z.record(z.string(), z.unknown()) }).parse(response.json());
        assert.ok(field in body.errors, `errors names ${field}: ${JSON.stringify(body.errors)}`);
      }
    }
    // url and text sources take no pacing.
    assert.equal(
      (await create({ type: 'url', url: 'https://shop.example/', concurrency: 2 })).statusCode,
      422,
    );
    const count = await t.database.db
      .selectFrom('sources')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 6, 'only the valid sources were stored');
  });
});
