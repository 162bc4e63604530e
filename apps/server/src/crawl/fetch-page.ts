import type { ConnectHook, Resolve, SafeFetchResult } from '../outbound/index.js';
import { safeFetch } from '../outbound/index.js';
import { CRAWLER_USER_AGENT } from './robots.js';

/** Per-request options of a `FetchPage`: which content types to read, and a body cap override. */
export type FetchPageOptions = {
  /** Called with the Content-Type; false refuses the response before its body is read. */
  accept?: (contentType: string) => boolean;
  maxBytes?: number;
};

/** How the crawler fetches one URL; production passes `guardedFetcher(...)`, tests may pass fakes. */
export type FetchPage = (url: string, options?: FetchPageOptions) => Promise<SafeFetchResult>;

/** Options of `guardedFetcher`. */
export type GuardedFetcherOptions = {
  /** SAFE_URL_ALLOW entries (`host` or `host:port`); default none. */
  allow?: readonly string[];
  /** Budget of one fetch (DNS, redirects, body); default 15 000 ms. */
  timeoutMs?: number;
  /** Body cap of one fetch unless the call asks for another; default 10 MiB. */
  maxBytes?: number;
  /** Test-only injectables, passed through to `safeFetch`. */
  resolve?: Resolve;
  connect?: ConnectHook;
};

/** Default budget of one crawler fetch. */
export const CRAWL_FETCH_TIMEOUT_MS = 15_000;
/** Default body cap of one crawler fetch: 10 MiB. */
export const CRAWL_FETCH_MAX_BYTES = 10 * 1024 * 1024;

const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;

/** A `FetchPage` on `safeFetch`: every request goes through the crawl-safety guard, as the crawler. */
export function guardedFetcher(options: GuardedFetcherOptions = {}): FetchPage {
  const allow = [...(options.allow ?? [])];
  return (url, call = {}) =>
    safeFetch(url, {
      allow,
      resolve: options.resolve,
      connect: options.connect,
      timeoutMs: options.timeoutMs ?? CRAWL_FETCH_TIMEOUT_MS,
      maxBytes: call.maxBytes ?? options.maxBytes ?? CRAWL_FETCH_MAX_BYTES,
      accept: call.accept,
      headers: {
        'user-agent': CRAWLER_USER_AGENT,
        accept: 'text/html, application/xhtml+xml;q=0.9, */*;q=0.1',
      },
    });
}

/** True for an HTML Content-Type (text/html or application/xhtml+xml). */
export function isHtmlContentType(contentType: string): boolean {
  return HTML_TYPE.test(contentType);
}

/**
 * Decodes an HTML body: the Content-Type charset, else a `<meta charset>` in the first 1 KiB
 * (the HTML standard's prescan window), else UTF-8; an unknown label falls back to UTF-8.
 */
export function decodeHtml(body: Buffer, contentType: string): string {
  const declared =
    /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(body.subarray(0, 1024).toString('latin1'))?.[1] ??
    'utf-8';
  try {
    return new TextDecoder(declared).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
