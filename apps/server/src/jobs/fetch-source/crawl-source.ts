import { type CrawledPage, type CrawlResult, crawlSite, crawlSitemap } from '../../crawl/crawl-site.js';
import { guardedFetcher } from '../../crawl/fetch-page.js';
import { extractionPool } from '../../extraction/shared-extraction-pool.js';
import type { JobContext, JobQueue } from '../../queue/job-queue.js';
import { sha256Hex } from '../../security/hashing.js';
import { upsertDocuments } from '../../services/knowledge/documents.js';
import {
  failRun,
  finishRun,
  removeDocumentsExcept,
  type SourceRef,
  startRun,
} from '../../services/knowledge/source-run.js';

/** Pages stored per transaction while a crawl runs (documents appear as the crawl goes). */
const FLUSH_EVERY = 10;

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
  let buffer: CrawledPage[] = [];
  const flush = async () => {
    const pages = buffer;
    buffer = [];
    if (pages.length > 0) await storePages(context, queue, source, pages);
  };
  const options = {
    fetchPage: guardedFetcher({ allow: context.safeUrlAllow ?? [] }),
    // Pages and sitemaps are parsed in bounded worker threads: a hostile one fails alone.
    reader: extractionPool(),
    maxPages: positive(source.config.max_pages),
    maxDepth: positive(source.config.max_depth),
    ...(context.crawlDelayMs !== undefined ? { minDelayMs: context.crawlDelayMs } : {}),
    async onPage(page: CrawledPage) {
      seen.add(page.url);
      buffer.push(page);
      if (buffer.length >= FLUSH_EVERY) await flush();
    },
  };
  const result: CrawlResult =
    source.type === 'sitemap' ? await crawlSitemap(url, options) : await crawlSite(url, options);
  await flush();
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
        fetched: result.pages,
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

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
