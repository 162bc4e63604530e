import { setTimeout as sleep } from 'node:timers/promises';
import type { SafeFetchResult } from '../outbound/index.js';
import { sha256Hex } from '../security/hashing.js';
import { hasBinaryExtension, normalizeUrl, originOf } from './crawl-url.js';
import { decodeHtml, type FetchPage, isHtmlContentType } from './fetch-page.js';
import type { HtmlPage } from './read-html-page.js';
import type { RobotsRules } from './robots.js';
import { robotsHeaderDirectives } from './robots.js';

/** A page the crawler emits: `url` is its canonical URL when it declares one on its own origin. */
export type CrawledPage = { url: string; title: string; text: string; hash: string; lang: string | null };

/**
 * How a fetched page's HTML is read (`readHtmlPage`, run in a bounded worker in production).
 * A rejection fails that page alone; its message completes `failed: <url> …` (for example
 * `could not be read within the limits: it takes longer than 60 s to read`).
 */
export type ReadPage = (html: string, url: string) => Promise<HtmlPage>;

/** Why a crawl ended. */
export type CrawlStop = 'done' | 'page_cap' | 'time_budget' | 'aborted';

/** How far a crawl is: URLs found (handled, in flight or queued), pages emitted, failed, skipped. */
export type CrawlCounts = { found: number; fetched: number; failed: number; skipped: number };

/** What a crawl did: pages emitted, URLs skipped by cause, the first failures, and why it stopped. */
export type CrawlSummary = {
  /** URLs found: handled, or still queued when the crawl stopped. */
  found: number;
  pages: number;
  skipped: { robots: number; nonHtml: number; errors: number; duplicates: number; noindex: number };
  /** The first `MAX_REPORTED_FAILURES` failures, with the fetcher's reason verbatim. */
  failures: { url: string; reason: string }[];
  stoppedBy: CrawlStop;
};

/** Failures listed in a summary; the rest are only counted. */
export const MAX_REPORTED_FAILURES = 20;

/** Everything the engine needs, limits already resolved. */
export type EngineConfig = {
  origin: string;
  robots: RobotsRules;
  fetchPage: FetchPage;
  readPage: ReadPage;
  onPage: (page: CrawledPage) => Promise<void>;
  /** Told of every failed page (the summary lists only the first ones). */
  onFailure?: ((failure: { url: string; reason: string }) => void) | undefined;
  /** Told the counts after every handled page. */
  onProgress?: ((counts: CrawlCounts) => void) | undefined;
  maxPages: number;
  maxDepth: number;
  concurrency: number;
  delayMs: number;
  deadline: number;
  now: () => number;
  signal: AbortSignal | undefined;
};

type Item = { url: string; depth: number };

/** One crawl's state: the queue, the de-duplication sets and the counters. */
export type CrawlEngine = {
  /** Queues a URL (normal form) unless seen, off-site, binary by extension or disallowed by robots. */
  enqueue(url: string, depth: number): void;
  /** One request to the site, paced and checked against robots.txt first. */
  fetch: FetchPage;
  /** Fetches a page as HTML; `nonHtml` is true when its Content-Type refused it. */
  fetchHtml(url: string): Promise<{ result: SafeFetchResult; nonHtml: boolean }>;
  /** Emits, skips or follows one fetched page (its URL counts as seen from then on). */
  handle(item: Item, result: SafeFetchResult, nonHtml: boolean): Promise<void>;
  /** The counts so far. */
  counts(): CrawlCounts;
  /** Why the crawl must stop now (abort or time budget), if it must. */
  interruption(): CrawlStop | undefined;
  /** Runs the queue to its end or a limit; resolves when the last in-flight page is handled. */
  run(): Promise<CrawlSummary>;
};

