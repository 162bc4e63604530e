import {
  type CrawlCounts,
  type CrawlEngine,
  type CrawledPage,
  type CrawlSummary,
  createCrawlEngine,
} from './crawl-engine.js';
import type { CrawlReader } from './crawl-reader.js';
import { normalizeUrl, originOf } from './crawl-url.js';
import type { FetchPage } from './fetch-page.js';
import { fetchRobots, type RobotsRules } from './robots.js';
import { collectSitemapUrls } from './sitemap.js';

export type { CrawlCounts, CrawledPage, CrawlStop, CrawlSummary } from './crawl-engine.js';
export type { CrawlReader } from './crawl-reader.js';

/** Options of `crawlSite` and `crawlSitemap`; every limit has a default and a ceiling. */
export type CrawlOptions = {
  /** How each URL is fetched: `guardedFetcher({ allow })` in production. */
  fetchPage: FetchPage;
  /** How fetched pages and sitemaps are read: the extraction pool in production. */
  reader: CrawlReader;
  /** Called once per emitted page; a throw ends the crawl and rejects with it. */
  onPage: (page: CrawledPage) => Promise<void>;
  /** Called once per failed page, with the reason (synchronously: buffer, do not wait). */
  onFailure?: (failure: { url: string; reason: string }) => void;
  /** Called with the counts after every handled page (synchronously: buffer, do not wait). */
  onProgress?: (counts: CrawlCounts) => void;
  /** Pages emitted at most; default 200, clamped to 1..2000. */
  maxPages?: number;
  /** Link hops from the start URL (sitemap URLs count as 1); default 3, clamped to 0..10. */
  maxDepth?: number;
  /** Requests in flight at once; default 2, clamped to 1..8. */
  concurrency?: number;
  /** Least time between two requests to the site; default 250 ms (robots.txt Crawl-delay may raise it). */
  minDelayMs?: number;
  /** Budget for the whole crawl; default 15 minutes. */
  timeBudgetMs?: number;
  /** Whether `crawlSite` seeds its queue from /sitemap.xml and robots.txt `Sitemap:` lines; default true. */
  useSitemaps?: boolean;
  signal?: AbortSignal;
  /** Clock for the time budget and pacing (tests). */
  now?: () => number;
};

/** A finished crawl's summary, or why it could not start (the fetcher's reason, verbatim). */
export type CrawlResult = ({ ok: true } & CrawlSummary) | { ok: false; reason: string };

/** Default `maxPages`. */
export const CRAWL_DEFAULT_MAX_PAGES = 200;
/** Ceiling of `maxPages`. */
export const CRAWL_MAX_PAGES = 2000;
/** Default `maxDepth`. */
export const CRAWL_DEFAULT_MAX_DEPTH = 3;
/** Robots.txt Crawl-delay is honoured up to this many seconds. */
export const CRAWL_MAX_CRAWL_DELAY_SECONDS = 5;

/**
 * Crawls one site breadth-first from `startUrl`: pages on the start page's origin only (scheme,
 * host and port exactly; after the start URL's redirects, so `http://x` → `https://www.x` crawls
 * the latter), robots.txt honoured, sitemap URLs seeded at depth 1, non-HTML skipped, URLs
 * de-duplicated by normal form, canonical URL and content hash, noindex pages not emitted and
 * nofollow pages not followed. When robots.txt is unreachable or the start page cannot be
 * fetched, nothing is crawled and the reason comes back as `{ ok: false, reason }`.
 */
export async function crawlSite(startUrl: string, options: CrawlOptions): Promise<CrawlResult> {
  const start = normalizeUrl(startUrl);
  if (start === null) return { ok: false, reason: 'refused: the URL is not valid' };
  const startedAt = (options.now ?? Date.now)();
  let site = await openSite(start, options, startedAt);
  if (!site.ok) return site;
  const first = await site.engine.fetchHtml(start);
  if (!first.result.ok) return { ok: false, reason: first.result.reason };
  const { status } = first.result;
  if (status < 200 || status > 299) return { ok: false, reason: `failed: ${start} answered HTTP ${status}` };
  const landed = normalizeUrl(first.result.url) ?? start;
  if (originOf(landed) !== originOf(start)) {
    // The site lives where the start URL redirects to: its robots.txt is the one that applies.
    site = await openSite(landed, options, startedAt);
    if (!site.ok) return site;
  }
  const { engine, limits } = site;
  // The start page is handled from the fetch above (handle marks it seen), not fetched again.
  await engine.handle({ url: landed, depth: 0 }, first.result, first.nonHtml);
  if (options.useSitemaps !== false && limits.maxDepth >= 1) {
    await seedFromSitemaps(engine, options.reader, site.robots, originOf(landed), limits.maxPages);
  }
  return { ok: true, ...(await engine.run()) };
}

