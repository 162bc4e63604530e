import { z } from 'zod';
import { ZSourceCreateSql } from './sql-source.js';
import { storable, zStorableJson, zText } from './text.js';

/** Live counts of a running fetch (`progress.run`), written as the fetch goes. */
export const ZSourceRunCounts = z.object({
  started_at: zText(),
  found: z
    .number()
    .int()
    .describe('Pages found so far (start page, sitemap entries, links): queued or fetched'),
  fetched: z.number().int().describe('Pages (crawl, sitemap, url) or rows (sql) stored so far'),
  failed: z.number().int().describe('Pages that failed so far (each listed by GET /sources/{id}/failures)'),
  skipped: z.number().int().describe('Pages skipped so far: robots.txt, non-HTML, duplicates, noindex'),
});
export type TSourceRunCounts = z.infer<typeof ZSourceRunCounts>;

/** How far a source's content got: its documents by index state, and what its last fetch did. */
export const ZSourceProgress = z.object({
  documents_indexed: z.number().int().describe('Documents whose chunks are written'),
  documents_pending: z.number().int().describe('Documents waiting for their index job'),
  documents_failed: z.number().int().describe('Documents whose index job gave up after its retries'),
  chunks_total: z.number().int().describe("Chunks of the source's documents"),
  chunks_embedded: z
    .number()
    .int()
    .nullable()
    .describe('Chunks that have their vector under the active provider; null when vectors are off'),
  run: ZSourceRunCounts.nullable().describe('The running fetch (status fetching); null otherwise'),
  last_run: z
    .object({
      finished_at: zText(),
      found: z.number().int().nullable().describe('Pages found (null for fetches before this count)'),
      fetched: z.number().int().describe('Pages (crawl, sitemap, url) or rows (sql) stored'),
      failed: z.number().int().nullable().describe('Pages that failed (null for fetches before this count)'),
      skipped: z.number().int().describe('Pages skipped: robots.txt, non-HTML, duplicates, noindex, errors'),
      removed: z.number().int().describe('Documents removed because the page or row is gone'),
      stopped_by: zText().describe('done, page_cap, row_cap, time_budget or aborted'),
      failures: z.array(z.object({ url: zText(), reason: zText() })).describe('The first 20'),
    })
    .nullable(),
});
export type TSourceProgress = z.infer<typeof ZSourceProgress>;

/** A knowledge source as the admin API shows it. */
export const ZSource = z.object({
  id: zText(),
  agent_id: zText(),
  type: zText().describe(
    'site (synced posts), products (synced products and coupons), text (pasted), url (one page), ' +
      'crawl (a site from a start URL), sitemap, sql (rows of a SELECT), upload (a file), kb (published articles)',
  ),
  name: zText(),
  status: zText().describe(
    'ready (synced sites); queued → fetching → indexing → indexed | failed (url, crawl, sitemap, sql); ' +
      'indexing → indexed | failed (text, upload, kb). indexed: fetch over, every document indexed and embedded',
  ),
  error: zText().nullable().describe('Why the source failed, verbatim (e.g. a refused URL)'),
  site_url: zText().nullable(),
  plugin_version: zText().nullable(),
  plugin_base: zText().nullable().describe('Where the service calls the site plugin routes'),
  last_synced_at: zText().nullable(),
  document_count: z.number().int(),
  coupon_count: z.number().int().nullable(),
  config: z
    .record(zText(), zStorableJson())
    .describe('The settings it was created with (URL, caps, SQL connection and query, file); never a secret'),
  progress: ZSourceProgress,
  created_at: zText(),
  updated_at: zText(),
});
export type TSource = z.infer<typeof ZSource>;

/** One page a fetch could not store (`GET /sources/{id}/failures`). */
export const ZSourceFailure = z.object({
  url: zText(),
  reason: zText().describe('Verbatim, e.g. "failed: https://example.com/a answered HTTP 500"'),
  at: zText(),
});
export type TSourceFailure = z.infer<typeof ZSourceFailure>;

