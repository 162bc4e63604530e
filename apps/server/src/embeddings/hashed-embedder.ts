import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EmbeddingProvider } from './embedding-provider.js';

/** Dimension of the offline embedder's vectors. */
export const HASHED_DIMENSIONS = 256;

// Words that carry little meaning on their own; they still count, with a small weight.
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by can do does for from has have how i if in is it its me my no not of on or ' +
    'our so that the their them then there these they this to us was we were what when where which who why ' +
    'will with you your de la le les des du et el los las y en un una o que der die das und ist zu'
  ).split(' '),
);

/**
 * Texts embedded between two yields to the event loop: a batch of 256 chunks is tens of
 * milliseconds of CPU on the main thread, which requests and timers would otherwise wait behind.
 */
export const HASHED_YIELD_EVERY = 16;

/**
 * The offline default: a deterministic feature-hashing embedder that needs no model and no
 * network. Words, word pairs and character trigrams (which tolerate typos and inflections) are
 * hashed (FNV-1a) into signed buckets, weighted (log term frequency; function words and
 * trigrams count less) and L2-normalised. Lexical, not semantic, but it ranks paraphrases that
 * share stems and misspelt queries well, and it costs microseconds per chunk.
 */
export function createHashedEmbedder(dimensions: number = HASHED_DIMENSIONS): EmbeddingProvider {
  return {
    key: `offline-hash-v1:${dimensions}`,
    dimensions,
    maxBatch: 256,
    semantic: false,
    minSimilarity: 0.12,
    async embed(texts) {
      const vectors: number[][] = [];
      for (const text of texts) {
        if (vectors.length > 0 && vectors.length % HASHED_YIELD_EVERY === 0) await yieldToEventLoop();
        vectors.push(embedText(text, dimensions));
      }
      return vectors;
    },
  };
}

/** The vector of one text; all zeros when the text has no word. */
export function embedText(text: string, dimensions: number = HASHED_DIMENSIONS): number[] {
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  const words = wordsOf(text);
  words.forEach((word, index) => {
    const light = FUNCTION_WORDS.has(word) || word.length < 2;
    add(`w:${word}`, light ? 0.25 : 1);
    const next = words[index + 1];
    if (next !== undefined && !light) add(`p:${word} ${next}`, 0.5);
    if (light) return;
    const padded = `<${word}>`;
    const grams = padded.length - 2;
    for (let i = 0; i < grams; i += 1) add(`c:${padded.slice(i, i + 3)}`, 0.6 / Math.sqrt(grams));
  });
  const vector = new Array<number>(dimensions).fill(0);
  for (const [feature, count] of counts) {
    const hash = fnv1a(feature);
    const bucket = hash % dimensions;
    const sign = (hash >>> 31) & 1 ? -1 : 1;
    // Sublinear: a word said ten times is not ten times the topic.
    vector[bucket] = (vector[bucket] ?? 0) + sign * Math.log1p(count);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  return vector.map((value) => Math.round(value * scale * 1e6) / 1e6);
}

/** Lower-case words without diacritics, at most 4 000 of them (a chunk is far shorter). */
function wordsOf(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const words: string[] = [];
  for (const match of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
    words.push(match[0].slice(0, 40));
    if (words.length === 4000) break;
  }
  return words;
}

/** 32-bit FNV-1a over UTF-16 code units: a fast, stable bucket hash (not for security). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
