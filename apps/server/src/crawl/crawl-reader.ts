import type { ReadPage } from './crawl-engine.js';
import { readHtmlPage } from './read-html-page.js';
import { parseSitemap, type ReadSitemap } from './sitemap.js';

/**
 * How a crawl turns fetched bytes into pages and sitemaps. The service passes the extraction
 * pool (extraction/), which runs these in worker threads with a heap cap and a time limit; a
 * rejection fails that one URL, and its message completes `failed: <url> …`.
 */
export type CrawlReader = { readPage: ReadPage; readSitemap: ReadSitemap };

/** The same readers on the calling thread: for tests and tools that read trusted input. */
export const inlineCrawlReader: CrawlReader = {
  readPage: async (html, url) => readHtmlPage(html, url),
  readSitemap: async (body) => parseSitemap(body),
};
