import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { SafeFetchResult } from '../outbound/index.js';
import type { FetchPage } from './fetch-page.js';
import { collectSitemapUrls, parseSitemap, parseSitemapXml, SITEMAP_MAX_CHILDREN } from './sitemap.js';

/** Sitemaps parsed on this thread, as the extraction threads parse them. */
const readSitemap = async (body: Buffer) => parseSitemap(body);

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
const ORIGIN = 'https://shop.example';

function urlset(locs: string[]): string {
  const entries = locs.map((loc) => `<url><loc>${loc}</loc><lastmod>2026-01-02</lastmod></url>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS}>${entries}</urlset>`;
}

function sitemapIndex(locs: string[]): string {
  const entries = locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex ${NS}>${entries}</sitemapindex>`;
}

/** A fetcher serving `files` by URL (404 otherwise) and recording each request. */
function serving(files: Record<string, string | Buffer>): FetchPage & { urls: string[] } {
  const urls: string[] = [];
  const fetchPage = async (url: string): Promise<SafeFetchResult> => {
    urls.push(url);
    const body = files[url];
    const found = body !== undefined;
    return {
      ok: true,
      status: found ? 200 : 404,
      url,
      headers: {},
      body: Buffer.isBuffer(body) ? body : Buffer.from(body ?? 'not found'),
      contentType: 'application/xml',
    };
  };
  return Object.assign(fetchPage, { urls });
}

describe('parseSitemapXml', () => {
  test('a urlset gives its locs with lastmod, entities decoded', () => {
    const xml = urlset([`${ORIGIN}/a?x=1&amp;y=2`, `${ORIGIN}/caf&#xE9;`]).replace(
      '<url><loc>https://shop.example/caf',
      '<url><loc> https://shop.example/caf',
    );
    assert.deepEqual(parseSitemapXml(xml), {
      kind: 'urlset',
      urls: [
        { loc: `${ORIGIN}/a?x=1&y=2`, lastmod: '2026-01-02' },
        { loc: `${ORIGIN}/café`, lastmod: '2026-01-02' },
      ],
    });
  });

  test('a single <url> and a namespace prefix are read too; lastmod is optional', () => {
    const xml = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>${ORIGIN}/only</sm:loc></sm:url></sm:urlset>`;
    assert.deepEqual(parseSitemapXml(xml), { kind: 'urlset', urls: [{ loc: `${ORIGIN}/only` }] });
  });

  test('a sitemap index gives its child sitemaps', () => {
    assert.deepEqual(parseSitemapXml(sitemapIndex([`${ORIGIN}/s1.xml`, `${ORIGIN}/s2.xml.gz`])), {
      kind: 'index',
      sitemaps: [`${ORIGIN}/s1.xml`, `${ORIGIN}/s2.xml.gz`],
    });
  });

  test('HTML, garbage and an empty body are invalid, not thrown', () => {
    assert.equal(parseSitemapXml('<!doctype html><html><body>Not found</body></html>').kind, 'invalid');
    assert.equal(parseSitemapXml('{"urls": []}').kind, 'invalid');
    assert.equal(parseSitemapXml('').kind, 'invalid');
  });

  test('billion laughs: the DOCTYPE entities are never expanded', () => {
    const levels = Array.from(
      { length: 9 },
      (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`,
    ).join('\n');
    const xml = `<?xml version="1.0"?>
<!DOCTYPE urlset [
  <!ENTITY lol0 "lol">
  ${levels}
]>
<urlset ${NS}><url><loc>${ORIGIN}/&lol9;</loc></url></urlset>`;
    const started = Date.now();
    const result = parseSitemapXml(xml);
    assert.ok(Date.now() - started < 1000);
    // Read with the reference left as it is: never a billion "lol"s.
    assert.deepEqual(result, { kind: 'urlset', urls: [{ loc: `${ORIGIN}/&lol9;` }] });
  });

  test('XXE: an external SYSTEM entity is not resolved', () => {
    const xml = `<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<urlset ${NS}><url><loc>${ORIGIN}/&xxe;</loc></url></urlset>`;
    const result = parseSitemapXml(xml);
    assert.ok(!JSON.stringify(result).includes('root:'), JSON.stringify(result));
    // fast-xml-parser refuses a document declaring an external entity outright.
    assert.equal(result.kind, 'invalid');
    assert.match(result.kind === 'invalid' ? result.reason : '', /External entities/);
  });
});

