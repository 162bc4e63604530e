import { sql } from 'kysely';
import { decodeHtml } from '../../crawl/fetch-page.js';
import { CRAWLER_USER_AGENT } from '../../crawl/robots.js';
import { PageReadError } from '../../extraction/extraction-pool.js';
import { extractionPool } from '../../extraction/shared-extraction-pool.js';
import { MAX_TEXT_CHARS } from '../../ingest/uploads/upload-text-rules.js';
import { safeFetch } from '../../outbound/index.js';
import { defineJob, type JobContext } from '../../queue/job-queue.js';
import { FETCH_RETRY_LIMIT, fetchSourceSpec } from '../../queue/job-specs.js';
import { sha256Hex } from '../../security/hashing.js';
import { upsertDocuments } from '../../services/knowledge/documents.js';
import {
  failRun,
  finishRun,
  removeDocumentsExcept,
  type SourceRef,
  startRun,
} from '../../services/knowledge/source-run.js';
import { runCrawlSource } from './crawl-source.js';
import { runSqlSource } from './sql-source.js';

/** Body cap of a fetched page: 10 MiB. */
export const URL_SOURCE_MAX_BYTES = 10 * 1024 * 1024;
/** Budget for one page fetch (DNS, redirects, body). */
export const URL_SOURCE_TIMEOUT_MS = 15_000;

const HTML_TYPES = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;
const TEXT_TYPES = /^\s*text\/plain\s*(;|$)/i;

/**
 * Fetches a source's content through the crawl-safety guard: one page (`url`), a site
 * (`crawl`), the pages of a sitemap (`sitemap`) or the rows of a query (`sql`). The status moves
 * fetching → indexing → indexed | failed: `indexed` only once the fetch is over and every document
 * is indexed and embedded. A refusal or failure is stored verbatim in `sources.error` and keeps
 * what earlier fetches stored. Unchanged content (same hash) queues no index job. Keyed
 * per source, so one fetch per source runs at a time. A fetch that fails for good without its
 * handler seeing the end (it ran out of time, or was interrupted on its last attempt) fails the
 * source with that reason, so it never stays `fetching`.
 */
export const fetchSourceJob = defineJob({
  ...fetchSourceSpec,
  async handle({ sourceId }, context) {
    try {
      await fetchSource(sourceId, context);
    } catch (error) {
      // Without this, a fetch that keeps throwing would leave the source `fetching` for good.
      if (context.attempt > FETCH_RETRY_LIMIT) {
        context.log.error({ err: error, sourceId }, 'source fetch failed; giving up');
        await failRun(
          context.db,
          context.clock,
          sourceId,
          'failed: the fetch stopped on an internal error (see the server log)',
        );
      }
      throw error;
    }
  },
  async giveUp({ sourceId }, { db, clock }, reason) {
    // Only a source this fetch left waiting or half-done: one failed already keeps its reason.
    const failed = await db
      .updateTable('sources')
      .set({
        status: 'failed',
        error: `failed: the fetch ${reason}`,
        updated_at: clock.now(),
        progress: sql<string>`progress - 'run'`,
      })
      .where('id', '=', sourceId)
      .where('status', 'in', ['queued', 'fetching'])
      .executeTakeFirst();
    return Number(failed.numUpdatedRows) > 0;
  },
});

/** Fetches the source by its type. */
async function fetchSource(sourceId: string, context: JobContext): Promise<void> {
  const source = await context.db
    .selectFrom('sources')
    .select(['id', 'workspace_id', 'agent_id', 'type', 'config'])
    .where('id', '=', sourceId)
    .executeTakeFirst();
  switch (source?.type) {
    case 'url':
      return fetchUrlSource(context, source);
    case 'crawl':
    case 'sitemap':
      return runCrawlSource(context, source);
    case 'sql':
      return runSqlSource(context, source);
    default:
      return; // deleted meanwhile, or a type nothing fetches
  }
}

