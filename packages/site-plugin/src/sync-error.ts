// The one error type of the sync client. Each message says what went wrong AND what to do,
// because it usually ends up in a site admin's notice or a cron log, read by someone who
// never saw the contract.

/** What {@link SyncError} carries besides its message. */
export type SyncErrorDetails = {
  /** HTTP status of the service's answer; 0 when no answer came (network error, timeout). */
  status: number;
  /**
   * The service's error code (`unauthenticated`, `signature_mismatch`, `forbidden`, `not_found`,
   * `validation_failed`, `rate_limited`…), or one of the client's own: `bad_response` (status 502),
   * `network_error` and `timeout` (status 0).
   */
  code: string;
  /** Seconds the service asked to wait (429 `Retry-After`). */
  retryAfterSeconds?: number;
  /** Validation errors by field path (`posts.3.permalink`), from the envelope's `errors`. */
  fieldErrors?: Record<string, string[]>;
  /** The service's `X-Request-Id`; quote it when reporting a problem. */
  requestId?: string;
  cause?: unknown;
};

/** A sync call that failed: refused, throttled, invalid, unreachable or answered oddly. */
export class SyncError extends Error {
  override readonly name = 'SyncError';
  /** HTTP status; 0 when the service did not answer at all. */
  readonly status: number;
  /** Service error code, or `bad_response` / `network_error` / `timeout`. */
  readonly code: string;
  /** Seconds the service asked to wait before trying again (429). */
  readonly retryAfterSeconds?: number;
  /** Field path → messages, for 422 / 400 validation errors. */
  readonly fieldErrors?: Record<string, string[]>;
  /** The service's request id, when it sent one. */
  readonly requestId?: string;

  constructor(message: string, details: SyncErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.code = details.code;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.fieldErrors !== undefined) this.fieldErrors = details.fieldErrors;
    if (details.requestId !== undefined) this.requestId = details.requestId;
  }

  /**
   * Whether the same call may succeed later unchanged: throttling, service failures (5xx), no
   * answer. Not `bad_response`, which usually means serviceUrl points at something else.
   */
  get isRetryable(): boolean {
    if (this.code === 'bad_response') return false;
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}
