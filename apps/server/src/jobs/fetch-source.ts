import { z } from 'zod';
import { htmlToText } from '../ingest/html-text.js';
import { safeFetch } from '../outbound/index.js';
import { sha256Hex } from '../security/hashing.js';
import { upsertDocuments } from '../services/documents.js';
import { defineJob, type JobContext } from './queue.js';

/** Body cap of a fetched page: 10 MiB. */
export const URL_SOURCE_MAX_BYTES = 10 * 1024 * 1024;
/** Budget for one page fetch (DNS, redirects, body). */
export const URL_SOURCE_TIMEOUT_MS = 15_000;

const HTML_TYPES = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;
const TEXT_TYPES = /^\s*text\/plain\s*(;|$)/i;

/**
 * Fetches a `url` source's page through the crawl-safety guard and stores it as the source's
 * one document. The status moves indexing → indexed | failed; a refusal or failure is stored
 * verbatim in `sources.error` and stores no document. An unchanged page (same content hash)
 * queues no index job. Keyed per source, so one fetch per source runs at a time.
 */
export const fetchSourceJob = defineJob({
  name: 'fetch-source',
  payload: z.object({ sourceId: z.string().min(1) }),
  policy: 'stately',
  retryLimit: 2,
  async handle({ sourceId }, context) {
    const { db, log } = context;
    const source = await db
      .selectFrom('sources')
      .select(['id', 'type', 'config'])
      .where('id', '=', sourceId)
      .executeTakeFirst();
    if (source?.type !== 'url') return;
    const url = source.config.url;
    if (typeof url !== 'string') {
      await fail(context, sourceId, 'failed: the source has no URL');
      return;
    }
    await db
      .updateTable('sources')
      .set({ status: 'indexing', updated_at: new Date() })
      .where('id', '=', sourceId)
      .execute();

    const fetched = await safeFetch(url, {
      allow: context.safeUrlAllow ?? [],
      accept: (contentType) => HTML_TYPES.test(contentType) || TEXT_TYPES.test(contentType),
      maxBytes: URL_SOURCE_MAX_BYTES,
      timeoutMs: URL_SOURCE_TIMEOUT_MS,
      headers: { accept: 'text/html, application/xhtml+xml, text/plain;q=0.9' },
    });
    if (!fetched.ok) {
      log.info({ sourceId, reason: fetched.reason }, 'url source not fetched');
      await fail(context, sourceId, fetched.reason);
      return;
    }
    if (fetched.status < 200 || fetched.status > 299) {
      await fail(context, sourceId, `failed: ${fetched.url} answered HTTP ${fetched.status}`);
      return;
    }
    const page = readPage(fetched.body, fetched.contentType, fetched.url);
    if (page.text === '') {
      await fail(context, sourceId, `failed: ${fetched.url} has no readable text`);
      return;
    }
    await storePage(context, sourceId, page);
  },
});

type Page = { url: string; title: string; text: string; hash: string };

/** Decodes the body (charset from Content-Type, UTF-8 otherwise) and extracts text and title. */
function readPage(body: Buffer, contentType: string, url: string): Page {
  const raw = decode(body, contentType);
  const html = HTML_TYPES.test(contentType);
  const text = html ? htmlToText(raw) : raw.replace(/\r\n?/g, '\n').trim();
  return { url, title: (html ? titleOf(raw) : '') || url, text, hash: sha256Hex(text) };
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** The page's `<title>`, looked for in its first 64 KiB only; '' when absent. */
function titleOf(html: string): string {
  const match = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html.slice(0, 64 * 1024));
  if (!match?.[1]) return '';
  return htmlToText(`<p>${match[1]}</p>`).replace(/\s+/g, ' ').trim().slice(0, 500);
}

/**
 * Upserts the page as the source's document (keyed by its final URL; a document left from an
 * earlier URL is removed) and queues indexing when its hash changed, in one transaction.
 */
async function storePage(context: JobContext, sourceId: string, page: Page): Promise<void> {
  const { queue } = context;
  if (!queue) throw new Error('fetch-source needs the job queue to index what it fetched');
  await context.db.transaction().execute(async (trx) => {
    const source = await trx
      .selectFrom('sources')
      .select(['id', 'workspace_id', 'agent_id'])
      .where('id', '=', sourceId)
      .forUpdate()
      .executeTakeFirst();
    if (!source) return;
    await trx
      .deleteFrom('documents')
      .where('source_id', '=', sourceId)
      .where('external_id', '<>', page.url)
      .execute();
    await upsertDocuments(trx, queue, source, [
      {
        externalId: page.url,
        hash: page.hash,
        toDocument: () => ({
          externalId: page.url,
          kind: 'page',
          title: page.title,
          url: page.url,
          language: null,
          text: page.text,
          hash: page.hash,
          metadata: {},
          modifiedAt: new Date(),
        }),
      },
    ]);
    await trx
      .updateTable('sources')
      .set({ status: 'indexed', error: null, last_synced_at: new Date(), updated_at: new Date() })
      .where('id', '=', sourceId)
      .execute();
  });
}

/** Marks the source failed with the reason, verbatim; documents from earlier fetches stay. */
async function fail(context: JobContext, sourceId: string, error: string): Promise<void> {
  await context.db
    .updateTable('sources')
    .set({ status: 'failed', error, updated_at: new Date() })
    .where('id', '=', sourceId)
    .execute();
}
