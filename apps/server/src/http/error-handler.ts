import { ERROR_CODES, type ErrorCode, type TServiceError } from '@service/contract';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../db/pg-errors.js';
import { AppError, type FieldErrors, validationError } from '../errors/app-error.js';

/** Fastify's own request errors, mapped to the contract's codes (anything else is a 500). */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported_media_type',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_MAX_PARAM_LENGTH: 'bad_request',
  FST_ERR_ASYNC_CONSTRAINT: 'bad_request',
};

/**
 * The service envelope for an error: the one mapping the JSON error answers and the stream's
 * `error` frame share. 401s never carry detail.
 */
export function serviceErrorBody(error: AppError): TServiceError {
  return error.status === 401 && error.code === 'unauthenticated'
    ? { message: ERROR_CODES.unauthenticated.message, code: 'unauthenticated', errors: {} }
    : { message: error.message, code: error.code, errors: error.errors };
}

/** Logs a rejected or failed request the way the error handler does (5xx as errors). */
export function logRequestError(log: FastifyBaseLogger, raw: unknown, error: AppError): void {
  if (error.status >= 500 && error.code !== 'not_ready') log.error({ err: raw }, 'request failed');
  else if (error.code === 'not_ready' && !(raw instanceof AppError))
    log.warn({ err: raw }, 'request refused: the database is unavailable');
  else log.info({ code: error.code, status: error.status }, 'request rejected');
}

/** Sends the service envelope for an error code. 401s never carry detail. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  const body = serviceErrorBody(error);
  if (error.retryAfter !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfter))));
  return reply.status(error.status).type('application/json; charset=utf-8').send(body);
}

/** Installs the one error renderer and the 404 handler on an instance (and its children). */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((raw: FastifyError, request, reply) => {
    const error = toAppError(raw);
    logRequestError(request.log, raw, error);
    return sendError(reply, error);
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, new AppError('not_found')));
}

/**
 * Fastify's `frameworkErrors` option: errors raised before routing (an undecodable URL, an
 * over-long path parameter) get the envelope and a request id too, not Fastify's own body.
 */
export function handleFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const appError = toAppError(error);
  request.log.info({ code: appError.code, status: appError.status }, 'request rejected');
  reply.header('x-request-id', request.id);
  sendError(reply, appError);
}

/** Converts whatever was thrown into an AppError. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const errors: FieldErrors = {};
    const context =
      'validationContext' in error && typeof error.validationContext === 'string'
        ? error.validationContext
        : 'body';
    for (const issue of error.validation) {
      const path = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
      const keys = issue.keyword === 'unrecognized_keys' ? readKeys(issue.params) : [];
      if (keys.length > 0) {
        for (const key of keys)
          add(errors, path ? `${path}.${key}` : key, `The ${key} field is not allowed.`);
      } else {
        add(errors, path || context, describe(path || context, issue.message ?? 'invalid value'));
      }
    }
    return validationError(errors);
  }
  if (isFastifyError(error)) {
    const mapped = FASTIFY_CODES[error.code];
    if (mapped) return new AppError(mapped);
    if (error instanceof SyntaxError || error.statusCode === 400) return new AppError('malformed_json');
    if (error.statusCode === 404) return new AppError('not_found');
    if (error.statusCode === 413) return new AppError('payload_too_large');
    if (error.statusCode === 415) return new AppError('unsupported_media_type');
  }
  if (error instanceof SyntaxError) return new AppError('malformed_json');
  // The database is down or restarting: 503 at once (as /readyz says), not a 500.
  if (isDatabaseUnavailable(error)) return new AppError('not_ready', { retryAfter: 5 });
  return new AppError('internal_error');
}

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && 'code' in error && typeof error.code === 'string';
}

function readKeys(params: unknown): string[] {
  if (typeof params !== 'object' || params === null || !('keys' in params) || !Array.isArray(params.keys))
    return [];
  return params.keys.filter((key): key is string => typeof key === 'string');
}

function add(errors: FieldErrors, field: string, message: string): void {
  errors[field] = [...(errors[field] ?? []), message];
}

/** Phrases zod's message Laravel style: "The name field is required.", "The name field is invalid: …". */
function describe(field: string, message: string): string {
  if (/received undefined$/.test(message)) return `The ${field} field is required.`;
  return `The ${field} field is invalid: ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
}
