// Signed JSON calls to the service's /api/v1/wp/* routes, with timeouts, 429 retries and
// answers parsed against the contract. Internal to the sync client.
import { ZServiceError } from '@service/contract';
import { signBody } from './signature.js';
import {
  badResponseError,
  type FailedCall,
  networkError,
  rateLimitedError,
  syncErrorFromAnswer,
} from './sync-failures.js';

/** This SDK's version, sent in the User-Agent. */
export const SDK_VERSION = '0.1.0';

/** Anything with zod's `safeParse` (the contract's schemas), without depending on zod here. */
export type Parser<T> = {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
};

/** How the HTTP layer is set up; every field is resolved (defaults applied) by the client. */
export type ServiceHttpOptions = {
  serviceUrl: string;
  apiToken: string;
  pluginVersion: string;
  fetch: typeof fetch;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  maxRetries: number;
  maxRetryAfterSeconds: number;
  timeoutMs: number;
};

/** One call: whether to sign it, and what to name in error messages. */
export type CallOptions = Omit<FailedCall, 'route'> & { signed: boolean };

/** Posts JSON to a service route and returns the parsed `data` of its answer. */
export type ServiceHttp = {
  post<T>(path: string, payload: unknown, parser: Parser<T>, options: CallOptions): Promise<T>;
};

/**
 * Seconds to wait from a `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3),
 * measured against `now`. Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** Creates the HTTP layer of the sync client. */
export function createServiceHttp(options: ServiceHttpOptions): ServiceHttp {
  const base = options.serviceUrl.replace(/\/+$/, '');
  const userAgent = `service-site-plugin/${SDK_VERSION} (plugin ${options.pluginVersion})`;
  // Called unbound: a browser's fetch throws "Illegal invocation" when called on another object.
  const fetchImpl = options.fetch;

  async function send(url: string, body: string, signed: boolean): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.apiToken}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': userAgent,
    };
    if (signed) {
      // A fresh timestamp on every attempt, so a retry after a long Retry-After is not stale.
      const timestamp = Math.floor(options.now().getTime() / 1000);
      headers['x-service-signature'] = await signBody(options.apiToken, body, timestamp);
    }
    return fetchImpl(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(options.timeoutMs) });
  }

  async function readText(response: Response, url: string, call: FailedCall): Promise<string> {
    try {
      return await response.text();
    } catch (cause) {
      throw networkError({ call, url, cause, timeoutMs: options.timeoutMs });
    }
  }

  return {
    async post<T>(path: string, payload: unknown, parser: Parser<T>, callOptions: CallOptions): Promise<T> {
      const { signed, ...described } = callOptions;
      const call: FailedCall = { route: `POST ${path}`, ...described };
      const url = `${base}${path}`;
      // Serialised once: exactly these bytes are signed and sent, on every attempt.
      const body = JSON.stringify(payload);
      for (let attempt = 0; ; attempt++) {
        let response: Response;
        try {
          response = await send(url, body, signed);
        } catch (cause) {
          throw networkError({ call, url, cause, timeoutMs: options.timeoutMs });
        }
        const requestId = response.headers.get('x-request-id') ?? undefined;
        const text = await readText(response, url, call);
        const extra = requestId ? { requestId } : {};
        if (response.status === 429) {
          const asked = parseRetryAfter(response.headers.get('retry-after'), options.now());
          // No usable Retry-After: back off 1, 2, 4… s, within the same ceiling.
          const wait = asked ?? Math.min(2 ** attempt, options.maxRetryAfterSeconds);
          const limits = { call, retryAfterSeconds: wait, retries: attempt, ...extra };
          const maxRetryAfterSeconds = options.maxRetryAfterSeconds;
          if (wait > maxRetryAfterSeconds)
            throw rateLimitedError({ ...limits, reason: 'wait_too_long', maxRetryAfterSeconds });
          if (attempt >= options.maxRetries)
            throw rateLimitedError({ ...limits, reason: 'retries_exhausted', maxRetryAfterSeconds });
          await options.sleep(wait * 1000);
          continue;
        }
        if (response.status < 200 || response.status > 299) {
          const envelope = ZServiceError.safeParse(parseJson(text));
          throw syncErrorFromAnswer({
            status: response.status,
            envelope: envelope.success ? envelope.data : null,
            call,
            ...extra,
          });
        }
        return parseAnswer(text, parser, { call, httpStatus: response.status, ...extra });
      }
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The answer's `data`, parsed with the route's schema; anything else is `bad_response`. */
function parseAnswer<T>(
  text: string,
  parser: Parser<T>,
  context: { call: FailedCall; httpStatus: number; requestId?: string },
): T {
  const json = parseJson(text);
  if (json === undefined) {
    const start = text.trim().slice(0, 60);
    return fail(context, start ? `not JSON: "${start}${text.trim().length > 60 ? '…' : ''}"` : 'empty body');
  }
  if (typeof json !== 'object' || json === null || !('data' in json))
    return fail(context, 'JSON without the `data` envelope');
  const parsed = parser.safeParse(json.data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `data${issue.path.map((part) => `.${String(part)}`).join('')}: ${issue.message}`);
  return fail(context, issues.join('; '));
}

function fail(context: { call: FailedCall; httpStatus: number; requestId?: string }, detail: string): never {
  throw badResponseError({ ...context, detail });
}
