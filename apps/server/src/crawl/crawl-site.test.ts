import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { buildConnector } from 'undici';
import type { ConnectHook } from '../outbound/index.js';
import { inlineCrawlReader as reader } from './crawl-reader.js';
import {
  type CrawledPage,
  type CrawlOptions,
  type CrawlResult,
  crawlSite,
  crawlSitemap,
} from './crawl-site.js';
import { guardedFetcher } from './fetch-page.js';

// Every request goes to a server on 127.0.0.1, through the real guard, over a connector that
// refuses anything but 127.0.0.1: even a broken crawler cannot reach another host from here.
const loopbackOnly: ConnectHook = (target, callback) => {
  if (!target.addresses.every((address) => address === '127.0.0.1')) {
    callback(new Error('test: non-loopback connection blocked'), null);
    return;
  }
  buildConnector({ lookup: target.lookup, timeout: 2000 })(target, callback);
};

const PAGES = 300;
const NAV = [
  '/',
  '/page/0',
  '/page/1',
  '/page/2',
  '/private/secret',
  '/file.pdf',
  '/doc',
  '/old',
  '/dup',
  '/copy',
];
const NAV_MORE = [
  '/hidden',
  '/xrobots',
  '/nofollow-page',
  '/page/3?utm_source=menu#top',
  'mailto:a@b.example',
];

type SiteOptions = { sitemap?: boolean; robotsStatus?: number };
type TestSite = {
  origin: string;
  port: number;
  requests: Map<string, number>;
  times: Map<string, number>;
  close(): Promise<void>;
};

