import { findUnstorableText, isStorableText, UNSTORABLE_TEXT_MESSAGE } from '@service/contract';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { type AppError, type FieldErrors, notFound, validationError } from '../errors/app-error.js';

/**
 * The zod validator compiler, with one rule in front of every schema of every route: no
 * string in the params, querystring, body or headers (values and object keys) may hold NUL
 * or a lone surrogate, which PostgreSQL cannot store or compare (22021, 22P02, 22P05). A path
 * id carrying one names no record, so it is a 404; elsewhere it is a 422 keyed by field path.
 * Routes with a plain `z.string()` are covered too, so a new schema cannot forget the rule.
 */
export const storableTextValidatorCompiler: typeof validatorCompiler = (route) => {
  const validate = validatorCompiler(route);
  const part = route.httpPart ?? 'body';
  return (data: unknown) => {
    const refused = refuseUnstorableText(data, part);
    return refused ? { error: refused } : validate(data);
  };
};

/** The error for unstorable text in one request part, or null when every string is storable. */
export function refuseUnstorableText(data: unknown, part: string): AppError | null {
  const paths = findUnstorableText(data);
  if (paths.length === 0) return null;
  if (part === 'params') return notFound();
  const errors: FieldErrors = {};
  for (const path of paths) {
    // The offending key itself may be part of the path: it goes back as `?`, never verbatim.
    const field = path.map((key) => Array.from(String(key), printable).join('')).join('.') || part;
    errors[field] = [`The ${field} field ${UNSTORABLE_TEXT_MESSAGE}.`];
  }
  return validationError(errors);
}

/** One code point as it may appear in an `errors` key (the envelope is stored in logs too). */
function printable(character: string): string {
  return isStorableText(character) ? character : '?';
}
