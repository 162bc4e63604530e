import { dataEnvelope, ZServiceError } from '@service/contract';
import { z } from 'zod';

// Every answer is `{data}`; the route's own schema then checks what is inside.
const ZAnyEnvelope = dataEnvelope(z.unknown());

/** Where the admin API is mounted (the service's ADMIN_PREFIX). */
export const API_BASE = '/api/v1/admin';

/** An answer of 400 and above, in the service's envelope `{message, code, errors}`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Field path → messages, shown next to the fields. */
    readonly errors: Record<string, string[]>,
    /** Seconds to wait (429 Retry-After), when the service said. */
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

type Handlers = {
  /** The session's CSRF token, sent on every request that changes something. */
  csrfToken: () => string | null;
  /** Called on a 401 from a route that needs a session: the session ended. */
  onUnauthenticated: () => void;
};

let handlers: Handlers = { csrfToken: () => null, onUnauthenticated: () => {} };

/** Wires the API client to the session (set once by the session module). */
export function configureApi(next: Handlers): void {
  handlers = next;
}

type RequestOptions = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** A 401 here is an answer, not an ended session (signing in, reading the session). */
  isSessionCall?: boolean;
  /** What the caller reads: JSON (the default), or a stream of server-sent events. */
  accept?: 'application/json' | 'text/event-stream';
  /** Stops the request (and a stream being read). */
  signal?: AbortSignal;
};

/**
 * Calls the admin API and parses the `{data}` answer with the contract's schema. Errors become
 * an {@link ApiError}; a 401 on a signed-in route ends the session.
 */
export async function api<T extends z.ZodType>(
  path: string,
  schema: T,
  options: RequestOptions = {},
): Promise<z.infer<T>> {
  const response = await send(path, options);
  const envelope = ZAnyEnvelope.safeParse(await response.json().catch(() => null));
  const parsed = schema.safeParse(envelope.success ? envelope.data.data : undefined);
  if (!parsed.success) {
    throw new ApiError(response.status, 'bad_answer', 'The service answered something unexpected.', {}, null);
  }
  return parsed.data;
}

/** Calls a paged list route and parses its whole answer, `{data, meta: {next_cursor}}`, with `schema`. */
export async function apiPage<T extends z.ZodType>(path: string, schema: T): Promise<z.infer<T>> {
  const response = await send(path, {});
  const parsed = schema.safeParse(await response.json().catch(() => null));
  if (!parsed.success) {
    throw new ApiError(response.status, 'bad_answer', 'The service answered something unexpected.', {}, null);
  }
  return parsed.data;
}

/** Calls a route that answers either 200 `{data}` (parsed with `schema`) or 204 (null). */
export async function apiOrNoContent<T extends z.ZodType>(
  path: string,
  schema: T,
  options: RequestOptions = {},
): Promise<z.infer<T> | null> {
  const response = await send(path, options);
  if (response.status === 204) return null;
  const envelope = ZAnyEnvelope.safeParse(await response.json().catch(() => null));
  const parsed = schema.safeParse(envelope.success ? envelope.data.data : undefined);
  if (!parsed.success) {
    throw new ApiError(response.status, 'bad_answer', 'The service answered something unexpected.', {}, null);
  }
  return parsed.data;
}

/** Calls a route that answers 204 (no body). */
export async function apiVoid(path: string, options: RequestOptions = {}): Promise<void> {
  await send(path, options);
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const csrf = handlers.csrfToken();
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch {
    throw options.signal?.aborted ? stoppedError() : networkError();
  }
  if (response.ok) return response;
  const error = await errorOf(response);
  if (error.status === 401 && !options.isSessionCall) handlers.onUnauthenticated();
  throw error;
}

async function errorOf(response: Response): Promise<ApiError> {
  const body = ZServiceError.safeParse(await response.json().catch(() => null));
  const retry = Number(response.headers.get('retry-after'));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
  if (!body.success) {
    return new ApiError(
      response.status,
      'unknown',
      `The service answered ${response.status}.`,
      {},
      retryAfter,
    );
  }
  return new ApiError(response.status, body.data.code, body.data.message, body.data.errors, retryAfter);
}

const networkError = () =>
  new ApiError(0, 'network', 'The service could not be reached. Check your connection.', {}, null);
const stoppedError = () => new ApiError(0, 'stopped', 'Stopped.', {}, null);

/** One server-sent event: its name and its data, parsed as JSON. */
export type StreamFrame = { event: string; data: unknown };

/**
 * Parses one SSE block (`event: <name>` and `data: <one-line JSON>` lines; `:` lines are
 * comments); null for a comment-only block or one that breaks the service's frame form.
 */
export function parseFrame(block: string): StreamFrame | null {
  let event: string | null = null;
  let data: string | null = null;
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice('event: '.length);
    else if (line.startsWith('data: ')) data = line.slice('data: '.length);
  }
  if (event === null || data === null) return null;
  try {
    return { event, data: JSON.parse(data) };
  } catch {
    return null;
  }
}

/**
 * POSTs `body` to a streaming route and hands each frame to `onFrame` as it arrives; resolves
 * when the stream ends. A refusal before the stream (4xx, 429) is an {@link ApiError}, as
 * {@link api}'s; so are a lost connection (`network`) and `signal` stopping it (`stopped`).
 */
export async function apiStream(
  path: string,
  body: unknown,
  onFrame: (frame: StreamFrame) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await send(path, {
    method: 'POST',
    body,
    accept: 'text/event-stream',
    ...(signal ? { signal } : {}),
  });
  if (!response.body) throw networkError();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const frame = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (frame) onFrame(frame);
        end = buffer.indexOf('\n\n');
      }
    }
  } catch {
    throw signal?.aborted ? stoppedError() : networkError();
  }
}

/** Field errors of a zod check, keyed like the service's `errors` (so one form shows both). */
export function fieldErrorsOf(error: z.ZodError): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join('.') || 'input';
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  return errors;
}

/** What a 429 tells the user: how long to wait. */
export function waitMessage(seconds: number | null): string {
  return seconds
    ? `Too many attempts. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`
    : 'Too many attempts. Try again in a minute.';
}

/**
 * Sends one multipart form with XMLHttpRequest (fetch reports no upload progress), calling
 * `onProgress` with the share sent (0–1); resolves with the `{data}` answer parsed by `schema`.
 */
export function apiUpload<T extends z.ZodType>(
  path: string,
  form: FormData,
  schema: T,
  onProgress: (share: number) => void,
): Promise<z.infer<T>> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${API_BASE}${path}`);
    request.setRequestHeader('accept', 'application/json');
    const csrf = handlers.csrfToken();
    if (csrf) request.setRequestHeader('x-csrf-token', csrf);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    request.onerror = () =>
      reject(
        new ApiError(0, 'network', 'The service could not be reached. Check your connection.', {}, null),
      );
    request.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(request.responseText);
      } catch {}
      if (request.status >= 200 && request.status < 300) {
        const envelope = ZAnyEnvelope.safeParse(body);
        const parsed = schema.safeParse(envelope.success ? envelope.data.data : undefined);
        if (parsed.success) resolve(parsed.data);
        else
          reject(
            new ApiError(
              request.status,
              'bad_answer',
              'The service answered something unexpected.',
              {},
              null,
            ),
          );
        return;
      }
      const error = ZServiceError.safeParse(body);
      if (request.status === 401) handlers.onUnauthenticated();
      reject(
        error.success
          ? new ApiError(request.status, error.data.code, error.data.message, error.data.errors, null)
          : new ApiError(request.status, 'unknown', `The service answered ${request.status}.`, {}, null),
      );
    };
    request.send(form);
  });
}
