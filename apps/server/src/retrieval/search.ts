import type { TSearchHit } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { DatabaseFeatures } from '../db/database.js';
import { PREPARED } from '../db/prepared.js';
import type { DB } from '../db/schema.js';
import type { EmbeddingProvider } from '../embeddings/index.js';
import { requireAgent } from '../services/require-agent.js';
import { bm25Lists } from './bm25-lists.js';
import type { FusedHit, SearchScope } from './fusion.js';
import { lexicalLists } from './lexical.js';
import { aggregatePages, documentsOf } from './page-aggregation.js';
import { normalizeQuery } from './query-terms.js';
import { mergeRankedLists, type SearchComponents, searchComponents } from './search-components.js';
import { textSearchConfig } from './text-search-config.js';
import { vectorList } from './vector-list.js';

/** Default and largest number of hits. */
export const DEFAULT_LIMIT = 8;
export const MAX_LIMIT = 50;

/** What a search needs: where, for whom, what, how many, and which optional retrievers exist. */
export type SearchInput = {
  db: Kysely<DB>;
  workspaceId: string;
  agentId: string;
  query: string;
  limit?: number | undefined;
  features: DatabaseFeatures;
  /**
   * The agent's language, when the caller has already loaded the agent within `workspaceId`
   * (the answer pipeline): the search then skips looking it up, one statement less per answer.
   */
  knownAgent?: { language_default: string | null } | undefined;
  /** Embeds the query for the vector retriever; null or absent: no vector retrieval. */
  embeddings?: EmbeddingProvider | null | undefined;
  /** Called when the query cannot be embedded (the search goes on without vectors). */
  onVectorError?: (error: unknown) => void;
  /**
   * Ranking components to switch off, for measuring what each adds (the quality bench). Internal:
   * never filled from a request; absent means the full search.
   */
  components?: Partial<SearchComponents> | undefined;
};

/**
 * Hybrid search over one agent's chunks: full-text (strict `websearch_to_tsquery` plus an OR
 * form for recall, in both `simple` and the agent's language), with pg_trgm trigram word
 * similarity for typos, and with pgvector and an embedding provider vector similarity, fused
 * by weighted reciprocal rank (and, when the `pages` component is on, lifted by page:
 * `aggregatePages`). The strict form is parsed only for a query with
 * websearch syntax. Every branch filters by workspace and agent in its own SQL. The lexical
 * lists come from one ranking statement and the vector list from another, sent together (on
 * PostgreSQL they run side by side; the embedded store's one connection takes them in turn).
 * An agent of another workspace (or none) is a 404.
 */
export async function searchChunks(input: SearchInput): Promise<TSearchHit[]> {
  return (await searchWithDocuments(input)).map((found) => found.hit);
}

/** A hit and, when its document is a synced product of the agent, that product's stored metadata. */
export type HitWithDocument = { hit: TSearchHit; productMetadata: unknown };

/**
 * {@link searchChunks}, with the metadata of each hit's product document (null for other kinds)
 * read by the same statement that loads the hits: the answer pipeline's product cards.
 */
export async function searchWithDocuments(input: SearchInput): Promise<HitWithDocument[]> {
  const { db, workspaceId, agentId, features } = input;
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.trunc(input.limit ?? DEFAULT_LIMIT)));
  const agent = input.knownAgent ?? (await requireAgent(db, workspaceId, agentId));

  const query = normalizeQuery(input.query);
  if (query === '') return [];
  const candidates = Math.min(200, Math.max(50, limit * 5));
  const scope = { db, workspaceId, agentId, candidates };
  const components = searchComponents(input.components);
  const provider = input.embeddings;
  const embeddings =
    features.vector && components.vector && provider && (provider.semantic || components.lexicalVectors)
      ? provider
      : null;
  const vector = embeddings
    ? vectorList(scope, query, embeddings).catch((error: unknown) => {
        input.onVectorError?.(error);
        return null;
      })
    : Promise.resolve(null);
  const config = await textSearchConfig(db, agent.language_default);
  const [lexical, vectorRanked] = await Promise.all([
    components.ranking === 'bm25'
      ? bm25Lists(scope, query, config, features, components)
      : lexicalLists(scope, query, config, features, components),
    vector,
  ]);
  const lists = vectorRanked ? [...lexical, vectorRanked] : lexical;

  const merged = mergeRankedLists(lists, components.fusion, components.weights);
  const ranked =
    components.pages > 0
      ? aggregatePages(
          merged,
          await documentsOf(
            scope,
            merged.map((hit) => hit.id),
          ),
          components.pages,
        )
      : merged;
  const top = ranked.slice(0, limit);
  return loadHits(scope, top);
}

/** Loads the fused hits' chunks and documents (again within the workspace and agent), in fused order. */
async function loadHits(scope: SearchScope, top: FusedHit[]): Promise<HitWithDocument[]> {
  if (top.length === 0) return [];
  const rows = await scope.db
    .selectFrom('chunks')
    .modifyFront(PREPARED)
    .innerJoin('documents', 'documents.id', 'chunks.document_id')
    .select([
      'chunks.id as chunk_id',
      'chunks.document_id',
      'documents.source_id',
      'documents.title',
      'documents.url',
      'chunks.content',
      sql<unknown>`case when documents.kind = 'product' and documents.agent_id = ${scope.agentId}
        then documents.metadata end`.as('product_metadata'),
    ])
    .where('chunks.workspace_id', '=', scope.workspaceId)
    .where('chunks.agent_id', '=', scope.agentId)
    .where('documents.workspace_id', '=', scope.workspaceId)
    .where((eb) => eb('chunks.id', '=', eb.fn.any(eb.val(top.map((hit) => hit.id)))))
    .execute();
  const byId = new Map(rows.map((row) => [row.chunk_id, row]));
  const hits: HitWithDocument[] = [];
  for (const fused of top) {
    const row = byId.get(fused.id);
    if (!row) continue; // deleted between the ranking and this read
    const { product_metadata, ...hit } = row;
    hits.push({ hit: { ...hit, score: fused.score, ranks: fused.ranks }, productMetadata: product_metadata });
  }
  return hits;
}
