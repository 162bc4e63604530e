// Builds the SyncError of each failure case, with a message that says what to do. Internal to
// the sync client (not exported from the package).
import { SyncError } from './sync-error.js';

/** The service's error envelope `{message, code, errors}`, when the answer carried one. */
export type ServiceErrorEnvelope = { message: string; code: string; errors: Record<string, string[]> };

/** What the client knew about the failed call, to make the message specific. */
export type FailedCall = {
  /** `POST /api/v1/wp/posts/sync` */
  route: string;
  agentId?: string;
  /** Describes the item at a batch index (`wp_id 103`), to annotate field paths such as `posts.3.title`. */
  describeItem?: (listName: string, index: number) => string | undefined;
};

const FALLBACK_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
};

/** Most field errors spelled out in a message; the rest are counted (all stay in `fieldErrors`). */
const LISTED_FIELDS = 10;

function listFieldErrors(errors: Record<string, string[]>, call: FailedCall): string {
  const entries = Object.entries(errors);
  const lines = entries.slice(0, LISTED_FIELDS).map(([path, messages]) => {
    const match = /^([a-z]+)\.(\d+)(?:\.|$)/.exec(path);
    const item = match?.[1] && match[2] ? call.describeItem?.(match[1], Number(match[2])) : undefined;
    return `${path}${item ? ` (${item})` : ''}: ${messages.join(' ')}`;
  });
  const more = entries.length > LISTED_FIELDS ? `; and ${entries.length - LISTED_FIELDS} more` : '';
  return lines.length > 0 ? `${lines.join('; ')}${more}` : 'no field details given';
}

/** What to do about a refusal, by status and code. */
function adviceFor(status: number, code: string, call: FailedCall, requestId: string | undefined): string {
  if (status === 401)
    return code === 'missing_signature' || code === 'signature_mismatch'
      ? 'The service refused the request signature. Check that the API token is the exact plaintext token ' +
          "(it is also the signing key) and that the site's clock is within 300 s of real time (enable NTP)."
      : 'The API token is wrong or revoked, or the signature was refused. Paste the plaintext token ' +
          "(svc_…) again or issue a new one, and check that the site's clock is right (within 300 s, NTP).";
  if (status === 403)
    return (
      'The API token lacks the `wp:integration` ability. Issue a token with that ability ' +
      '(admin: POST /api/v1/admin/tokens with abilities ["wp:integration"]) and use it instead.'
    );
  if (status === 404)
    return call.agentId
      ? `Agent "${call.agentId}" is unknown to this token's workspace. Re-run the handshake to list the ` +
          "workspace's agents and pick one of them."
      : 'The route was not found: check that serviceUrl is the base address of the service.';
  if (status === 413)
    return 'The batch is larger than the service accepts: lower batchSize, or ask the operator to raise SYNC_BODY_LIMIT_BYTES.';
  if (status >= 500)
    return `The service failed on its side; try again later${requestId ? ` and quote request id ${requestId} if it persists` : ''}.`;
  return (
    'The service could not use the request. If a proxy sits between the site and the service, check that it ' +
    `passes JSON bodies unchanged; otherwise report it${requestId ? ` with request id ${requestId}` : ''}.`
  );
}

/** The SyncError for a non-2xx answer other than 429 (which the client retries). */
export function syncErrorFromAnswer(options: {
  status: number;
  envelope: ServiceErrorEnvelope | null;
  call: FailedCall;
  requestId?: string;
}): SyncError {
  const { status, envelope, call, requestId } = options;
  const code =
    envelope?.code ?? FALLBACK_CODES[status] ?? (status >= 500 ? 'internal_error' : `http_${status}`);
  const head = `${call.route} failed with ${status} ${code}.`;
  const fieldErrors = envelope && Object.keys(envelope.errors).length > 0 ? envelope.errors : undefined;
  const details = { status, code, ...(requestId ? { requestId } : {}) };
  if (fieldErrors || status === 422)
    return new SyncError(
      `${head} The service rejected the request body: ${fieldErrors ? listFieldErrors(fieldErrors, call) : envelope?.message || 'no details given'}. ` +
        "Fix these fields in the site's data, then sync again (a full sync resumes after the last accepted batch).",
      { ...details, ...(fieldErrors ? { fieldErrors } : {}) },
    );
  const said = envelope?.message ? ` The service said: "${envelope.message}"` : '';
  return new SyncError(`${head} ${adviceFor(status, code, call, requestId)}${said}`, details);
}

/** The SyncError for a 429 the client stopped retrying (retries ran out, or the wait is too long). */
export function rateLimitedError(options: {
  call: FailedCall;
  retryAfterSeconds: number;
  reason: 'retries_exhausted' | 'wait_too_long';
  retries: number;
  maxRetryAfterSeconds: number;
  requestId?: string;
}): SyncError {
  const why =
    options.reason === 'retries_exhausted'
      ? `still throttled after ${options.retries} ${options.retries === 1 ? 'retry' : 'retries'}`
      : `asked to wait ${options.retryAfterSeconds} s, longer than maxRetryAfterSeconds (${options.maxRetryAfterSeconds} s)`;
  return new SyncError(
    `${options.call.route} failed with 429 rate_limited: ${why}. Try again in ${options.retryAfterSeconds} s ` +
      '(a full sync resumes where it stopped), or ask the service operator to raise WP_THROTTLE_PER_MINUTE.',
    {
      status: 429,
      code: 'rate_limited',
      retryAfterSeconds: options.retryAfterSeconds,
      ...(options.requestId ? { requestId: options.requestId } : {}),
    },
  );
}

/** The SyncError for a call that got no answer: connection refused, DNS, TLS, or the timeout. */
export function networkError(options: {
  call: FailedCall;
  url: string;
  cause: unknown;
  timeoutMs: number;
}): SyncError {
  const isTimeout =
    typeof options.cause === 'object' &&
    options.cause !== null &&
    'name' in options.cause &&
    options.cause.name === 'TimeoutError';
  if (isTimeout) {
    return new SyncError(
      `${options.call.route}: the service at ${options.url} did not answer within ${options.timeoutMs} ms. ` +
        'Try again later, or raise timeoutMs for large batches.',
      { status: 0, code: 'timeout', cause: options.cause },
    );
  }
  const detail = describeCause(options.cause);
  return new SyncError(
    `${options.call.route}: could not reach the service at ${options.url} (${detail}). ` +
      'Check serviceUrl, DNS and that the site may make outgoing HTTPS requests; then try again.',
    { status: 0, code: 'network_error', cause: options.cause },
  );
}

/** The SyncError for a 2xx answer that is not the contract's shape (status 502, `bad_response`). */
export function badResponseError(options: {
  call: FailedCall;
  httpStatus: number;
  detail: string;
  requestId?: string;
}): SyncError {
  return new SyncError(
    `${options.call.route} answered ${options.httpStatus} with an unexpected body (${options.detail}). ` +
      'Check that serviceUrl points at the service itself (not a proxy, login or maintenance page) ' +
      'and that the service and this SDK speak the same contract version.',
    {
      status: 502,
      code: 'bad_response',
      ...(options.requestId ? { requestId: options.requestId } : {}),
    },
  );
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // undici wraps the system error (ECONNREFUSED, ENOTFOUND) in `cause`.
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return `${cause.message}${inner}`;
}