/**
 * Body of `PATCH /api/v1/admin/sources/{id}`: the plugin routes' base URL of a synced site,
 * for sites whose REST prefix is not the default. http(s), no query or fragment, ends in `/`.
 */
export const ZSourceUpdate = z.strictObject({
  plugin_base: storable(z.url({ protocol: /^https?$/ }).max(2048))
    .refine((value) => !/[?#]/.test(value), 'Must not contain a query or fragment.')
    .transform((value) => (value.endsWith('/') ? value : `${value}/`)),
});
export type TSourceUpdate = z.infer<typeof ZSourceUpdate>;

/** Longest pasted text of a `text` source, in characters (UTF-16 code units, as JSON counts them). */
export const TEXT_SOURCE_MAX_CHARS = 2_000_000;

/** Source types an admin creates (site plugin sources are created by their syncs only). */
export const ZSourceCreateText = z.strictObject({
  type: z.literal('text'),
  name: zText().trim().max(200).optional(),
  text: zText().min(1).max(TEXT_SOURCE_MAX_CHARS).describe('Pasted text, indexed as one document'),
});

/** A single web page, fetched through the crawl-safety guard. */
export const ZSourceCreateUrl = z.strictObject({
  type: z.literal('url'),
  name: zText().trim().max(200).optional(),
  url: storable(z.url({ protocol: /^https?$/ }).max(2048)).describe(
    'http(s) URL of one page (HTML or plain text)',
  ),
});

/** Most pages a crawl or sitemap source indexes, and its default. */
export const CRAWL_MAX_PAGES = 2000;
export const CRAWL_DEFAULT_PAGES = 200;
/** Deepest link distance a crawl follows, and its default. */
export const CRAWL_MAX_DEPTH = 10;
export const CRAWL_DEFAULT_DEPTH = 3;

/** Longest least delay between two requests a source may ask for, in ms. */
export const CRAWL_MAX_DELAY_MS = 60_000;
/** Most requests in flight a source may ask for. */
export const CRAWL_MAX_CONCURRENCY = 8;

/** Per-source crawl politeness; absent means the service's default for the host. */
function crawlPoliteness() {
  return {
    crawl_delay_ms: z
      .number()
      .int()
      .min(0)
      .max(CRAWL_MAX_DELAY_MS)
      .optional()
      .describe('Least ms between two requests to the site (robots.txt Crawl-delay may raise it)'),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(CRAWL_MAX_CONCURRENCY)
      .optional()
      .describe('Requests in flight at once'),
  };
}

const ZHttpUrl = storable(z.url({ protocol: /^https?$/ }).max(2048));

/** A site, crawled breadth-first from a start URL through the crawl-safety guard. */
export const ZSourceCreateCrawl = z.strictObject({
  type: z.literal('crawl'),
  name: zText().trim().max(200).optional(),
  url: ZHttpUrl.describe('Start page; only pages of its origin (scheme, host, port) are followed'),
  max_pages: z.number().int().min(1).max(CRAWL_MAX_PAGES).default(CRAWL_DEFAULT_PAGES),
  max_depth: z.number().int().min(0).max(CRAWL_MAX_DEPTH).default(CRAWL_DEFAULT_DEPTH),
  ...crawlPoliteness(),
});

/** The pages a sitemap (or sitemap index) lists, on the sitemap's own origin. */
export const ZSourceCreateSitemap = z.strictObject({
  type: z.literal('sitemap'),
  name: zText().trim().max(200).optional(),
  url: ZHttpUrl.describe('URL of sitemap.xml (urlset or sitemap index; gzip accepted)'),
  max_pages: z.number().int().min(1).max(CRAWL_MAX_PAGES).default(CRAWL_DEFAULT_PAGES),
  ...crawlPoliteness(),
});

/** Body of `POST /api/v1/admin/agents/{id}/sources`: a text, url, crawl, sitemap or sql source. */
export const ZSourceCreate = z.discriminatedUnion('type', [
  ZSourceCreateText,
  ZSourceCreateUrl,
  ZSourceCreateCrawl,
  ZSourceCreateSitemap,
  ZSourceCreateSql,
]);
export type TSourceCreate = z.infer<typeof ZSourceCreate>;