describe('parseSitemap (bytes)', () => {
  test('gzip is recognised by its magic bytes and decompressed', () => {
    const xml = urlset([`${ORIGIN}/gz`]);
    assert.deepEqual(parseSitemap(gzipSync(xml)), parseSitemapXml(xml));
    assert.deepEqual(parseSitemap(Buffer.from(xml)), parseSitemapXml(xml));
  });

  test('the decompressed size cap holds at its edge; corrupt gzip is invalid', () => {
    const xml = Buffer.from(urlset([`${ORIGIN}/a`]));
    assert.equal(parseSitemap(gzipSync(xml), xml.length).kind, 'urlset');
    const over = parseSitemap(gzipSync(xml), xml.length - 1);
    assert.equal(over.kind, 'invalid');
    assert.match(over.kind === 'invalid' ? over.reason : '', /larger than/);
    assert.equal(parseSitemap(xml, xml.length).kind, 'urlset');
    assert.equal(parseSitemap(xml, xml.length - 1).kind, 'invalid');
    // A gzip bomb: 64 MiB of zeros in about 64 KiB, stopped at the default cap.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    assert.equal(parseSitemap(bomb).kind, 'invalid');
    assert.equal(parseSitemap(Buffer.from([0x1f, 0x8b, 1, 2, 3])).kind, 'invalid');
  });
});

