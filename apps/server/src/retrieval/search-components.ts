import { type FusedHit, fuseRankedLists, type RankedList, RRF_K } from './fusion.js';

/**
 * The ranking components of a search, each of which can be switched off to measure what it
 * adds (the quality bench's ablation table). Internal only: no request schema has a field for
 * it, and every caller in the service leaves it out, which is the full search.
 */
export type SearchComponents = {
  /** Full-text "all words": the strict `websearch_to_tsquery` form and its tiers. */
  allWords: boolean;
  /** Full-text "any word": the OR form (chunks with two of the words, then with one). */
  anyWord: boolean;
  /** Which configurations the full-text forms are parsed in: `simple`, the agent's language, or both (typo corrections keep both). */
  configs: 'both' | 'simple' | 'language';
  /** Typo tolerance: unknown words corrected from the agent's vocabulary (pg_trgm). */
  trigram: boolean;
  /** Vector similarity (when the database has pgvector and an embedding provider is given). */
  vector: boolean;
  /** How the lists are merged: reciprocal rank fusion, or one after the other (full-text first). */
  fusion: 'rrf' | 'concatenate';
};

/** Every component on: the search the service runs. */
export const FULL_SEARCH: Readonly<SearchComponents> = Object.freeze({
  allWords: true,
  anyWord: true,
  configs: 'both',
  trigram: true,
  vector: true,
  fusion: 'rrf',
});

/** The components with `overrides` applied over the full search. */
export function searchComponents(overrides?: Partial<SearchComponents>): Readonly<SearchComponents> {
  return overrides ? { ...FULL_SEARCH, ...overrides } : FULL_SEARCH;
}

/**
 * Merges the retrievers' lists as the components say: reciprocal rank fusion, or (fusion off)
 * each list's chunks after the previous lists', in list order, so the full-text list decides
 * alone and the others only fill what it leaves. Concatenated hits keep every list's rank and
 * score by their position.
 */
export function mergeRankedLists(
  lists: readonly RankedList[],
  fusion: SearchComponents['fusion'],
): FusedHit[] {
  const fused = fuseRankedLists(lists);
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
