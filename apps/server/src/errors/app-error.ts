import { ERROR_CODES, type ErrorCode } from '@service/contract';
import type { z } from 'zod';

/** Field errors in the envelope's `errors` member: field path → messages. */
export type FieldErrors = Record<string, string[]>;

/**
 * The one error type services throw. The HTTP status comes from the code table in
 * `@service/contract`; the renderer turns it into the contract's envelope.
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldErrors;
  /** Seconds, for 429 answers (sent as `Retry-After`). */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    options: { message?: string; errors?: FieldErrors; retryAfter?: number } = {},
  ) {
    super(options.message ?? ERROR_CODES[code].message);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.errors = options.errors ?? {};
    this.retryAfter = options.retryAfter;
  }
}

/** A 422 for one or more fields, phrased the way the envelope expects. */
export function validationError(errors: FieldErrors): AppError {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? ERROR_CODES.validation_failed.message;
  const more = messages.length - 1;
  const message = more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
  return new AppError('validation_failed', { message, errors });
}

/** The 404 every cross-tenant or missing lookup gives (never a 403, never a hint). */
export function notFound(): AppError {
  return new AppError('not_found');
}

/** Converts zod issues into a 422: unknown keys are named one by one, other issues by their path. */
export function validationErrorFromZod(issues: readonly z.core.$ZodIssue[]): AppError {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(path ? `${path}.${key}` : key, `The ${key} field is not allowed.`);
    } else {
      add(path || 'input', issue.message);
    }
  }
  return validationError(errors);
}