/**
 * Fetches the pages a sitemap (or sitemap index) lists, on the sitemap's own origin only, with the
 * same rules as `crawlSite` but following no links. A sitemap that cannot be fetched or parsed,
 * or an unreachable robots.txt, gives `{ ok: false, reason }`.
 */
export async function crawlSitemap(sitemapUrl: string, options: CrawlOptions): Promise<CrawlResult> {
  const url = normalizeUrl(sitemapUrl);
  if (url === null) return { ok: false, reason: 'refused: the URL is not valid' };
  const site = await openSite(url, { ...options, maxDepth: 0 }, (options.now ?? Date.now)());
  if (!site.ok) return site;
  const { engine, limits } = site;
  const collected = await collectSitemapUrls(url, {
    fetch: engine.fetch,
    readSitemap: options.reader.readSitemap,
    maxPages: sitemapBudget(limits.maxPages),
  });
  if (!collected.ok) return { ok: false, reason: collected.reason };
  for (const entry of collected.urls) engine.enqueue(entry.loc, 0);
  return { ok: true, ...(await engine.run()) };
}

type Limits = { maxPages: number; maxDepth: number };
type Site =
  | { ok: true; engine: CrawlEngine; robots: RobotsRules; limits: Limits }
  | { ok: false; reason: string };

/** Reads the origin's robots.txt and builds the engine; an unreachable robots.txt stops here. */
async function openSite(url: string, options: CrawlOptions, startedAt: number): Promise<Site> {
  const origin = originOf(url);
  const robots = await fetchRobots(origin, options.fetchPage);
  if (robots.unavailableReason !== undefined) return { ok: false, reason: robots.unavailableReason };
  if (!robots.isAllowed(url)) return { ok: false, reason: `refused: robots.txt disallows ${url}` };
  const limits: Limits = {
    maxPages: clamp(options.maxPages ?? CRAWL_DEFAULT_MAX_PAGES, 1, CRAWL_MAX_PAGES),
    maxDepth: clamp(options.maxDepth ?? CRAWL_DEFAULT_MAX_DEPTH, 0, 10),
  };
  const crawlDelayMs = Math.min(robots.crawlDelaySeconds() ?? 0, CRAWL_MAX_CRAWL_DELAY_SECONDS) * 1000;
  const engine = createCrawlEngine({
    origin,
    robots,
    fetchPage: options.fetchPage,
    readPage: options.reader.readPage,
    onPage: options.onPage,
    onFailure: options.onFailure,
    onProgress: options.onProgress,
    ...limits,
    concurrency: clamp(options.concurrency ?? 2, 1, 8),
    delayMs: Math.max(options.minDelayMs ?? 250, crawlDelayMs),
    deadline: startedAt + (options.timeBudgetMs ?? 15 * 60_000),
    now: options.now ?? Date.now,
    signal: options.signal,
  });
  return { ok: true, engine, robots, limits };
}

/** Queues, at depth 1, the pages of /sitemap.xml and of the robots.txt sitemaps on the site. */
async function seedFromSitemaps(
  engine: CrawlEngine,
  reader: CrawlReader,
  robots: RobotsRules,
  origin: string,
  maxPages: number,
): Promise<void> {
  const roots = new Set<string>();
  for (const listed of [...robots.sitemaps(), `${origin}/sitemap.xml`]) {
    const url = normalizeUrl(listed);
    // A robots.txt may list another host's sitemap; this crawl stays on its own origin.
    if (url !== null && originOf(url) === origin) roots.add(url);
  }
  for (const root of roots) {
    if (engine.interruption() !== undefined) return;
    const collected = await collectSitemapUrls(root, {
      fetch: engine.fetch,
      readSitemap: reader.readSitemap,
      maxPages: sitemapBudget(maxPages),
    });
    // No sitemap, or a broken one, is normal: the links are crawled all the same.
    if (!collected.ok) continue;
    for (const entry of collected.urls) engine.enqueue(entry.loc, 1);
  }
}

/** Sitemap URLs collected for a page cap: some slack for duplicates, noindex and failures. */
function sitemapBudget(maxPages: number): number {
  return maxPages * 2;
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, Math.floor(value))) : min;
}
