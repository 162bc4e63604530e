import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type TSource, ZSearchResult, ZSource } from '@service/contract';
import { expectData } from './support/http.js';
import { createAgent } from './support/site-sync.js';
import {
  completeJobs,
  documentsOfSource,
  indexSource,
  jobsFor,
  runFetchJob,
  sourceRow,
} from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

/** Pages of the generated site: /p/0 … /p/(PAGES-1), a binary tree of links under the home page. */
const PAGES = 300;
/** A word only page i contains, so a search can name one page. */
const wordOf = (i: number) => `zq${i.toString(36)}marker`;

type Site = {
  port: number;
  /** Requests per path. */
  hits: Map<string, number>;
  changed: Map<number, string>;
  removed: Set<number>;
  sitemap: string[];
  close(): Promise<void>;
};

function page(title: string, body: string, links: string[]): string {
  const nav = '<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/p/0">Catalogue</a></nav>';
  const list = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>${nav}<main><h1>${title}</h1><p>${body}</p><ul>${list}</ul></main><footer>© Trail and Tide</footer></body></html>`;
}

/** A real HTTP site on 127.0.0.1 with no sitemap.xml and no robots.txt (404 allows all). */
async function startSite(): Promise<Site> {
  const hits = new Map<string, number>();
  const changed = new Map<number, string>();
  const removed = new Set<number>();
  const site = { hits, changed, removed, sitemap: [] as string[] };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const html = (body: string) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (path === '/')
      return html(page('Trail and Tide', 'Outdoor shoes for every season.', ['/p/0', '/about']));
    if (path === '/about') return html(page('About us', 'A family shop since 1987, repairing boots.', []));
    if (path === '/sitemap-pages.xml' && site.sitemap.length > 0) {
      const urls = site.sitemap.map((loc) => `<url><loc>${loc}</loc></url>`).join('');
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
      );
    }
    const match = /^\/p\/(\d+)$/.exec(path);
    const i = match ? Number(match[1]) : -1;
    if (i < 0 || i >= PAGES || removed.has(i))
      return res.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
    const children = [2 * i + 1, 2 * i + 2].filter((c) => c < PAGES && !removed.has(c)).map((c) => `/p/${c}`);
    const body = changed.get(i) ?? `Product note ${i}: the ${wordOf(i)} model is waterproof.`;
    return html(page(`Page ${i}`, body, children));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...site,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('admin API: crawl and sitemap sources over a local site (SAFE_URL_ALLOW)', () => {
  let t: TestApp;
  let site: Site;
  let acme: Tenant;
  let agentId: string;
  let crawl: TSource;
  const origin = () => `http://127.0.0.1:${site.port}`;

  const create = (body: unknown) =>
    injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/sources`, body, acme.auth);
  const get = async (id: string) =>
    expectData(await t.app.inject({ url: `/api/v1/admin/sources/${id}`, headers: acme.auth }), 200, ZSource);
  const reindex = async (id: string) =>
    expectData(
      await t.app.inject({ method: 'POST', url: `/api/v1/admin/sources/${id}/reindex`, headers: acme.auth }),
      202,
      ZSource,
    );
  const search = async (query: string) =>
    expectData(
      await injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/search`, { query }, acme.auth),
      200,
      ZSearchResult,
    ).hits;

  before(async () => {
    site = await startSite();
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${site.port}`, CRAWL_DELAY_MS: '0' } });
    acme = await seedTenant(t, 'Acme');
    agentId = await createAgent(t, acme, { language_default: 'en' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  test('a site of a few hundred pages without a sitemap is crawled by its links and becomes searchable', async () => {
    crawl = expectData(
      await create({ type: 'crawl', url: `${origin()}/`, max_pages: 1000, max_depth: 10 }),
      201,
      ZSource,
    );
    assert.equal(crawl.status, 'queued');
    assert.deepEqual(crawl.config, { url: `${origin()}/`, max_pages: 1000, max_depth: 10 });
    assert.equal(site.hits.size, 0, 'nothing is fetched before the job runs');

    await runFetchJob(t, crawl.id);
    const docs = await documentsOfSource(t, crawl.id);
    assert.equal(docs.length, PAGES + 2, 'home, about and every product page');
    for (const [path, count] of site.hits) assert.ok(count <= 1, `${path} fetched ${count} times`);
    assert.equal(site.hits.get('/sitemap.xml'), 1, 'the sitemap is looked for');
    const page42 = docs.find((doc) => doc.url === `${origin()}/p/42`);
    assert.equal(page42?.title, 'Page 42');
    assert.match(page42?.content_text ?? '', new RegExp(wordOf(42)));
    assert.doesNotMatch(page42?.content_text ?? '', /About us|©/, 'navigation and footer are dropped');

    const fetched = await get(crawl.id);
    assert.equal(fetched.status, 'indexing');
    assert.equal(fetched.document_count, PAGES + 2);
    assert.equal(fetched.progress.documents_pending, PAGES + 2);
    assert.equal(fetched.progress.last_run?.fetched, PAGES + 2);
    assert.equal(fetched.progress.last_run?.stopped_by, 'done');

    assert.equal(await indexSource(t, crawl.id), PAGES + 2);
    const indexed = await get(crawl.id);
    assert.equal(indexed.status, 'indexed');
    assert.equal(indexed.progress.documents_indexed, PAGES + 2);
    const hits = await search(wordOf(123));
    assert.equal(hits[0]?.url, `${origin()}/p/123`);
    assert.equal((await search('repairing boots'))[0]?.url, `${origin()}/about`);
    await completeJobs(t, 'fetch-source', crawl.id);
  });

  test('a re-crawl after one page changed re-indexes only that page', async () => {
    const before = new Map((await documentsOfSource(t, crawl.id)).map((doc) => [doc.url, doc]));
    site.changed.set(57, 'Product note 57: now the velvetmoss edition, resoled by hand.');
    assert.equal((await reindex(crawl.id)).status, 'queued');
    await runFetchJob(t, crawl.id);
    const after = await documentsOfSource(t, crawl.id);
    assert.equal(after.length, PAGES + 2);
    const pending = after.filter((doc) => doc.index_status !== 'indexed').map((doc) => doc.url);
    assert.deepEqual(pending, [`${origin()}/p/57`]);
    const changed = before.get(`${origin()}/p/57`);
    assert.ok(changed);
    assert.equal(await jobsFor(t, 'index-document', changed.id), 2);
    assert.equal(await jobsFor(t, 'index-document', before.get(`${origin()}/p/56`)?.id ?? ''), 1);
    await indexSource(t, crawl.id);
    assert.equal((await search('velvetmoss'))[0]?.url, `${origin()}/p/57`);
    await completeJobs(t, 'fetch-source', crawl.id);
  });

  test('a page removed from the site is removed from the index', async () => {
    site.removed.add(200);
    await reindex(crawl.id);
    await runFetchJob(t, crawl.id);
    const docs = await documentsOfSource(t, crawl.id);
    assert.equal(docs.length, PAGES + 1);
    assert.ok(!docs.some((doc) => doc.url === `${origin()}/p/200`));
    const shown = await get(crawl.id);
    assert.equal(shown.progress.last_run?.removed, 1);
    // Its parent lost the link to it: that page changed and waits for indexing, nothing else.
    const pending = docs.filter((doc) => doc.index_status !== 'indexed').map((doc) => doc.url);
    assert.deepEqual(pending, [`${origin()}/p/99`]);
    assert.equal(shown.status, 'indexing');
    const hits = await search(wordOf(200));
    assert.ok(!hits.some((hit) => hit.url === `${origin()}/p/200`), JSON.stringify(hits));
    await completeJobs(t, 'fetch-source', crawl.id);
  });

  test('the page and depth caps stop a crawl at their edges', async () => {
    const capped = expectData(
      await create({ type: 'crawl', url: `${origin()}/`, max_pages: 20, max_depth: 10 }),
      201,
      ZSource,
    );
    await runFetchJob(t, capped.id);
    assert.equal((await documentsOfSource(t, capped.id)).length, 20);
    assert.equal((await get(capped.id)).progress.last_run?.stopped_by, 'page_cap');
    // The depth cap: home (0), its links (1), their links (2) and the next level (3) only.
    const shallow = expectData(await create({ type: 'crawl', url: `${origin()}/` }), 201, ZSource);
    assert.deepEqual(shallow.config, { url: `${origin()}/`, max_pages: 200, max_depth: 3 });
    await runFetchJob(t, shallow.id);
    const urls = (await documentsOfSource(t, shallow.id)).map((doc) => doc.url?.replace(origin(), ''));
    assert.deepEqual(
      urls.sort(),
      ['/', '/about', '/p/0', '/p/1', '/p/2', '/p/3', '/p/4', '/p/5', '/p/6'].sort(),
    );
    assert.equal((await get(shallow.id)).progress.last_run?.stopped_by, 'done');
  });

  test('a sitemap source indexes the pages its sitemap lists, on its own origin only', async () => {
    site.sitemap.push(
      `${origin()}/p/5`,
      `${origin()}/p/6`,
      `${origin()}/about`,
      'http://other.example.com/p/1', // another origin: ignored, never fetched
    );
    const source = expectData(
      await create({ type: 'sitemap', url: `${origin()}/sitemap-pages.xml`, max_pages: 50 }),
      201,
      ZSource,
    );
    await runFetchJob(t, source.id);
    const docs = await documentsOfSource(t, source.id);
    assert.deepEqual(docs.map((doc) => doc.url).sort(), [
      `${origin()}/about`,
      `${origin()}/p/5`,
      `${origin()}/p/6`,
    ]);
    assert.equal((await sourceRow(t, source.id)).error, null);
  });

  test('a start URL the guard refuses fails the source with the reason; the target is never contacted', async () => {
    const other = await startSite();
    try {
      for (const body of [
        { type: 'crawl', url: `http://127.0.0.1:${other.port}/` },
        { type: 'sitemap', url: `http://127.0.0.1:${other.port}/sitemap.xml` },
        { type: 'crawl', url: 'http://169.254.169.254/latest/' },
      ]) {
        const source = expectData(await create(body), 201, ZSource);
        await runFetchJob(t, source.id);
        const row = await sourceRow(t, source.id);
        assert.equal(row.status, 'failed', body.url);
        assert.match(row.error ?? '', /^refused: .*(loopback|link-local)/, `${body.url}: ${row.error}`);
        assert.equal((await documentsOfSource(t, source.id)).length, 0);
      }
      assert.equal(other.hits.size, 0, 'the unlisted server received nothing');
    } finally {
      await other.close();
    }
  });

  test('caps are validated at their edges', async () => {
    for (const [body, ok] of [
      [{ type: 'crawl', url: `${origin()}/`, max_pages: 2000, max_depth: 10 }, true],
      [{ type: 'crawl', url: `${origin()}/`, max_pages: 2001 }, false],
      [{ type: 'crawl', url: `${origin()}/`, max_pages: 0 }, false],
      [{ type: 'crawl', url: `${origin()}/`, max_depth: 11 }, false],
      [{ type: 'sitemap', url: `${origin()}/s.xml`, max_pages: 2001 }, false],
      [{ type: 'sitemap', url: `${origin()}/s.xml`, max_depth: 2 }, false],
      [{ type: 'crawl', url: 'ftp://example.com/' }, false],
    ] as const) {
      const res = await create(body);
      assert.equal(res.statusCode, ok ? 201 : 422, `${JSON.stringify(body)}: ${res.body}`);
    }
  });
});
