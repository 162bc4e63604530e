import { isFunctionWord } from '../retrieval/function-words.js';
import { queryTerms } from '../retrieval/query-terms.js';

/** A retrieved passage offered to the extractive answerer, in retrieval order. */
export type OfflinePassage = {
  id: number;
  title: string;
  url: string | null;
  content: string;
  /** Matched by full-text or trigram search; a vector-only hit is no evidence for a quote. */
  fromText: boolean;
};

/** An extractive answer: verbatim sentences with `[N]` citations, and the ids cited. */
export type OfflineAnswer = { text: string; cited: number[] };

/** The longest answer, lead-in included. */
export const MAX_OFFLINE_ANSWER_CHARS = 600;
/** The most sentences quoted. */
const MAX_SENTENCES = 3;
/** Only the best passages are quoted from. */
const MAX_PASSAGES = 3;
const MIN_SENTENCE_CHARS = 12;
const MAX_SENTENCE_CHARS = 400;

/** The one sentence of the answer not taken from a source, per language (English otherwise). */
const LEAD_INS: Readonly<Record<string, string>> = {
  en: 'Here is what I found:',
  es: 'Esto es lo que encontré:',
  pt: 'Isto é o que encontrei:',
  fr: "Voici ce que j'ai trouvé :",
  de: 'Das habe ich gefunden:',
  nl: 'Dit heb ik gevonden:',
  it: 'Ecco cosa ho trovato:',
};

type Candidate = {
  passage: number;
  position: number;
  id: number;
  sentence: string;
  own: number;
  total: number;
};

/**
 * Answers without a model: picks up to three sentences from the best text-matched passages by
 * overlap with the question's content words (function words ignored; words match on a shared
 * five-letter prefix, or a shorter word being the other's prefix), and quotes them verbatim
 * with `[N]` citations after a fixed lead-in. Null — the caller says it does not know — when
 * the question has no content word, when no sentence shares one, or when the coverage is too
 * low: the best sentence (with its passage title) must match 1 of 1–2 content words, else at
 * least 2 and a third of them.
 */
export function composeOfflineAnswer(input: {
  question: string;
  passages: readonly OfflinePassage[];
  language?: string | undefined;
}): OfflineAnswer | null {
  const terms = queryTerms(input.question)
    .filter((term) => !isFunctionWord(term))
    .map(fold);
  if (terms.length === 0) return null;
  const needed = requiredMatches(terms.length);
  const candidates: Candidate[] = [];
  const evidence = input.passages.filter((passage) => passage.fromText).slice(0, MAX_PASSAGES);
  evidence.forEach((passage, rank) => {
    const titleTerms = matchedTerms(terms, passage.title);
    splitSentences(passage.content).forEach((sentence, position) => {
      const own = matchedTerms(terms, sentence);
      if (own.size === 0) return;
      const total = new Set([...own, ...titleTerms]).size;
      candidates.push({ passage: rank, position, id: passage.id, sentence, own: own.size, total });
    });
  });
  candidates.sort(
    (a, b) => b.total - a.total || b.own - a.own || a.passage - b.passage || a.position - b.position,
  );
  const best = candidates[0];
  if (!best || best.total < needed) return null;
  const leadIn = LEAD_INS[(input.language ?? 'en').slice(0, 2).toLowerCase()] ?? LEAD_INS.en ?? '';
  const chosen = [best];
  let length = leadIn.length + quotedLength(best);
  for (const candidate of candidates.slice(1)) {
    if (chosen.length === MAX_SENTENCES) break;
    if (candidate.total < needed || chosen.some((c) => c.sentence === candidate.sentence)) continue;
    const extra = quotedLength(candidate);
    if (length + extra > MAX_OFFLINE_ANSWER_CHARS) continue;
    chosen.push(candidate);
    length += extra;
  }
  // Read in source order: by passage rank, then by position in the passage.
  chosen.sort((a, b) => a.passage - b.passage || a.position - b.position);
  const lines = chosen.map((c) => `“${c.sentence}” [${c.id}]`);
  const cited = [...new Set(chosen.map((c) => c.id))];
  return { text: [leadIn, ...lines].join('\n'), cited };
}

/** How many content words the best sentence must match, for a question with `count` of them. */
export function requiredMatches(count: number): number {
  return count <= 2 ? 1 : Math.max(2, Math.ceil(count / 3));
}

function quotedLength(candidate: Candidate): number {
  return candidate.sentence.length + String(candidate.id).length + 6;
}

/** Sentences of a passage: split after . ! ? (and CJK stops) and at line breaks; too short or long ones dropped. */
function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/u)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => sentence.length >= MIN_SENTENCE_CHARS && sentence.length <= MAX_SENTENCE_CHARS);
}

/** The question terms (folded) that some word of `text` matches. */
function matchedTerms(terms: readonly string[], text: string): Set<string> {
  // Not queryTerms: it stops at 32 words, and a sentence may be longer.
  const words = [...text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)].map((match) => fold(match[0]));
  return new Set(terms.filter((term) => words.some((word) => sameStem(term, word))));
}

/** Lower case without diacritics (envío → envio), so accents typed or not match. */
function fold(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** A light stemmer: a shared five-letter prefix, or the shorter word (4+ letters) starting the longer; 3 letters: exact or plural. */
function sameStem(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 5) return long.startsWith(short.slice(0, 5));
  if (short.length === 4) return long.startsWith(short);
  return long === `${short}s` || long === `${short}es`;
}
