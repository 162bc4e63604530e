import { isFunctionWord } from './function-words.js';

/** At most this many words of a query go into the OR form and the trigram text. */
const MAX_TERMS = 32;
/** Longer "words" are dropped from the OR form (no real word is this long). */
const MAX_TERM_LENGTH = 64;

/**
 * A query cleaned for use as data: NFKC, control characters (NUL breaks Postgres text) and
 * surrounding space gone, inner whitespace collapsed.
 */
export function normalizeQuery(query: string): string {
  return (
    query
      .normalize('NFKC')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/**
 * The words of a query: runs of letters, marks and digits, lower case, de-duplicated, at most
 * MAX_TERMS of them, over-long ones dropped. Nothing else survives, so no tsquery operator,
 * quote, backslash or weight can come from the user.
 */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const match of normalizeQuery(query)
    .toLowerCase()
    .matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    const term = match[0];
    if (term.length > MAX_TERM_LENGTH || terms.includes(term)) continue;
    terms.push(term);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/**
 * The OR form of a query for `to_tsquery`: each word quoted as a lexeme, joined by ` | `
 * (`'refund' | 'policy'`). Function words are left out when the query has other words. Null
 * when the query has no words.
 */
export function orTsQuery(query: string): string | null {
  const terms = contentTerms(query);
  return terms.length === 0 ? null : terms.map((term) => `'${term}'`).join(' | ');
}

/** The query's words without function words, or all of them when nothing else is left. */
export function contentTerms(query: string): string[] {
  const terms = queryTerms(query);
  const content = terms.filter((term) => !isFunctionWord(term));
  return content.length > 0 ? content : terms;
}

/**
 * Whether a query uses `websearch_to_tsquery` syntax: a quoted phrase, a `-word` exclusion or
 * `or` between words. Only then does the strict form say more than the OR form's tiers (a
 * plain query's strict matches are its chunks with every word, which the tiers rank first).
 */
export function usesSearchOperators(query: string): boolean {
  return query.includes('"') || /(^|\s)-[\p{L}\p{M}\p{N}]/u.test(query) || /(^|\s)or(\s|$)/iu.test(query);
}
