import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { normalizeUrl, originOf } from './crawl-url.js';
import type { FetchPage } from './fetch-page.js';

/** A page listed in a sitemap. */
export type SitemapUrl = { loc: string; lastmod?: string };
/** A parsed sitemap: a list of pages, an index of other sitemaps, or why it could not be read. */
export type Sitemap =
  | { kind: 'urlset'; urls: SitemapUrl[] }
  | { kind: 'index'; sitemaps: string[] }
  | { kind: 'invalid'; reason: string };

/** Decompressed size cap: the sitemaps protocol's own limit, 50 MiB. */
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** Child sitemaps read from indexes, in all, by one `collectSitemapUrls`. */
export const SITEMAP_MAX_CHILDREN = 50;
/** Index levels followed below the first sitemap. */
export const SITEMAP_MAX_DEPTH = 2;

// No entity processing at all: a DOCTYPE's entities (billion laughs, external SYSTEM entities)
// are never expanded or resolved; the five predefined ones and character references are decoded
// by `decodeXmlText`, one pass, nothing recursive.
const parser = new XMLParser({
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Sitemap bytes to XML text: gunzipped when they start with the gzip magic bytes, size-capped.
 * zlib checks the output after each chunk and stops once it passes `maxBytes`, so a gzip bomb
 * costs at most `maxBytes` of inflating. Synchronous: the service calls it (through
 * `parseSitemap`) in an extraction thread, never on the event loop.
 */
export function sitemapXml(
  body: Buffer,
  maxBytes = SITEMAP_MAX_BYTES,
): { ok: true; xml: string } | { ok: false; reason: string } {
  // The magic bytes decide, not the .gz name: servers often send .xml.gz already decoded.
  if (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) {
    try {
      return { ok: true, xml: gunzipSync(body, { maxOutputLength: maxBytes }).toString('utf8') };
    } catch (error) {
      const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
      return code === 'ERR_BUFFER_TOO_LARGE'
        ? { ok: false, reason: `larger than ${maxBytes} bytes once decompressed` }
        : { ok: false, reason: 'corrupt gzip data' };
    }
  }
  if (body.length > maxBytes) return { ok: false, reason: `larger than ${maxBytes} bytes` };
  return { ok: true, xml: body.toString('utf8') };
}

/** Parses sitemap XML (`<urlset>` or `<sitemapindex>`, any namespace prefix); never throws. */
export function parseSitemapXml(xml: string): Sitemap {
  let root: unknown;
  try {
    root = parser.parse(xml);
  } catch (error) {
    return {
      kind: 'invalid',
      reason: `not well-formed XML (${error instanceof Error ? error.message : ''})`,
    };
  }
  const urlset = field(root, 'urlset');
  if (urlset !== undefined) {
    const urls: SitemapUrl[] = [];
    for (const entry of list(field(urlset, 'url'))) {
      const loc = text(field(entry, 'loc'));
      if (loc === '') continue;
      const lastmod = text(field(entry, 'lastmod'));
      urls.push(lastmod === '' ? { loc } : { loc, lastmod });
    }
    return { kind: 'urlset', urls };
  }
  const index = field(root, 'sitemapindex');
  if (index !== undefined) {
    const sitemaps = list(field(index, 'sitemap'))
      .map((entry) => text(field(entry, 'loc')))
      .filter((loc) => loc !== '');
    return { kind: 'index', sitemaps };
  }
  return { kind: 'invalid', reason: 'neither <urlset> nor <sitemapindex>' };
}

/** `sitemapXml` then `parseSitemapXml`: the work a {@link ReadSitemap} does. */
export function parseSitemap(body: Buffer, maxBytes = SITEMAP_MAX_BYTES): Sitemap {
  const xml = sitemapXml(body, maxBytes);
  return xml.ok ? parseSitemapXml(xml.xml) : { kind: 'invalid', reason: xml.reason };
}

/**
 * How fetched sitemap bytes are parsed (`parseSitemap`, run in a bounded worker in production: a
 * 50 MiB sitemap takes seconds to parse). A rejection fails that sitemap; its message completes
 * `failed: <url> …`.
 */
export type ReadSitemap = (body: Buffer) => Promise<Sitemap>;

/** Options of `collectSitemapUrls`. */
export type CollectSitemapOptions = {
  fetch: FetchPage;
  readSitemap: ReadSitemap;
  /** Stop once this many page URLs are collected. */
  maxPages: number;
  /** Child sitemaps read from indexes, in all; default `SITEMAP_MAX_CHILDREN` (50). */
  maxSitemaps?: number;
  /** Index levels followed below the first sitemap; default `SITEMAP_MAX_DEPTH` (2). */
  maxDepth?: number;
};

/** What `collectSitemapUrls` found, or why the first sitemap could not be read. */
export type SitemapCollection =
  | { ok: true; urls: SitemapUrl[]; sitemapsRead: number; failures: { url: string; reason: string }[] }
  | { ok: false; reason: string };

/**
 * Walks a sitemap (and, breadth-first, the sitemaps an index lists) and collects the page URLs
 * on the first sitemap's origin, in normal form, de-duplicated, up to `maxPages`. Child sitemaps
 * of another origin are ignored (the sitemaps protocol's own rule); a child that fails is
 * recorded in `failures`, while a first sitemap that fails makes the whole result `ok: false`.
 */
export async function collectSitemapUrls(
  startUrl: string,
  options: CollectSitemapOptions,
): Promise<SitemapCollection> {
  const maxSitemaps = options.maxSitemaps ?? SITEMAP_MAX_CHILDREN;
  const maxDepth = options.maxDepth ?? SITEMAP_MAX_DEPTH;
  const origin = originOf(startUrl);
  const seenSitemaps = new Set<string>([startUrl]);
  const seenPages = new Set<string>();
  const urls: SitemapUrl[] = [];
  const failures: { url: string; reason: string }[] = [];
  const queue: { url: string; depth: number }[] = [{ url: startUrl, depth: 0 }];
  let sitemapsRead = 0;
  let children = 0;
  for (let item = queue.shift(); item !== undefined && urls.length < options.maxPages; item = queue.shift()) {
    const sitemap = await fetchSitemap(item.url, options);
    sitemapsRead += 1;
    if (sitemap.kind === 'invalid') {
      if (item.depth === 0) return { ok: false, reason: sitemap.reason };
      failures.push({ url: item.url, reason: sitemap.reason });
      continue;
    }
    if (sitemap.kind === 'urlset') {
      for (const entry of sitemap.urls) {
        const loc = normalizeUrl(entry.loc);
        if (loc === null || originOf(loc) !== origin || seenPages.has(loc)) continue;
        seenPages.add(loc);
        urls.push({ ...entry, loc });
        if (urls.length >= options.maxPages) break;
      }
      continue;
    }
    if (item.depth >= maxDepth) continue;
    for (const child of sitemap.sitemaps) {
      const url = normalizeUrl(child);
      if (url === null || originOf(url) !== origin || seenSitemaps.has(url)) continue;
      if (children >= maxSitemaps) break;
      seenSitemaps.add(url);
      children += 1;
      queue.push({ url, depth: item.depth + 1 });
    }
  }
  return { ok: true, urls, sitemapsRead, failures };
}

/** Fetches and parses one sitemap; failures (guard, HTTP, XML, limits) come back as `invalid` with the reason. */
async function fetchSitemap(url: string, options: CollectSitemapOptions): Promise<Sitemap> {
  const fetched = await options.fetch(url, { maxBytes: SITEMAP_MAX_BYTES });
  if (!fetched.ok) return { kind: 'invalid', reason: fetched.reason };
  if (fetched.status < 200 || fetched.status > 299) {
    return { kind: 'invalid', reason: `failed: ${url} answered HTTP ${fetched.status}` };
  }
  let sitemap: Sitemap;
  try {
    sitemap = await options.readSitemap(fetched.body);
  } catch (error) {
    return {
      kind: 'invalid',
      reason: `failed: ${url} ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (sitemap.kind !== 'invalid') return sitemap;
  return { kind: 'invalid', reason: `failed: ${url} is not a readable sitemap (${sitemap.reason})` };
}

function field(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, name) ? Reflect.get(value, name) : undefined;
}

function list(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Element text with the predefined entities and character references decoded, trimmed. */
function text(value: unknown): string {
  const raw = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
  return raw
    .replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/gi, (whole, name: string) => {
      if (name[0] !== '#') return PREDEFINED[name.toLowerCase()] ?? whole;
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .trim();
}