describe('collectSitemapUrls', () => {
  test('walks an index breadth-first, same-origin only, de-duplicated', async () => {
    const fetchPage = serving({
      [`${ORIGIN}/sitemap.xml`]: sitemapIndex([
        `${ORIGIN}/pages.xml`,
        `${ORIGIN}/more.xml.gz`,
        'https://evil.example/sitemap.xml',
        `${ORIGIN}/missing.xml`,
      ]),
      [`${ORIGIN}/pages.xml`]: urlset([
        `${ORIGIN}/a`,
        `${ORIGIN}/b#frag`,
        'https://evil.example/x',
        `${ORIGIN}/a`,
      ]),
      [`${ORIGIN}/more.xml.gz`]: gzipSync(urlset([`${ORIGIN}/c?utm_source=x`, `${ORIGIN}/b`])),
    });
    const result = await collectSitemapUrls(`${ORIGIN}/sitemap.xml`, {
      fetch: fetchPage,
      readSitemap,
      maxPages: 100,
    });
    assert.ok(result.ok);
    assert.deepEqual(
      result.urls.map((entry) => entry.loc),
      [`${ORIGIN}/a`, `${ORIGIN}/b`, `${ORIGIN}/c`],
    );
    assert.equal(result.sitemapsRead, 4);
    assert.deepEqual(
      result.failures.map((failure) => failure.url),
      [`${ORIGIN}/missing.xml`],
    );
    assert.ok(!fetchPage.urls.some((url) => url.startsWith('https://evil.example')));
  });

  test('stops at maxPages exactly', async () => {
    const locs = Array.from({ length: 30 }, (_, i) => `${ORIGIN}/p${i}`);
    const fetchPage = serving({
      [`${ORIGIN}/sitemap.xml`]: sitemapIndex([`${ORIGIN}/1.xml`, `${ORIGIN}/2.xml`]),
      [`${ORIGIN}/1.xml`]: urlset(locs.slice(0, 15)),
      [`${ORIGIN}/2.xml`]: urlset(locs.slice(15)),
    });
    const ten = await collectSitemapUrls(`${ORIGIN}/sitemap.xml`, {
      fetch: fetchPage,
      readSitemap,
      maxPages: 10,
    });
    assert.deepEqual(ten.ok && ten.urls.map((entry) => entry.loc), locs.slice(0, 10));
    // The second child is not fetched once the cap is reached.
    assert.deepEqual(fetchPage.urls, [`${ORIGIN}/sitemap.xml`, `${ORIGIN}/1.xml`]);
    const all = await collectSitemapUrls(`${ORIGIN}/sitemap.xml`, {
      fetch: fetchPage,
      readSitemap,
      maxPages: 30,
    });
    assert.equal(all.ok && all.urls.length, 30);
  });

  test('at most 50 child sitemaps, and nesting at most 2 levels below the first', async () => {
    const children = Array.from({ length: SITEMAP_MAX_CHILDREN + 1 }, (_, i) => `${ORIGIN}/c${i}.xml`);
    const files: Record<string, string> = { [`${ORIGIN}/sitemap.xml`]: sitemapIndex(children) };
    for (const [i, child] of children.entries()) files[child] = urlset([`${ORIGIN}/page${i}`]);
    const wide = await collectSitemapUrls(`${ORIGIN}/sitemap.xml`, {
      fetch: serving(files),
      readSitemap,
      maxPages: 1000,
    });
    assert.equal(wide.ok && wide.urls.length, SITEMAP_MAX_CHILDREN);
    assert.equal(wide.ok && wide.sitemapsRead, SITEMAP_MAX_CHILDREN + 1);

    const deep = serving({
      [`${ORIGIN}/l0.xml`]: sitemapIndex([`${ORIGIN}/l1.xml`]),
      [`${ORIGIN}/l1.xml`]: sitemapIndex([`${ORIGIN}/l2.xml`]),
      [`${ORIGIN}/l2.xml`]: sitemapIndex([`${ORIGIN}/l3.xml`]),
      [`${ORIGIN}/l3.xml`]: urlset([`${ORIGIN}/too-deep`]),
    });
    const nested = await collectSitemapUrls(`${ORIGIN}/l0.xml`, { fetch: deep, readSitemap, maxPages: 10 });
    assert.deepEqual(nested.ok && nested.urls, []);
    assert.deepEqual(deep.urls, [`${ORIGIN}/l0.xml`, `${ORIGIN}/l1.xml`, `${ORIGIN}/l2.xml`]);
    // A self-listing index is read once.
    const loop = serving({ [`${ORIGIN}/self.xml`]: sitemapIndex([`${ORIGIN}/self.xml`]) });
    await collectSitemapUrls(`${ORIGIN}/self.xml`, { fetch: loop, readSitemap, maxPages: 10 });
    assert.equal(loop.urls.length, 1);
  });

  test('a sitemap the reader rejects fails with its reason: the first ends the walk, a child is recorded', async () => {
    const fetchPage = serving({
      [`${ORIGIN}/sitemap.xml`]: sitemapIndex([`${ORIGIN}/huge.xml`, `${ORIGIN}/ok.xml`]),
      [`${ORIGIN}/huge.xml`]: urlset([`${ORIGIN}/never`]),
      [`${ORIGIN}/ok.xml`]: urlset([`${ORIGIN}/a`]),
    });
    const limited = async (body: Buffer) => {
      if (body.includes('/never')) throw new Error('could not be read within the limits: test reason');
      return parseSitemap(body);
    };
    const child = await collectSitemapUrls(`${ORIGIN}/sitemap.xml`, {
      fetch: fetchPage,
      readSitemap: limited,
      maxPages: 10,
    });
    assert.deepEqual(child.ok && child.urls.map((entry) => entry.loc), [`${ORIGIN}/a`]);
    assert.deepEqual(child.ok && child.failures, [
      {
        url: `${ORIGIN}/huge.xml`,
        reason: `failed: ${ORIGIN}/huge.xml could not be read within the limits: test reason`,
      },
    ]);
    const first = await collectSitemapUrls(`${ORIGIN}/huge.xml`, {
      fetch: fetchPage,
      readSitemap: limited,
      maxPages: 10,
    });
    assert.deepEqual(first, {
      ok: false,
      reason: `failed: ${ORIGIN}/huge.xml could not be read within the limits: test reason`,
    });
  });

  test('a first sitemap that fails gives ok:false with the reason', async () => {
    const missing = await collectSitemapUrls(`${ORIGIN}/sitemap.xml`, {
      fetch: serving({}),
      readSitemap,
      maxPages: 10,
    });
    assert.deepEqual(missing, { ok: false, reason: `failed: ${ORIGIN}/sitemap.xml answered HTTP 404` });
    const refused: FetchPage = async () => ({ ok: false, reason: 'refused: 10.0.0.1 is a private address' });
    const guarded = await collectSitemapUrls(`${ORIGIN}/sitemap.xml`, {
      fetch: refused,
      readSitemap,
      maxPages: 10,
    });
    assert.deepEqual(guarded, { ok: false, reason: 'refused: 10.0.0.1 is a private address' });
    const html = serving({ [`${ORIGIN}/sitemap.xml`]: '<html><body>Home</body></html>' });
    const notSitemap = await collectSitemapUrls(`${ORIGIN}/sitemap.xml`, {
      fetch: html,
      readSitemap,
      maxPages: 10,
    });
    assert.match(notSitemap.ok ? '' : notSitemap.reason, /^failed: .* is not a readable sitemap/);
  });
});
