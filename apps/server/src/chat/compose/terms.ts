import { isFunctionWord } from '../../retrieval/function-words.js';
import { queryTerms } from '../../retrieval/query-terms.js';

// Question words that carry no subject of their own ("how much", "what does it taste like").
const FILLER: ReadonlySet<string> = new Set([
  'much',
  'many',
  'like',
  'please',
  'tell',
  'know',
  'want',
  'need',
  'make',
  'get',
  'use',
  'take',
]);

/** Lower case without diacritics (envío → envio), so accents typed or not match. */
export function fold(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** The content words of a question, folded: function words and question filler left out. */
export function contentTerms(question: string): string[] {
  return queryTerms(question)
    .filter((term) => !isFunctionWord(term))
    .map(fold)
    .filter((term) => !FILLER.has(term));
}

/** A light stemmer: a shared five-letter prefix, or the shorter word (4+ letters) starting the longer; 3 letters: exact or plural. */
export function sameStem(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 5) return long.startsWith(short.slice(0, 5));
  if (short.length === 4) return long.startsWith(short);
  return long === `${short}s` || long === `${short}es`;
}

/** The terms (folded) that some word of `text` matches. */
export function matchedTerms(terms: readonly string[], text: string): Set<string> {
  // Not queryTerms: it stops at 32 words, and a sentence may be longer.
  const words = [...text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)].map((match) => fold(match[0]));
  return new Set(terms.filter((term) => words.some((word) => sameStem(term, word))));
}

/** How many content words the best sentence must match, for a question with `count` of them. */
export function requiredMatches(count: number): number {
  return count <= 2 ? 1 : Math.max(2, Math.ceil(count / 3));
}

// "Do you sell X?": the answer is a product whose name or category is X, never a product
// that merely mentions X (tasting notes of black tea do not make a tea).
const SELL_QUESTION =
  /\b(?:do|does|can)\s+(?:you|they|we)\s+(?:sell|stock|carry)\b|\bvendez[-\s]vous\b|\bverkaufen\s+sie\b|\bvenden\b|\bvendem\b|\bvendete\b|\bverkopen\s+jullie\b/i;
const SELL_WORDS: ReadonlySet<string> = new Set([
  'sell',
  'stock',
  'carry',
  'vendez',
  'verkaufen',
  'venden',
  'vendem',
  'vendete',
  'verkopen',
  'jullie',
]);

/** The words naming what a "do you sell X?" question asks for (X), or null for other questions. */
export function sellObject(question: string, terms: readonly string[]): string[] | null {
  if (!SELL_QUESTION.test(question)) return null;
  const object = terms.filter((term) => !SELL_WORDS.has(term));
  return object.length > 0 ? object : null;
}
