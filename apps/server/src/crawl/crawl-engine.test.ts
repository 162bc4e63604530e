import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SafeFetchResult } from '../outbound/index.js';
import { type CrawledPage, createCrawlEngine, type ReadPage } from './crawl-engine.js';
import { readHtmlPage } from './read-html-page.js';
import { parseRobots } from './robots.js';

const ORIGIN = 'https://shop.example';

/** A chain of pages /p/0 → /p/1 → /p/2, served from memory: no request leaves the process. */
function fetchChain(url: string): Promise<SafeFetchResult> {
  const index = Number(/\/p\/(\d+)$/.exec(url)?.[1] ?? Number.NaN);
  const next = index < 2 ? `<a href="/p/${index + 1}">next</a>` : '';
  const body = `<html><head><title>Page ${index}</title></head><body><main><p>Words of page ${index}.</p>${next}</main></body></html>`;
  return Promise.resolve({
    ok: true,
    status: 200,
    url,
    headers: {},
    body: Buffer.from(body),
    contentType: 'text/html; charset=utf-8',
  });
}

async function crawlChain(
  readPage: ReadPage,
): Promise<{ pages: CrawledPage[]; run: ReturnType<typeof createCrawlEngine> }> {
  const pages: CrawledPage[] = [];
  const run = createCrawlEngine({
    origin: ORIGIN,
    robots: parseRobots(`${ORIGIN}/robots.txt`, ''),
    fetchPage: fetchChain,
    readPage,
    onPage: async (page) => {
      pages.push(page);
    },
    maxPages: 10,
    maxDepth: 10,
    concurrency: 1,
    delayMs: 0,
    deadline: Number.POSITIVE_INFINITY,
    now: () => 0,
    signal: undefined,
  });
  return { pages, run };
}

describe('crawl engine: reading pages', () => {
  test('every page goes through readPage, with its final URL', async () => {
    const read: string[] = [];
    const { pages, run } = await crawlChain(async (html, url) => {
      read.push(url);
      return readHtmlPage(html, url);
    });
    run.enqueue(`${ORIGIN}/p/0`, 0);
    const summary = await run.run();
    assert.deepEqual(read, [`${ORIGIN}/p/0`, `${ORIGIN}/p/1`, `${ORIGIN}/p/2`]);
    assert.deepEqual(
      pages.map((page) => page.title),
      ['Page 0', 'Page 1', 'Page 2'],
    );
    assert.equal(summary.pages, 3);
  });

  test('a page readPage rejects fails alone, with its reason; the crawl goes on', async () => {
    const { pages, run } = await crawlChain(async (html, url) => {
      if (url.endsWith('/p/1'))
        throw new Error('could not be read within the limits: it takes longer than 60 s to read');
      return readHtmlPage(html, url);
    });
    run.enqueue(`${ORIGIN}/p/0`, 0);
    run.enqueue(`${ORIGIN}/p/2`, 0);
    const summary = await run.run();
    assert.deepEqual(
      pages.map((page) => page.url),
      [`${ORIGIN}/p/0`, `${ORIGIN}/p/2`],
    );
    assert.deepEqual(summary.failures, [
      {
        url: `${ORIGIN}/p/1`,
        reason: `failed: ${ORIGIN}/p/1 could not be read within the limits: it takes longer than 60 s to read`,
      },
    ]);
    assert.equal(summary.skipped.errors, 1);
    assert.equal(summary.stoppedBy, 'done');
  });
});

describe('crawl engine: the budget timer and the clock', () => {
  test('a wake-up the clock does not agree with yet never spins the loop: the pages in flight finish', async () => {
    // The timer fires after 5 ms of real time while the injected clock stays before the
    // deadline; each page takes a real 20 ms to arrive. The crawl must go on waiting for its
    // pages (an older loop raced the fired wake-up forever and never let the I/O in).
    const pages: CrawledPage[] = [];
    const run = createCrawlEngine({
      origin: ORIGIN,
      robots: parseRobots(`${ORIGIN}/robots.txt`, ''),
      fetchPage: async (url) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return fetchChain(url);
      },
      readPage: async (html, url) => readHtmlPage(html, url),
      onPage: async (page) => {
        pages.push(page);
      },
      maxPages: 10,
      maxDepth: 10,
      concurrency: 1,
      delayMs: 0,
      deadline: 5,
      now: () => 0,
      signal: undefined,
    });
    run.enqueue(`${ORIGIN}/p/0`, 0);
    const summary = await run.run();
    assert.equal(summary.stoppedBy, 'done');
    assert.deepEqual(
      pages.map((page) => page.title),
      ['Page 0', 'Page 1', 'Page 2'],
    );
  });
});

describe('crawl engine: live counts and every failure', () => {
  test('found, fetched, failed and skipped are told after each page, and each failure with its reason', async () => {
    // /p/0 links to /p/1 … /p/5; /p/2 and /p/4 answer 500, /p/5 is a PDF.
    const fetchPage = (url: string): Promise<SafeFetchResult> => {
      const index = Number(/\/p\/(\d+)$/.exec(url)?.[1] ?? Number.NaN);
      if (index === 2 || index === 4)
        return Promise.resolve({
          ok: true,
          status: 500,
          url,
          headers: {},
          body: Buffer.from('no'),
          contentType: 'text/plain',
        });
      const links =
        index === 0
          ? [1, 2, 3, 4].map((i) => `<a href="/p/${i}">${i}</a>`).join('') + '<a href="/p/5.pdf">pdf</a>'
          : '';
      const body = `<html><head><title>Page ${index}</title></head><body><main><p>Words of page ${index}.</p>${links}</main></body></html>`;
      return Promise.resolve({
        ok: true,
        status: 200,
        url,
        headers: {},
        body: Buffer.from(body),
        contentType: 'text/html',
      });
    };
    const failures: { url: string; reason: string }[] = [];
    const counts: { found: number; fetched: number; failed: number; skipped: number }[] = [];
    const engine = createCrawlEngine({
      origin: ORIGIN,
      robots: parseRobots(`${ORIGIN}/robots.txt`, ''),
      fetchPage,
      readPage: async (html, url) => readHtmlPage(html, url),
      onPage: async () => {},
      onFailure: (failure) => failures.push(failure),
      onProgress: (next) => counts.push(next),
      maxPages: 10,
      maxDepth: 10,
      concurrency: 1,
      delayMs: 0,
      deadline: Number.POSITIVE_INFINITY,
      now: () => 0,
      signal: undefined,
    });
    engine.enqueue(`${ORIGIN}/p/0`, 0);
    const summary = await engine.run();

    assert.deepEqual(failures, [
      { url: `${ORIGIN}/p/2`, reason: `failed: ${ORIGIN}/p/2 answered HTTP 500` },
      { url: `${ORIGIN}/p/4`, reason: `failed: ${ORIGIN}/p/4 answered HTTP 500` },
    ]);
    assert.equal(counts.length, 5, 'one report per handled page');
    // After /p/0: it is handled and 4 pages are queued (the PDF is skipped without a request).
    assert.deepEqual(counts[0], { found: 5, fetched: 1, failed: 0, skipped: 1 });
    assert.deepEqual(counts.at(-1), { found: 5, fetched: 3, failed: 2, skipped: 1 });
    assert.equal(summary.found, 5);
    assert.equal(summary.pages, 3);
    assert.equal(summary.skipped.errors, 2);
  });
});
