import { sql } from 'kysely';
import type { Queryable } from '../services/context.js';

/** Words shorter than this are not worth correcting; longer ones are not words. */
export const VOCABULARY_MIN_LENGTH = 3;
export const VOCABULARY_MAX_LENGTH = 32;
/** Distinct words recorded per document at most (a dictionary-sized page stops here). */
const MAX_WORDS_PER_DOCUMENT = 20_000;

/**
 * The distinct words of a text as a query would spell them (NFKC, lower case, runs of letters,
 * marks and digits), within the vocabulary's length bounds.
 */
export function vocabularyWords(text: string): string[] {
  const words = new Set<string>();
  for (const match of text
    .normalize('NFKC')
    .toLowerCase()
    .matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    const word = match[0];
    if (word.length < VOCABULARY_MIN_LENGTH || word.length > VOCABULARY_MAX_LENGTH) continue;
    words.add(word);
    if (words.size === MAX_WORDS_PER_DOCUMENT) break;
  }
  return [...words];
}

/** Adds a document's words to its agent's vocabulary (words already known are left alone). */
export async function recordVocabulary(db: Queryable, agentId: string, text: string): Promise<void> {
  const words = vocabularyWords(text);
  if (words.length === 0) return;
  await sql`
    insert into agent_words (agent_id, word)
    select ${agentId}, w from unnest(${words}::text[]) as w
    on conflict do nothing`.execute(db);
}