/** Fetches a `url` source's one page and stores it as the source's one document. */
async function fetchUrlSource(context: JobContext, source: SourceRef): Promise<void> {
  const sourceId = source.id;
  const url = source.config.url;
  if (typeof url !== 'string') {
    await failRun(context.db, context.clock, sourceId, 'failed: the source has no URL');
    return;
  }
  await startRun(context.db, context.clock, sourceId);
  const fetched = await safeFetch(url, {
    allow: context.safeUrlAllow ?? [],
    accept: (contentType) => HTML_TYPES.test(contentType) || TEXT_TYPES.test(contentType),
    maxBytes: URL_SOURCE_MAX_BYTES,
    timeoutMs: URL_SOURCE_TIMEOUT_MS,
    headers: {
      accept: 'text/html, application/xhtml+xml, text/plain;q=0.9',
      'user-agent': CRAWLER_USER_AGENT,
    },
  });
  if (!fetched.ok) {
    context.log.info({ sourceId, reason: fetched.reason }, 'url source not fetched');
    await failRun(context.db, context.clock, sourceId, fetched.reason);
    return;
  }
  if (fetched.status < 200 || fetched.status > 299) {
    await failRun(
      context.db,
      context.clock,
      sourceId,
      `failed: ${fetched.url} answered HTTP ${fetched.status}`,
    );
    return;
  }
  let page: Page;
  try {
    page = await readPage(fetched.body, fetched.contentType, fetched.url);
  } catch (error) {
    if (!(error instanceof PageReadError)) throw error;
    await failRun(context.db, context.clock, sourceId, `failed: ${fetched.url} ${error.message}`);
    return;
  }
  if (page.text === '') {
    await failRun(context.db, context.clock, sourceId, `failed: ${fetched.url} has no readable text`);
    return;
  }
  await storePage(context, sourceId, page);
}

type Page = { url: string; title: string; text: string; hash: string; lang: string | null };

/**
 * Readable text of the body: HTML through Readability and html-to-text in an extraction
 * thread (bounded heap and time), plain text as it is. Rejects with {@link PageReadError} when
 * the page cannot be read within the limits or has more text than a source may hold.
 */
async function readPage(body: Buffer, contentType: string, url: string): Promise<Page> {
  if (HTML_TYPES.test(contentType)) {
    const page = await extractionPool().readPage(decodeHtml(body, contentType), url);
    const title = page.title || url;
    return { url, title, text: page.text, hash: sha256Hex(`${title}\n${page.text}`), lang: page.lang };
  }
  const text = decodeHtml(body, contentType).replace(/\r\n?/g, '\n').trim();
  if (text.length > MAX_TEXT_CHARS) {
    throw new PageReadError(`has more than ${MAX_TEXT_CHARS.toLocaleString('en-US')} characters of text`);
  }
  return { url, title: url, text, hash: sha256Hex(`${url}\n${text}`), lang: null };
}

/**
 * Upserts the page as the source's document (keyed by its final URL; a document left from an
 * earlier URL is removed) and queues indexing when its hash changed, in one transaction.
 */
async function storePage(context: JobContext, sourceId: string, page: Page): Promise<void> {
  const { queue } = context;
  await context.db.transaction().execute(async (trx) => {
    const source = await trx
      .selectFrom('sources')
      .select(['id', 'workspace_id', 'agent_id'])
      .where('id', '=', sourceId)
      .forUpdate()
      .executeTakeFirst();
    if (!source) return;
    const removed = await removeDocumentsExcept(trx, sourceId, [page.url]);
    await upsertDocuments(trx, queue, source, [
      {
        externalId: page.url,
        hash: page.hash,
        toDocument: () => ({
          externalId: page.url,
          kind: 'page',
          title: page.title,
          url: page.url,
          language: page.lang,
          text: page.text,
          hash: page.hash,
          metadata: {},
          modifiedAt: context.clock.now(),
        }),
      },
    ]);
    await finishRun(
      trx,
      context.clock,
      sourceId,
      { found: 1, fetched: 1, failed: 0, skipped: 0, removed, stopped_by: 'done', failures: [] },
      context.embeddings?.key,
      { queue: context.queue, clock: context.clock },
    );
  });
}
