/**
 * Every error code the service and the site plugin can answer with, and the one HTTP
 * status each maps to. `docs/errors.md` lists the same codes; a test keeps them in step.
 */
export const ERROR_CODES = {
  unauthenticated: { status: 401, message: 'Unauthenticated.' },
  forbidden: { status: 403, message: 'This action is unauthorized.' },
  not_found: { status: 404, message: 'Not found.' },
  validation_failed: { status: 422, message: 'The given data was invalid.' },
  malformed_json: { status: 400, message: 'The request body is not valid JSON.' },
  bad_request: { status: 400, message: 'The request could not be understood.' },
  unsupported_media_type: { status: 415, message: 'Unsupported content type; send application/json.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  rate_limited: { status: 429, message: 'Too many requests.' },
  internal_error: { status: 500, message: 'Something went wrong on our side.' },
  not_ready: { status: 503, message: 'The service is not ready.' },
  missing_signature: { status: 401, message: 'The request signature is missing.' },
  signature_mismatch: { status: 401, message: 'The request signature does not match.' },
  plugin_unconfigured: { status: 401, message: 'The plugin has no signing secret configured.' },
  origin_forbidden: { status: 403, message: 'This origin is not allowed to use this agent.' },
  invalid_coupon: { status: 400, message: 'The coupon code does not exist.' },
  commerce_inactive: { status: 400, message: 'The commerce extension is not active on this site.' },
  site_unavailable: { status: 502, message: 'The site could not be reached. Please try again later.' },
  plan_limit_reached: {
    status: 403,
    message: "This workspace's plan does not allow more; upgrade the plan or remove something first.",
  },
  webhook_signature_invalid: { status: 400, message: 'The webhook signature could not be verified.' },
  webhook_verification_unavailable: {
    status: 503,
    message: 'The webhook could not be verified right now; it was not applied. Send it again later.',
  },
  answer_failed: {
    status: 502,
    message: 'The assistant could not answer right now. Please try again, or ask for a human.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

/** One of the codes in {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether a string is a known error code. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
