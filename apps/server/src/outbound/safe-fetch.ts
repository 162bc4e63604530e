import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { type ConnectHook, pinnedConnector } from './pinned-connector.js';
import { checkUrl, type UrlGuardOptions } from './url-guard.js';

/** Options of `safeFetch`; every limit has a safe default. */
export type SafeFetchOptions = UrlGuardOptions & {
  /** Redirects followed before refusing; default 5. */
  maxRedirects?: number;
  /** Budget for the whole fetch (DNS, every hop, the body); default 10 000 ms. */
  timeoutMs?: number;
  /** Hard cap on the response body; default 10 MiB. */
  maxBytes?: number;
  method?: 'GET' | 'POST';
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
  /** Called with the Content-Type header ('' when absent); false refuses before the body is read. */
  accept?: (contentType: string) => boolean;
  /** Replaces the socket layer (tests only): sees the vetted addresses, must not reach anything else. */
  connect?: ConnectHook;
};

/** A fetched response (`url` is the final one after redirects), or the reason it was not fetched. */
export type SafeFetchResult =
  | {
      ok: true;
      status: number;
      url: string;
      headers: Record<string, string>;
      body: Buffer;
      contentType: string;
    }
  | { ok: false; reason: string };

/** Default body cap: 10 MiB. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
// Credentials must not follow a redirect to another origin (the Fetch standard drops Authorization).
const CROSS_ORIGIN_DROPPED = ['authorization', 'cookie', 'proxy-authorization'];
const ABORTED = Symbol('aborted');

type Request = {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
};
type Hop = { ok: true; redirect: string } | { ok: true; redirect?: undefined; result: SafeFetchResult };
type Limits = { maxBytes: number; timeoutMs: number; accept: ((contentType: string) => boolean) | undefined };

/**
 * Fetches a URL that passed the crawl-safety guard. Every hop is checked with `checkUrl`, the
 * socket is pinned to the vetted addresses, redirects are followed by hand and re-checked, and
 * time and size are capped. Never throws: failures come back as `{ ok: false, reason }`.
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const maxRedirects = options.maxRedirects ?? 5;
  const limits: Limits = {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? 10_000,
    accept: options.accept,
  };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const timedOut: SafeFetchResult = { ok: false, reason: `refused: timed out after ${limits.timeoutMs} ms` };
  let current = rawUrl;
  let req: Request = {
    method: options.method ?? 'GET',
    headers: withoutHost(options.headers ?? {}),
    body: options.method === 'POST' ? options.body : undefined,
  };
  try {
    for (let redirects = 0; ; redirects += 1) {
      const check = await untilAborted(checkUrl(current, options), controller.signal);
      if (check === ABORTED) return timedOut;
      if (!check.ok) return check;
      const hop = await fetchHop(check.url, check.addresses, req, limits, controller.signal, options.connect);
      if (!hop.ok) return hop;
      if (hop.redirect === undefined) return hop.result;
      if (redirects >= maxRedirects)
        return { ok: false, reason: `refused: more than ${maxRedirects} redirects` };
      let next: URL;
      try {
        next = new URL(hop.redirect, check.url);
      } catch {
        return { ok: false, reason: 'refused: the redirect location is not a valid URL' };
      }
      req = redirectedRequest(req, hop.status, check.url, next);
      current = next.href;
    }
  } catch (error) {
    // Defensive: the pieces above report through return values, but "never throws" is the contract.
    return controller.signal.aborted ? timedOut : { ok: false, reason: `failed: ${describeError(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/** One request to one vetted URL over an Agent pinned to its addresses; the Agent is always destroyed. */
async function fetchHop(
  url: URL,
  addresses: string[],
  req: Request,
  limits: Limits,
  signal: AbortSignal,
  hook: ConnectHook | undefined,
): Promise<(Hop & { status: number }) | { ok: false; reason: string }> {
  const hostname = url.hostname;
  const agent = new Agent({
    connect: pinnedConnector({ hostname, addresses, timeoutMs: limits.timeoutMs, hook }),
    connections: 1,
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
  });
  const target = new URL(url.href);
  target.hash = '';
  try {
    const response = await request(target, {
      dispatcher: agent,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal,
    });
    const status = response.statusCode;
    const headers = flattenHeaders(response.headers);
    const location = headers.location;
    if (REDIRECT_STATUSES.has(status) && location !== undefined && location !== '') {
      discard(response.body);
      return { ok: true, redirect: location, status };
    }
    const contentType = headers['content-type'] ?? '';
    if (limits.accept && !limits.accept(contentType)) {
      discard(response.body);
      return { ok: false, reason: `refused: content type ${contentType || '(none)'} is not accepted` };
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      discard(response.body);
      return { ok: false, reason: `refused: response larger than ${limits.maxBytes} bytes` };
    }
    const body = await readCapped(response.body, limits.maxBytes);
    if (body === undefined) {
      discard(response.body);
      return { ok: false, reason: `refused: response larger than ${limits.maxBytes} bytes` };
    }
    return { ok: true, status, result: { ok: true, status, url: url.href, headers, body, contentType } };
  } catch (error) {
    if (signal.aborted) return { ok: false, reason: `refused: timed out after ${limits.timeoutMs} ms` };
    return { ok: false, reason: `failed: request to ${url.origin} failed (${describeError(error)})` };
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

/** Drops a body we will not read; the listener keeps the AbortError that destroy() emits from escaping. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Reads a stream up to `maxBytes`; undefined as soon as it goes over. */
async function readCapped(stream: AsyncIterable<unknown>, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    total += buffer.length;
    if (total > maxBytes) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

/** The request for the next hop (Fetch standard §4.4 "HTTP-redirect fetch"). */
function redirectedRequest(req: Request, status: number, from: URL, to: URL): Request {
  const headers = { ...req.headers };
  if (from.origin !== to.origin) {
    for (const name of CROSS_ORIGIN_DROPPED) delete headers[name];
  }
  // 303, and 301/302 after a POST, continue as a GET without a body.
  if (status === 303 || ((status === 301 || status === 302) && req.method === 'POST')) {
    delete headers['content-type'];
    delete headers['content-length'];
    return { method: 'GET', headers, body: undefined };
  }
  return { method: req.method, headers, body: req.body };
}

/** Lower-cased header names; the Host header always comes from the vetted URL. */
function withoutHost(headers: Readonly<Record<string, string>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower !== 'host') result[lower] = value;
  }
  return result;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}

/** Resolves with the promise's value, or ABORTED as soon as the signal fires (DNS cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function describeError(error: unknown): string {
  let current: unknown = error;
  // undici wraps socket errors; the innermost code (ECONNREFUSED, ENOTFOUND...) is the useful one.
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if ('code' in current && typeof current.code === 'string' && !current.code.startsWith('UND_ERR_')) {
      return current.code;
    }
    if (!('cause' in current) || current.cause === undefined) break;
    current = current.cause;
  }
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return error instanceof Error ? error.message : String(error);
}
