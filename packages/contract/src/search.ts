import { z } from 'zod';
import { zText } from './text.js';

/** Body of `POST /api/v1/admin/agents/{id}/search`. */
export const ZSearchRequest = z.strictObject({
  query: zText().trim().min(1).max(500).describe('What to search for: words, a phrase in quotes, -word'),
  limit: z.number().int().min(1).max(50).optional().describe('How many hits at most (default 8)'),
});
export type TSearchRequest = z.infer<typeof ZSearchRequest>;

/** One retrieved chunk, with where it came from and how each retriever ranked it. */
export const ZSearchHit = z.object({
  chunk_id: zText(),
  document_id: zText(),
  source_id: zText(),
  title: zText(),
  url: zText().nullable(),
  content: zText(),
  score: z.number().describe('Reciprocal-rank-fusion score (k = 60); higher is better'),
  ranks: z
    .object({
      fulltext: z.number().int().min(1).optional(),
      trigram: z.number().int().min(1).optional(),
      vector: z.number().int().min(1).optional(),
    })
    .describe('1-based position of the chunk in each retriever that found it'),
});
export type TSearchHit = z.infer<typeof ZSearchHit>;

/** Answer of the search route: the query as searched, and the hits, best first. */
export const ZSearchResult = z.object({
  query: zText(),
  hits: z.array(ZSearchHit),
});
export type TSearchResult = z.infer<typeof ZSearchResult>;
