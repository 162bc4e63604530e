import type { Bm25Settings } from './bm25.js';
import type { FeedbackSettings } from './feedback.js';
import { type FusedHit, fuseRankedLists, type RankedList, RRF_K } from './fusion.js';

/**
 * The ranking components of a search, each of which can be switched off to measure what it
 * adds (the quality bench's ablation table). Internal only: no request schema has a field for
 * it, and every caller in the service leaves it out, which is the full search.
 */
export type SearchComponents = {
  /**
   * How the full-text list is ranked: BM25 with IDF from the agent's term statistics (`bm25`),
   * or the earlier tiers by matched-word count and cover density (`tiers`).
   */
  ranking: 'bm25' | 'tiers';
  /** BM25's k1 and b, the title/URL field weight and the page-lift decay (0 switches either off). */
  bm25: Bm25Settings;
  /** BM25 only: a word the agent's vocabulary lacks is replaced by its nearest vocabulary word (pg_trgm). */
  correct: boolean;
  /** With `correct`: a word one typing slip from the typo (`typingSlips`) is tried before the trigram-nearest. */
  slips: boolean;
  /**
   * Full-text "all words": the strict `websearch_to_tsquery` form and its tiers, always, never,
   * or only for a query that uses its syntax (phrases, `-word`, `or`: see `usesSearchOperators`).
   */
  allWords: boolean | 'operators';
  /** Full-text "any word": the OR form (chunks with two of the words, then with one). */
  anyWord: boolean;
  /** Which configurations the full-text forms are parsed in: `simple`, the agent's language, or both (typo corrections keep both). */
  configs: 'both' | 'simple' | 'language';
  /** Typo tolerance: unknown words corrected from the agent's vocabulary (pg_trgm). */
  trigram: boolean;
  /**
   * With `correct`: words shorter than a typing slip's minimum (4 letters) are corrected by
   * trigram similarity too. Off by default: a two-letter word shares two of its three trigrams
   * with many longer words (`ma` → `map`), so its "correction" is noise, often a word of
   * another language read as a typo.
   */
  shortFixes: boolean;
  /**
   * Single-letter words count as query words. Off by default: left out unless nothing else is
   * left (in other languages they are function words, `z`, `w`, `y`, `e`; in English a variable,
   * a list letter or the rest of a contraction, `I'm`, `don't`). A lone digit stays.
   */
  letters: boolean;
  /** Vector similarity (when the database has pgvector and an embedding provider is given). */
  vector: boolean;
  /**
   * With `vector`: also search the vectors of a provider that is not `semantic` (the offline
   * hashed embedder: a hashing of the words, which full-text with typing slips and feedback
   * already ranks as well; bench/README.md, "Ranking, fourth step").
   */
  lexicalVectors: boolean;
  /** How the lists are merged: reciprocal rank fusion, or one after the other (full-text first). */
  fusion: 'rrf' | 'concatenate';
  /** RRF weight of the trigram and vector lists (full-text counts 1). */
  weights: Readonly<{ trigram: number; vector: number }>;
  /**
   * Page aggregation: a page's best chunk is lifted by the page's other candidate chunks, the
   * i-th next best adding its score times `pages`^i (a geometric decay, so a page's lift stays
   * below its best chunk's score however many chunks it has). 0: off.
   */
  pages: number;
  /**
   * BM25 only: pseudo-relevance feedback (RM3-style). The words that weigh most in the first
   * ranking's top `chunks` chunks (`terms` of them, at `weight` of their IDF) are added to the
   * query, and the first ranking's candidates are ranked again. `weight` 0: off. `folded`: all
   * in the ranking statement (without page lift), not two statements after it.
   */
  feedback: FeedbackSettings;
};

/** Every component on: the search the service runs. */
export const FULL_SEARCH: Readonly<SearchComponents> = Object.freeze({
  // BM25 with IDF from the agent's term statistics (bench/README.md, "Ranking, third step").
  ranking: 'bm25',
  bm25: Object.freeze({ k1: 1.2, b: 0.75, title: 1, pages: 0, idf: true }),
  correct: true,
  slips: true,
  // Words under 4 letters are not corrected, single letters are not searched for
  // (bench/README.md, "Ranking, fifth step").
  shortFixes: false,
  letters: false,
  allWords: 'operators',
  anyWord: true,
  configs: 'both',
  // The separate typo list loses to the correction inside the query under BM25 (bench/README.md).
  trigram: false,
  vector: true,
  lexicalVectors: false,
  fusion: 'rrf',
  weights: Object.freeze({ trigram: 0.25, vector: 0.25 }),
  pages: 0,
  // Re-ranking with the top chunks' words (bench/README.md, "Ranking, fourth step").
  // Folded into the ranking statement since the fifth step.
  feedback: Object.freeze({ chunks: 5, terms: 10, weight: 0.3, folded: true }),
});

/** The components with `overrides` applied over the full search. */
export function searchComponents(overrides?: Partial<SearchComponents>): Readonly<SearchComponents> {
  return overrides ? { ...FULL_SEARCH, ...overrides } : FULL_SEARCH;
}

/**
 * Merges the retrievers' lists as the components say: reciprocal rank fusion (each list's share
 * scaled by its `weights` entry, default 1; full-text always 1), or (fusion off)
 * each list's chunks after the previous lists', in list order, so the full-text list decides
 * alone and the others only fill what it leaves. Concatenated hits keep every list's rank and
 * score by their position.
 */
export function mergeRankedLists(
  lists: readonly RankedList[],
  fusion: SearchComponents['fusion'],
  weights: Partial<SearchComponents['weights']> = {},
): FusedHit[] {
  const fused = fuseRankedLists(lists, RRF_K, weights);
  if (fusion === 'rrf') return fused;
  const byId = new Map(fused.map((hit) => [hit.id, hit]));
  const order: FusedHit[] = [];
  const seen = new Set<string>();
  for (const list of lists) {
    for (const id of list.ids) {
      const hit = byId.get(id);
      if (seen.has(id) || !hit) continue;
      seen.add(id);
      order.push({ ...hit, score: 1 / (RRF_K + order.length + 1) });
    }
  }
  return order;
}