/** A crawl engine over one origin: breadth-first, paced, robots-aware, de-duplicating. */
export function createCrawlEngine(config: EngineConfig): CrawlEngine {
  const queue: Item[] = [];
  const seen = new Set<string>();
  const emitted = new Set<string>();
  const hashes = new Set<string>();
  const summary: CrawlSummary = {
    found: 0,
    pages: 0,
    skipped: { robots: 0, nonHtml: 0, errors: 0, duplicates: 0, noindex: 0 },
    failures: [],
    stoppedBy: 'done',
  };
  let nextRequestAt = 0;
  let handled = 0;
  /** Items taken from the queue and not handled yet. */
  const flying = new Set<Item>();

  const counts = (): CrawlCounts => {
    const { robots, nonHtml, errors, duplicates, noindex } = summary.skipped;
    return {
      found: handled + flying.size + queue.length,
      fetched: summary.pages,
      failed: errors,
      skipped: robots + nonHtml + duplicates + noindex,
    };
  };

  const interruption = (): CrawlStop | undefined => {
    if (config.signal?.aborted) return 'aborted';
    return config.now() >= config.deadline ? 'time_budget' : undefined;
  };

  const fail = (url: string, reason: string): void => {
    summary.skipped.errors += 1;
    if (summary.failures.length < MAX_REPORTED_FAILURES) summary.failures.push({ url, reason });
    config.onFailure?.({ url, reason });
  };

  /** Waits for this request's slot: requests to the site start at least `delayMs` apart. */
  const pace = async (): Promise<void> => {
    const now = config.now();
    const at = Math.max(now, nextRequestAt);
    nextRequestAt = at + config.delayMs;
    if (at > now) await sleep(at - now, undefined, { signal: config.signal }).catch(() => undefined);
  };

  const fetch: FetchPage = async (url, options) => {
    if (!config.robots.isAllowed(url)) return { ok: false, reason: `refused: robots.txt disallows ${url}` };
    await pace();
    const stop = interruption();
    if (stop !== undefined) return { ok: false, reason: `refused: crawl stopped (${stop})` };
    return config.fetchPage(url, options);
  };

  const fetchHtml = async (url: string): Promise<{ result: SafeFetchResult; nonHtml: boolean }> => {
    let nonHtml = false;
    const result = await fetch(url, {
      accept: (contentType) => {
        nonHtml = !isHtmlContentType(contentType);
        return !nonHtml;
      },
    });
    return { result, nonHtml: !result.ok && nonHtml };
  };

  const enqueue = (url: string, depth: number): void => {
    if (seen.has(url) || originOf(url) !== config.origin) return;
    seen.add(url);
    if (hasBinaryExtension(url)) summary.skipped.nonHtml += 1;
    else if (!config.robots.isAllowed(url)) summary.skipped.robots += 1;
    else queue.push({ url, depth });
  };

  const handle = async (item: Item, result: SafeFetchResult, nonHtml: boolean): Promise<void> => {
    try {
      await handleItem(item, result, nonHtml);
    } finally {
      flying.delete(item);
      handled += 1;
      config.onProgress?.(counts());
    }
  };

  const handleItem = async (item: Item, result: SafeFetchResult, nonHtml: boolean): Promise<void> => {
    seen.add(item.url);
    if (!result.ok) {
      if (nonHtml) summary.skipped.nonHtml += 1;
      // A request the stop refused is not a failure of the site.
      else if (interruption() === undefined) fail(item.url, result.reason);
      return;
    }
    if (result.status < 200 || result.status > 299) {
      fail(item.url, `failed: ${item.url} answered HTTP ${result.status}`);
      return;
    }
    const url = normalizeUrl(result.url) ?? item.url;
    if (url !== item.url) {
      // Redirected: the final URL is the page's identity, and must be on the site and allowed.
      if (originOf(url) !== config.origin) {
        fail(item.url, `skipped: ${item.url} redirects to another site (${url})`);
        return;
      }
      if (!config.robots.isAllowed(url)) {
        summary.skipped.robots += 1;
        return;
      }
      if (seen.has(url)) {
        // Fetched already, or queued: then this fetch stands for it and it leaves the queue.
        const queued = queue.findIndex((entry) => entry.url === url);
        if (queued === -1) {
          summary.skipped.duplicates += 1;
          return;
        }
        queue.splice(queued, 1);
      }
      seen.add(url);
    }
    let page: HtmlPage;
    try {
      page = await config.readPage(decodeHtml(result.body, result.contentType), url);
    } catch (error) {
      fail(url, `failed: ${url} ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const header = robotsHeaderDirectives(result.headers['x-robots-tag'] ?? '');
    const isNofollow = page.nofollow || header.has('nofollow') || header.has('none');
    if (!isNofollow && item.depth < config.maxDepth) {
      for (const link of page.links) enqueue(link, item.depth + 1);
    }
    if (page.noindex || header.has('noindex') || header.has('none')) {
      summary.skipped.noindex += 1;
      return;
    }
    const key = page.canonicalUrl ?? url;
    if (page.text === '') {
      fail(url, `failed: ${url} has no readable text`);
      return;
    }
    const hash = sha256Hex(page.text);
    if (emitted.has(key) || hashes.has(hash) || summary.pages >= config.maxPages) {
      summary.skipped.duplicates += 1;
      return;
    }
    emitted.add(key);
    // The canonical URL now has its content: no need to fetch it on its own.
    seen.add(key);
    hashes.add(hash);
    summary.pages += 1;
    await config.onPage({ url: key, title: page.title || key, text: page.text, hash, lang: page.lang });
  };

  const run = async (): Promise<CrawlSummary> => {
    const active = new Set<Promise<void>>();
    let failure: { error: unknown } | undefined;
    const wake = new AbortController();
    const budget = setTimeout(() => wake.abort(), Math.max(0, config.deadline - config.now()));
    const onAbort = (): void => wake.abort();
    config.signal?.addEventListener('abort', onAbort, { once: true });
    const woken = new Promise<void>((resolve) => wake.signal.addEventListener('abort', () => resolve()));
    let stop: CrawlStop | undefined;
    try {
      for (;;) {
        stop = interruption();
        if (failure !== undefined || stop !== undefined) break;
        while (active.size < config.concurrency && summary.pages + active.size < config.maxPages) {
          const item = queue.shift();
          if (item === undefined) break;
          flying.add(item);
          const task: Promise<void> = fetchHtml(item.url)
            .then(({ result, nonHtml }) =>
              interruption() === undefined ? handle(item, result, nonHtml) : undefined,
            )
            .catch((error: unknown) => {
              failure ??= { error };
            })
            .finally(() => {
              flying.delete(item);
              active.delete(task);
            });
          active.add(task);
        }
        if (active.size === 0) break;
        // Once the wake-up has fired it stays resolved: racing it again would spin through
        // microtasks without ever yielding to the I/O the pages wait on (seen when `now` and the
        // budget timer disagree, as with a test clock on a loaded machine). Wait for a page then.
        await Promise.race(wake.signal.aborted ? [...active] : [...active, woken]);
      }
      await Promise.allSettled([...active]);
    } finally {
      clearTimeout(budget);
      config.signal?.removeEventListener('abort', onAbort);
    }
    // onPage failing (the caller could not store a page) ends the crawl with its error.
    if (failure !== undefined) throw failure.error;
    summary.stoppedBy = stop ?? (queue.length > 0 ? 'page_cap' : 'done');
    summary.found = counts().found;
    return summary;
  };

  return { enqueue, fetch, fetchHtml, handle, counts, interruption, run };
}
