import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/** What every retriever gets: where to look, for whom, and how many candidates to return. */
export type SearchScope = { db: Kysely<DB>; workspaceId: string; agentId: string; candidates: number };

/** The reciprocal-rank-fusion constant: a hit at rank r in one list adds 1 / (RRF_K + r). */
export const RRF_K = 60;

/** The retrievers whose ranks a hit reports. */
export type RetrieverName = 'fulltext' | 'trigram' | 'vector';

/** One retriever's answer: chunk ids, best first. */
export type RankedList = { name: RetrieverName; ids: string[] };

/** A fused hit before its chunk is loaded. */
export type FusedHit = { id: string; score: number; ranks: Partial<Record<RetrieverName, number>> };

/**
 * Reciprocal rank fusion: every list a chunk appears in adds 1 / (k + rank), rank 1-based.
 * Ties go to the chunk with the best single rank, then to the smaller id, so the order is stable.
 * Takes any number of lists: a vector retriever is one more list. A list's `weights` entry
 * (default 1) scales what it adds, so a retriever can count for less than full-text.
 */
export function fuseRankedLists(
  lists: readonly RankedList[],
  k: number = RRF_K,
  weights: Partial<Record<RetrieverName, number>> = {},
): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  for (const list of lists) {
    list.ids.forEach((id, index) => {
      const rank = index + 1;
      const hit = fused.get(id) ?? { id, score: 0, ranks: {} };
      if (hit.ranks[list.name] !== undefined) return; // a list names a chunk once
      hit.ranks[list.name] = rank;
      hit.score += (weights[list.name] ?? 1) / (k + rank);
      fused.set(id, hit);
    });
  }
  const bestRank = (hit: FusedHit) => Math.min(...Object.values(hit.ranks));
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || bestRank(a) - bestRank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
