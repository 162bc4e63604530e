import {
  type CrawlCounts,
  type CrawledPage,
  type CrawlResult,
  crawlSite,
  crawlSitemap,
} from '../../crawl/crawl-site.js';
import { guardedFetcher } from '../../crawl/fetch-page.js';
import { extractionPool } from '../../extraction/shared-extraction-pool.js';
import { isAllowListed } from '../../outbound/index.js';
import type { JobContext, JobQueue } from '../../queue/job-queue.js';
import { sha256Hex } from '../../security/hashing.js';
import { upsertDocuments } from '../../services/knowledge/documents.js';
import type { PageFailure } from '../../services/knowledge/source-failures.js';
import {
  failRun,
  finishRun,
  recordRunProgress,
  removeDocumentsExcept,
  type SourceRef,
  startRun,
} from '../../services/knowledge/source-run.js';

/** Pages stored per transaction while a crawl runs (documents appear as the crawl goes). */
const FLUSH_EVERY = 10;
/** The live counts are written at least this often while pages are handled (ms). */
const PROGRESS_EVERY_MS = 1_000;
/** Failed pages listed per fetch at most (`GET /sources/{id}/failures`); the rest are counted. */
export const MAX_LISTED_FAILURES = 10_000;
/** Requests in flight, unless the source sets its own. */
const DEFAULT_CONCURRENCY = 2;

/**
 * How fast a source's site is fetched: its own `crawl_delay_ms` and `concurrency` when set;
 * otherwise no delay for a host listed in SAFE_URL_ALLOW (the operator's own server) and
 * CRAWL_DELAY_MS (the crawler's 250 ms when unset) for any other, with 2 requests in flight.
 * robots.txt Crawl-delay may still raise the delay (up to 5 s, in crawlSite).
 */
export function crawlPace(
  config: Record<string, unknown>,
  url: string,
  services: { safeUrlAllow?: readonly string[] | undefined; crawlDelayMs?: number | undefined },
): { minDelayMs?: number; concurrency: number } {
  const allowed = isAllowListed(url, services.safeUrlAllow ?? []);
  const delay = positive(config.crawl_delay_ms) ?? (allowed ? 0 : services.crawlDelayMs);
  const concurrency = positive(config.concurrency) ?? DEFAULT_CONCURRENCY;
  return { ...(delay !== undefined ? { minDelayMs: delay } : {}), concurrency };
}

/**
 * Fetches a `crawl` or `sitemap` source: every page goes through the crawl-safety guard, pages
 * are stored as documents keyed by URL as the crawl goes (only changed ones are re-indexed), and
 * after a complete crawl the pages no longer found are removed. A start URL the guard refuses
 * (or that fails) fails the source with the reason verbatim and keeps earlier documents.
 */
export async function runCrawlSource(context: JobContext, source: SourceRef): Promise<void> {
  const { db, queue, log } = context;
  const url = source.config.url;
  if (typeof url !== 'string') {
    await failRun(db, context.clock, source.id, 'failed: the source has no URL');
    return;
  }
  await startRun(db, context.clock, source.id);
  const seen = new Set<string>();
  const live = liveProgress(context, source.id);
  let buffer: CrawledPage[] = [];
  const flush = async () => {
    const pages = buffer;
    buffer = [];
    if (pages.length > 0) await storePages(context, queue, source, pages);
    await live.write();
  };
  const options = {
    fetchPage: guardedFetcher({ allow: context.safeUrlAllow ?? [] }),
    // Pages and sitemaps are parsed in bounded worker threads: a hostile one fails alone.
    reader: extractionPool(),
    maxPages: positive(source.config.max_pages),
    maxDepth: positive(source.config.max_depth),
    ...crawlPace(source.config, url, context),
    async onPage(page: CrawledPage) {
      seen.add(page.url);
      buffer.push(page);
      if (buffer.length >= FLUSH_EVERY) await flush();
    },
    onFailure: live.failed,
    onProgress: live.counted,
  };
  let result: CrawlResult;
  try {
    result = source.type === 'sitemap' ? await crawlSitemap(url, options) : await crawlSite(url, options);
    await flush();
  } finally {
    await live.stop();
  }
  if (!result.ok) {
    log.info({ sourceId: source.id, reason: result.reason }, 'crawl not started');
    await failRun(db, context.clock, source.id, result.reason);
    return;
  }
  // Only a crawl that saw the whole site (or all it may index) knows which pages are gone.
  const complete = result.stoppedBy === 'done' || result.stoppedBy === 'page_cap';
  await db.transaction().execute(async (trx) => {
    const removed = complete ? await removeDocumentsExcept(trx, source.id, [...seen]) : 0;
    const skipped = result.skipped;
    await finishRun(
      trx,
      context.clock,
      source.id,
      {
        found: result.found,
        fetched: result.pages,
        failed: result.skipped.errors,
        skipped: skipped.robots + skipped.nonHtml + skipped.errors + skipped.duplicates + skipped.noindex,
        removed,
        stopped_by: result.stoppedBy,
        failures: result.failures,
      },
      context.embeddings?.key,
      { queue: context.queue, clock: context.clock },
    );
  });
  log.info({ sourceId: source.id, pages: result.pages, stoppedBy: result.stoppedBy }, 'crawl finished');
}

async function storePages(context: JobContext, queue: JobQueue, source: SourceRef, pages: CrawledPage[]) {
  await context.db.transaction().execute(async (trx) => {
    await upsertDocuments(
      trx,
      queue,
      source,
      pages.map((page) => {
        const hash = sha256Hex(`${page.title}\n${page.text}`);
        return {
          externalId: page.url,
          hash,
          toDocument: () => ({
            externalId: page.url,
            kind: 'page',
            title: page.title || page.url,
            url: page.url,
            language: page.lang,
            text: page.text,
            hash,
            metadata: {},
            modifiedAt: context.clock.now(),
          }),
        };
      }),
    );
  });
}

/**
 * The running crawl's counts and failed pages, written with each batch of stored pages and
 * otherwise at most every PROGRESS_EVERY_MS (a crawl whose pages all fail shows that too).
 * Writes never overlap; one that fails is logged, not fatal (the next one catches up).
 */
function liveProgress(context: JobContext, sourceId: string) {
  let counts: CrawlCounts = { found: 0, fetched: 0, failed: 0, skipped: 0 };
  let failures: PageFailure[] = [];
  let listed = 0;
  let writing: Promise<void> = Promise.resolve();
  let lastWrite = 0;
  const write = (): Promise<void> => {
    const pending = failures;
    failures = [];
    const snapshot = counts;
    lastWrite = context.clock.now().getTime();
    writing = writing
      .then(() => recordRunProgress(context.db, context.clock, sourceId, snapshot, pending))
      .catch((error: unknown) => context.log.warn({ err: error, sourceId }, 'crawl progress not written'));
    return writing;
  };
  return {
    write,
    failed(failure: PageFailure) {
      if (listed >= MAX_LISTED_FAILURES) return;
      listed += 1;
      failures.push(failure);
    },
    counted(next: CrawlCounts) {
      counts = next;
      if (context.clock.now().getTime() - lastWrite >= PROGRESS_EVERY_MS) void write();
    },
    /** Waits for the last write. */
    stop: () => writing,
  };
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
