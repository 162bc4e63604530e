// The service client. Rules (docs/widget-api.md): a bearer token on every route after init;
// a 401 re-inits once and retries that request once; a 429 is abandoned, never retried; a
// failure is returned as a value, never thrown.
import { readSse, type TSseFrame } from './sse.js';
import { isInit, isRecord, str, type TInit, type TInitRequest } from './types.js';

/** The part of `fetch` the client uses (injectable in tests). */
export type TFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Why a call failed. */
export type TFailure = 'rate_limited' | 'network' | 'unauthorized' | 'stalled' | 'failed';

/** A call's outcome; `message` is the service's own wording when it sent one. */
export type TResult =
  | { ok: true; status: number; data: unknown }
  | { ok: false; status: number; error: TFailure; code: string; message: string };

/** What the client needs from its host. */
export type TApiOptions = {
  base: string;
  fetch: TFetch;
  initBody: () => TInitRequest;
  onInit: (data: TInit) => void;
  stallMs?: number;
};

/** The service client the widget uses. */
export type TApi = ReturnType<typeof createApi>;

const fail = (status: number, error: TFailure, body?: unknown): TResult => ({
  ok: false,
  status,
  error,
  code: str(body, 'code'),
  message: str(body, 'message'),
});

async function readJson(res: Response): Promise<unknown> {
  try {
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** Turns a response into a result: `{data}` envelopes are unwrapped. */
export async function toResult(res: Response | null): Promise<TResult> {
  if (!res) return fail(0, 'network');
  if (res.status === 429) return fail(429, 'rate_limited');
  const body = await readJson(res);
  if (res.status === 401) return fail(401, 'unauthorized');
  if (!res.ok) return fail(res.status, 'failed', body);
  return { ok: true, status: res.status, data: isRecord(body) && 'data' in body ? body.data : body };
}

/** Creates the client; `init()` must succeed before token routes work (they call it when needed). */
export function createApi(options: TApiOptions) {
  let token = '';
  let pending: Promise<TResult> | null = null;

  async function send(
    method: string,
    path: string,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<Response | null> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (token && path !== '/v1/widget/init') headers.Authorization = `Bearer ${token}`;
    try {
      const init: RequestInit = { method, headers, credentials: 'omit', mode: 'cors' };
      if (body !== undefined) init.body = JSON.stringify(body);
      if (signal) init.signal = signal;
      return await options.fetch(options.base + path, init);
    } catch {
      return null;
    }
  }

  /** Calls init (shared by concurrent callers) and keeps its token. */
  function init(): Promise<TResult> {
    pending ??= (async () => {
      try {
        const result = await toResult(await send('POST', '/v1/widget/init', options.initBody()));
        if (!result.ok) return result;
        if (!isInit(result.data)) return fail(result.status, 'failed');
        token = result.data.token;
        options.onInit(result.data);
        return result;
      } finally {
        pending = null;
      }
    })();
    return pending;
  }

  /** Sends once; on a 401, re-inits once and sends once more. */
  async function withAuth(
    attempt: () => Promise<Response | null>,
  ): Promise<{ res: Response } | { failed: TResult }> {
    if (!token) {
      const first = await init();
      if (!first.ok) return { failed: first };
    }
    let res = await attempt();
    if (res?.status === 401) {
      const again = await init();
      if (!again.ok) return { failed: again };
      res = await attempt();
    }
    return res ? { res } : { failed: fail(0, 'network') };
  }

  return {
    init,
    /** Switches to a token handed out by `conversation/clear`. */
    setToken(next: string): void {
      token = next;
    },
    /** Forgets the token (after `DELETE me`); the next call inits again. */
    reset(): void {
      token = '';
    },
    /** A JSON call to a token route. */
    async call(method: string, path: string, body?: unknown): Promise<TResult> {
      const sent = await withAuth(() => send(method, path, body));
      return 'failed' in sent ? sent.failed : toResult(sent.res);
    },
    /** Posts to an SSE route and feeds its frames to `onFrame` until it ends. */
    async stream(path: string, body: unknown, onFrame: (frame: TSseFrame) => void): Promise<TResult> {
      let controller: AbortController | undefined;
      const sent = await withAuth(() => {
        controller = typeof AbortController === 'function' ? new AbortController() : undefined;
        return send('POST', path, body, controller?.signal);
      });
      if ('failed' in sent) return sent.failed;
      const res = sent.res;
      if (!res.ok || !res.body) return toResult(res.ok ? null : res);
      const end = await readSse(res.body, onFrame, options.stallMs ?? 30_000, () => controller?.abort());
      return end === 'end'
        ? { ok: true, status: res.status, data: null }
        : fail(0, end === 'stalled' ? 'stalled' : 'network');
    },
  };
}