function html(title: string, body: string, head = ''): string {
  const nav = [...NAV, ...NAV_MORE].map((href) => `<li><a href="${href}">Menu ${href}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body>
<header><nav><ul>${nav}</ul></nav></header><main>${body}</main>
<footer>Footer text of the test site</footer><script>var tracker = "script text";</script></body></html>`;
}

function article(name: string, links: string[]): string {
  const anchors = links.map((href) => `<a href="${href}">see ${href}</a>`).join(', ');
  return `<h1>${name}</h1><p>This is ${name}, with its own words about ${name} and nothing else.</p><p>Related: ${anchors}.</p>`;
}

function urlset(origin: string, paths: string[]): string {
  const urls = paths.map((path) => `<url><loc>${path.startsWith('http') ? path : origin + path}</loc></url>`);
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`;
}

const orphans = (from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, i) => `/orphan/${from + i}`);

/** ~300 interlinked pages, each with a nav menu; robots.txt disallows /private/; no sitemap unless asked. */
async function startSite(options: SiteOptions = {}): Promise<TestSite> {
  const requests = new Map<string, number>();
  const times = new Map<string, number>();
  let origin = '';
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    times.set(path, Date.now());
    const send = (
      status: number,
      type: string,
      body: string | Buffer,
      headers: Record<string, string> = {},
    ): void => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    const page = /^\/page\/(\d+)$/.exec(path);
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (path === '/robots.txt') {
      if (options.robotsStatus !== undefined) return send(options.robotsStatus, 'text/plain', 'nope');
      const sitemapLine = options.sitemap ? `Sitemap: ${origin}/sitemap.xml\n` : '';
      return send(200, 'text/plain', `User-agent: *\nDisallow: /private/\n${sitemapLine}`);
    }
    if (path === '/') return send(200, 'text/html', html('Home', article('the home page', ['/page/0'])));
    if (page?.[1] !== undefined && Number(page[1]) < PAGES) {
      const n = Number(page[1]);
      const links = [n + 1, 2 * n + 1, 2 * n + 2].filter((i) => i < PAGES).map((i) => `/page/${i}`);
      return send(200, 'text/html; charset=utf-8', html(`Page ${n}`, article(`page number ${n}`, links)));
    }
    if (chain?.[1] !== undefined) {
      const n = Number(chain[1]);
      return send(
        200,
        'text/html',
        `<html><body><p>Chain link ${n}</p><a href="/chain/${n + 1}">next</a></body></html>`,
      );
    }
    if (path === '/doc') return send(200, 'application/pdf', Buffer.alloc(256 * 1024, 0x25));
    if (path === '/old') return send(301, 'text/plain', '', { location: '/page/7' });
    if (path === '/dup')
      return send(
        200,
        'text/html',
        html('Page 1', article('page number 1', ['/page/2']), '<link rel="canonical" href="/page/1">'),
      );
    if (path === '/copy')
      return send(
        200,
        'text/html; charset=utf-8',
        html('Page 3', article('page number 3', ['/page/4', '/page/7', '/page/8'])),
      );
    if (path === '/hidden')
      return send(
        200,
        'text/html',
        html(
          'Hidden',
          article('a noindex page', ['/only-via-noindex']),
          '<meta name="robots" content="noindex">',
        ),
      );
    if (path === '/xrobots')
      return send(200, 'text/html', html('Header noindex', article('a header noindex page', [])), {
        'x-robots-tag': 'noindex',
      });
    if (path === '/nofollow-page')
      return send(
        200,
        'text/html',
        html(
          'Nofollow',
          article('a nofollow page', ['/only-via-nofollow']),
          '<meta name="robots" content="nofollow">',
        ),
      );
    if (path === '/only-via-noindex')
      return send(200, 'text/html', html('Deep', article('the page linked from noindex', [])));
    if (options.sitemap && path === '/sitemap.xml') {
      const index = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/s1.xml</loc></sitemap><sitemap><loc>${origin}/s2.xml.gz</loc></sitemap></sitemapindex>`;
      return send(200, 'application/xml', index);
    }
    if (options.sitemap && path === '/s1.xml')
      return send(200, 'application/xml', urlset(origin, orphans(0, 10)));
    if (options.sitemap && path === '/s2.xml.gz') {
      const paths = [...orphans(10, 20), '/private/in-sitemap', 'http://other.example/x', '/orphan/3'];
      return send(200, 'application/gzip', gzipSync(urlset(origin, paths)));
    }
    const orphan = /^\/orphan\/(\d+)$/.exec(path);
    if (options.sitemap && orphan?.[1] !== undefined)
      return send(200, 'text/html', html(`Orphan ${orphan[1]}`, article(`orphan ${orphan[1]}`, [])));
    return send(404, 'text/html', '<html><body>Not found</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  origin = `http://127.0.0.1:${address.port}`;
  return {
    origin,
    port: address.port,
    requests,
    times,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Run = { result: CrawlResult; pages: CrawledPage[]; paths: string[] };

async function crawl(
  site: TestSite,
  path: string,
  options: Partial<CrawlOptions> = {},
  sitemap = false,
): Promise<Run> {
  const pages: CrawledPage[] = [];
  const full: CrawlOptions = {
    fetchPage: guardedFetcher({ allow: [`127.0.0.1:${site.port}`], connect: loopbackOnly, timeoutMs: 5000 }),
    reader,
    onPage: async (page) => {
      pages.push(page);
    },
    minDelayMs: 0,
    ...options,
  };
  const result = await (sitemap ? crawlSitemap : crawlSite)(`${site.origin}${path}`, full);
  return { result, pages, paths: pages.map((page) => page.url.slice(site.origin.length)) };
}

const allPages = Array.from({ length: PAGES }, (_, i) => `/page/${i}`);
const REACHABLE = ['/', ...allPages, '/nofollow-page', '/only-via-noindex'];

/** Emitted paths, sorted, without the /page/3 and /copy pair (one of the two is emitted). */
function withoutCopy(paths: string[]): string[] {
  return paths.filter((path) => path !== '/copy' && path !== '/page/3').sort();
}

describe('crawlSite on a local site without a sitemap', () => {
  let site: TestSite;
  before(async () => {
    site = await startSite();
  });
  after(() => site.close());

  test('every reachable page once; robots, non-HTML, noindex, nofollow, redirect, canonical and copies handled', async () => {
    const { result, pages, paths } = await crawl(site, '/', { maxPages: 2000, maxDepth: 20 });
    assert.ok(result.ok, JSON.stringify(result));
    // /copy is /page/3 byte for byte: whichever is fetched first is emitted, the other is a duplicate.
    assert.deepEqual(withoutCopy(paths), withoutCopy(REACHABLE));
    assert.equal(paths.filter((path) => path === '/copy' || path === '/page/3').length, 1);
    assert.equal(result.pages, REACHABLE.length);
    assert.equal(result.stoppedBy, 'done');
    assert.deepEqual(result.skipped, { robots: 1, nonHtml: 2, errors: 0, duplicates: 2, noindex: 2 });
    // The duplicates: /dup (canonical /page/1) and one of /copy and /page/3 (same text). /old
    // redirects to /page/7 before anything else reaches it, so that fetch stands for /page/7.
    assert.deepEqual(result.failures, []);
    for (const path of ['/private/secret', '/file.pdf', '/only-via-nofollow', '/page/3?utm_source=menu']) {
      assert.equal(site.requests.get(path), undefined, `${path} was requested`);
    }
    for (const [path, count] of site.requests) assert.equal(count, 1, `${path} requested ${count} times`);
    assert.equal(site.requests.get('/doc'), 1);
    const page7 = pages.find((page) => page.url === `${site.origin}/page/7`);
    assert.ok(page7?.text.includes('This is page number 7'));
    const home = pages.find((page) => page.url === `${site.origin}/`);
    assert.equal(home?.title, 'Home');
    assert.equal(home?.lang, 'en');
    assert.ok(
      !home?.text.includes('Menu /page/1') &&
        !home?.text.includes('script text') &&
        !home?.text.includes('Footer'),
    );
    assert.equal(new Set(pages.map((page) => page.hash)).size, pages.length);
  });

  test('page cap at its edge: n reachable pages and a cap of n is done, a cap of n-1 stops there', async () => {
    const exact = await crawl(site, '/', { maxPages: REACHABLE.length, maxDepth: 20 });
    assert.deepEqual(exact.result.ok && [exact.result.pages, exact.result.stoppedBy], [
      REACHABLE.length,
      'done',
    ]);
    const capped = await crawl(site, '/', { maxPages: REACHABLE.length - 1, maxDepth: 20 });
    assert.deepEqual(capped.result.ok && [capped.result.pages, capped.result.stoppedBy], [
      REACHABLE.length - 1,
      'page_cap',
    ]);
    assert.equal(capped.pages.length, REACHABLE.length - 1);
    const small = await crawl(site, '/', { maxPages: 5 });
    assert.deepEqual(small.result.ok && [small.result.pages, small.result.stoppedBy], [5, 'page_cap']);
  });

  test('depth cap at its edge: pages at depth d are fetched, d+1 never requested', async () => {
    const two = await crawl(site, '/chain/0', { maxDepth: 2 });
    assert.deepEqual(two.paths, ['/chain/0', '/chain/1', '/chain/2']);
    assert.equal(site.requests.get('/chain/3'), undefined);
    const three = await crawl(site, '/chain/0', { maxDepth: 3 });
    assert.deepEqual(three.paths, ['/chain/0', '/chain/1', '/chain/2', '/chain/3']);
    assert.equal(site.requests.get('/chain/4'), undefined);
  });

  test('requests to the site start minDelayMs apart', async () => {
    const fetchPage = guardedFetcher({ allow: [`127.0.0.1:${site.port}`], connect: loopbackOnly });
    const started: number[] = [];
    await crawl(site, '/chain/10', {
      maxDepth: 2,
      minDelayMs: 120,
      fetchPage: (url, options) => {
        started.push(performance.now());
        return fetchPage(url, options);
      },
    });
    // robots.txt, /chain/10, /sitemap.xml, /chain/11, /chain/12; the first request is not delayed.
    assert.equal(started.length, 5);
    // A start is recorded when the loaded event loop gets to it, so one gap can look shorter than
    // the slots were; the paced span (3 slots after /chain/10) cannot.
    const span = (started[4] ?? 0) - (started[1] ?? 0);
    assert.ok(span >= 3 * 120 - 15, started.join(' '));
  });

  test('abort and time budget stop the crawl, and no page is emitted after', async () => {
    const controller = new AbortController();
    let emittedBeforeAbort = 0;
    const aborted = await crawl(site, '/', {
      signal: controller.signal,
      onPage: async () => {
        if (++emittedBeforeAbort === 10) controller.abort();
      },
    });
    assert.deepEqual(aborted.result.ok && [aborted.result.pages, aborted.result.stoppedBy], [10, 'aborted']);
    assert.equal(emittedBeforeAbort, 10);
    let clock = 0;
    const budget = await crawl(site, '/', {
      now: () => clock,
      timeBudgetMs: 1000,
      onPage: async () => {
        clock += 100;
      },
    });
    assert.deepEqual(budget.result.ok && [budget.result.pages, budget.result.stoppedBy], [10, 'time_budget']);
  });

  test('the start URL: refused by the guard before any request, HTTP errors and robots reported', async () => {
    const counted = [...site.requests.values()].reduce((sum, count) => sum + count, 0);
    const refused = await crawlSite(`${site.origin}/`, {
      fetchPage: guardedFetcher({ allow: [], connect: loopbackOnly }),
      reader,
      onPage: async () => undefined,
    });
    assert.ok(!refused.ok);
    assert.match(refused.reason, /^refused: /);
    assert.equal(
      [...site.requests.values()].reduce((sum, count) => sum + count, 0),
      counted,
    );
    const missing = await crawl(site, '/nowhere');
    assert.deepEqual(missing.result, {
      ok: false,
      reason: `failed: ${site.origin}/nowhere answered HTTP 404`,
    });
    const disallowed = await crawl(site, '/private/secret');
    assert.deepEqual(disallowed.result, {
      ok: false,
      reason: `refused: robots.txt disallows ${site.origin}/private/secret`,
    });
    const pdf = await crawl(site, '/doc');
    assert.deepEqual(pdf.result, {
      ok: false,
      reason: 'refused: content type application/pdf is not accepted',
    });
  });
});

describe('sitemaps', () => {
  let site: TestSite;
  before(async () => {
    site = await startSite({ sitemap: true });
  });
  after(() => site.close());

  test('crawlSite seeds its queue from the robots.txt sitemap index (plain and gzip children)', async () => {
    const { result, paths } = await crawl(site, '/', { maxPages: 2000, maxDepth: 20 });
    assert.ok(result.ok);
    assert.deepEqual(withoutCopy(paths), withoutCopy([...REACHABLE, ...orphans(0, 20)]));
    assert.equal(site.requests.get('/private/in-sitemap'), undefined);
    assert.equal(site.requests.get('/sitemap.xml'), 1);
  });

  test('crawlSitemap fetches exactly the listed same-site pages and follows no link', async () => {
    site.requests.clear();
    const { result, paths } = await crawl(site, '/sitemap.xml', {}, true);
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual([...paths].sort(), orphans(0, 20).sort());
    assert.deepEqual(result.skipped, { robots: 1, nonHtml: 0, errors: 0, duplicates: 0, noindex: 0 });
    assert.equal(site.requests.get('/private/in-sitemap'), undefined);
    assert.ok(![...site.requests.keys()].some((path) => path.startsWith('/page/') || path === '/'));
    const capped = await crawl(site, '/sitemap.xml', { maxPages: 7 }, true);
    assert.deepEqual(capped.result.ok && [capped.result.pages, capped.result.stoppedBy], [7, 'page_cap']);
    const missing = await crawl(site, '/no-sitemap.xml', {}, true);
    assert.deepEqual(missing.result, {
      ok: false,
      reason: `failed: ${site.origin}/no-sitemap.xml answered HTTP 404`,
    });
  });

  test('robots.txt answering 5xx: nothing is crawled', async () => {
    const down = await startSite({ robotsStatus: 503 });
    try {
      const { result } = await crawl(down, '/');
      assert.ok(!result.ok);
      assert.match(result.reason, /robots\.txt answered HTTP 503/);
      assert.deepEqual([...down.requests.keys()], ['/robots.txt']);
    } finally {
      await down.close();
    }
  });
});
