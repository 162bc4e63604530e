import { sql } from 'kysely';
import { type EmbeddingProvider, toVectorLiteral } from '../embeddings/index.js';
import type { RankedList, SearchScope } from './fusion.js';

/** Budget for embedding a query; past it the search answers without the vector list. */
const QUERY_EMBED_TIMEOUT_MS = 5_000;

/**
 * Chunks whose text vector is nearest the query's (cosine), among this agent's vectors of the
 * active provider, above the provider's similarity floor. The dimension is a literal so the
 * planner can use that dimension's partial HNSW index. The scan's width and its iterative mode,
 * which keeps the agent filter from starving the index of candidates (pgvector ≥ 0.8), are set
 * once per connection (`VECTOR_SESSION_SETTINGS` in db/database.ts), not per search.
 */
export async function vectorList(
  scope: SearchScope,
  query: string,
  embeddings: EmbeddingProvider,
): Promise<RankedList> {
  const [embedding] = await embeddings.embed([query], {
    signal: AbortSignal.timeout(QUERY_EMBED_TIMEOUT_MS),
  });
  if (!embedding?.some((value) => value !== 0)) return { name: 'vector', ids: [] };
  const dims = sql.lit(embedding.length);
  const literal = toVectorLiteral(embedding);
  const maxDistance = 1 - embeddings.minSimilarity;
  const result = await sql<{ id: string }>`
    with nearest as (
      select e.content_hash, e.embedding::vector(${dims}) <=> ${literal}::vector(${dims}) as distance
      from embeddings e
      where e.workspace_id = ${scope.workspaceId}
        and e.agent_id = ${scope.agentId}
        and e.model = ${embeddings.key}
        and e.dims = ${dims}
      order by e.embedding::vector(${dims}) <=> ${literal}::vector(${dims})
      limit ${scope.candidates}
    )
    select c.id
    from nearest n
    join chunks c on c.agent_id = ${scope.agentId} and c.content_hash = n.content_hash
    where c.workspace_id = ${scope.workspaceId}
      and n.distance <= ${maxDistance}
    order by n.distance, c.id
    limit ${scope.candidates}`.execute(scope.db);
  const rows = result.rows;
  return { name: 'vector', ids: rows.map((row) => row.id) };
}
