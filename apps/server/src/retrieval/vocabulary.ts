import { type RawBuilder, sql } from 'kysely';
import type { Queryable } from '../db/queryable.js';

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

/** Words shorter than this get no typing-slip candidates (too many real words are one slip apart). */
export const EDIT_MIN_LENGTH = 4;
/** A query word longer than this gets no typing-slip candidates (its trigrams find it). */
const EDIT_MAX_LENGTH = 20;

/** Each letter's neighbours on a QWERTY keyboard (a slipped finger types one of these instead). */
const KEY_NEIGHBOURS: Readonly<Record<string, string>> = {
  q: 'wa',
  w: 'qeas',
  e: 'wrsd',
  r: 'etdf',
  t: 'ryfg',
  y: 'tugh',
  u: 'yihj',
  i: 'uojk',
  o: 'ipkl',
  p: 'ol',
  a: 'qwsz',
  s: 'awedxz',
  d: 'serfcx',
  f: 'drtgvc',
  g: 'ftyhbv',
  h: 'gyujnb',
  j: 'huikmn',
  k: 'jiolm',
  l: 'kop',
  z: 'asx',
  x: 'zsdc',
  c: 'xdfv',
  v: 'cfgb',
  b: 'vghn',
  n: 'bhjm',
  m: 'njk',
};

/**
 * The words `word` is likely a slip of (one typing error away): a letter left out, two
 * neighbouring letters swapped, a letter typed twice, or a key's neighbour hit instead. These
 * are the common typing errors; a word one arbitrary edit away is more often another real word
 * ("shop" and "show", "replay" and "reply") than the word meant. Short words get none: too many
 * real words are one slip apart. A typo of a short word shares too few trigrams with the word
 * meant ("veiw" and "view" share one), so the correction tries these first, checked against the
 * vocabulary by equality.
 */
export function typingSlips(word: string): string[] {
  const letters = [...word];
  if (letters.length < EDIT_MIN_LENGTH || letters.length > EDIT_MAX_LENGTH) return [];
  const alphabet = [...new Set([...'abcdefghijklmnopqrstuvwxyz', ...letters])];
  const meant = new Set<string>();
  const join = (parts: readonly string[]) => parts.join('');
  for (let i = 0; i <= letters.length; i += 1) {
    const head = letters.slice(0, i);
    const tail = letters.slice(i);
    // A letter left out.
    for (const letter of alphabet) meant.add(join([...head, letter, ...tail]));
    const [first, second] = tail;
    if (first === undefined) continue;
    // Two neighbours swapped.
    if (second !== undefined) meant.add(join([...head, second, first, ...tail.slice(2)]));
    // A letter typed twice.
    if (second === first) meant.add(join([...head, ...tail.slice(1)]));
    // A neighbouring key.
    for (const key of KEY_NEIGHBOURS[first] ?? '') meant.add(join([...head, key, ...tail.slice(1)]));
  }
  meant.delete(word);
  return [...meant];
}

/** Below this trigram similarity a vocabulary word is no correction of a query word. */
export const TRIGRAM_THRESHOLD = 0.4;
/** Vocabulary words tried per unknown query word, most similar first. */
export const CORRECTIONS_PER_TERM = 3;

/**
 * SQL for the typo corrections of `terms` as one tsquery (`simple` or `config`), null when there
 * are none: each term the agent's vocabulary does not know is replaced by the CORRECTIONS_PER_TERM
 * vocabulary words most similar to it (pg_trgm, through agent_words_trgm_idx). `%` finds them
 * at pg_trgm's own threshold (0.3 unless changed) and the explicit TRIGRAM_THRESHOLD decides, so
 * no setting has to be changed first (a server threshold above it only means fewer candidates).
 * Each word's `simple` and configured lexemes are written once where they are the same, since
 * ranking pays for every operand of the query on every matching row.
 */
export function correctionsQuery(
  agentId: string,
  terms: readonly string[],
  config: string,
): RawBuilder<unknown> {
  return sql`(
    select string_agg(distinct x.form, ' | ')::tsquery
    from unnest(${terms}::text[]) as q(term)
    cross join lateral (
      select v.word from agent_words v
      where v.agent_id = ${agentId} and v.word % q.term and v.word <> q.term
        and similarity(v.word, q.term) >= ${TRIGRAM_THRESHOLD}
      order by similarity(v.word, q.term) desc, v.word
      limit ${CORRECTIONS_PER_TERM}
    ) as w
    cross join lateral (values
      (to_tsquery('simple', '''' || w.word || '''')::text),
      (to_tsquery(${config}::regconfig, '''' || w.word || '''')::text)) as x(form)
    where x.form <> ''
      and not exists (select 1 from agent_words k where k.agent_id = ${agentId} and k.word = q.term))`;
}
