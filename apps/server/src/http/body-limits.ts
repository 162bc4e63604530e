import { KB_ARTICLE_BODY_MAX_CHARS, TEXT_SOURCE_MAX_CHARS } from '@service/contract';

/**
 * Bytes one character of a JSON string can take: a `\uXXXX` escape is 6, the most any encoder
 * writes (raw UTF-8 takes at most 3 per UTF-16 code unit, which is what the schemas count).
 */
const JSON_BYTES_PER_CHAR = 6;
/** Room for a body's other fields and its JSON punctuation, beside its one large field. */
const OTHER_FIELDS_BYTES = 64 * 1024;

/**
 * The body limit of a route whose largest field holds `maxChars` characters: enough for that
 * field however it is JSON-encoded (every character escaped), plus the other fields. Larger
 * bodies could only fail validation, so they are refused (413) before being read whole.
 */
export function jsonBodyLimit(maxChars: number): number {
  return maxChars * JSON_BYTES_PER_CHAR + OTHER_FIELDS_BYTES;
}

/** `POST /api/v1/admin/agents/{id}/sources`: a 2,000,000-character text source, 12,065,536 bytes. */
export const SOURCE_CREATE_BODY_LIMIT = jsonBodyLimit(TEXT_SOURCE_MAX_CHARS);

/** `POST`/`PATCH /api/v1/admin/kb/articles`: a 500,000-character article body, 3,065,536 bytes. */
export const KB_ARTICLE_BODY_LIMIT = jsonBodyLimit(KB_ARTICLE_BODY_MAX_CHARS);
