import type { TSearchHit } from '@service/contract';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DatabaseFeatures } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { type EmbeddingProvider, toVectorLiteral } from '../embeddings/index.js';
import { textSearchConfig } from '../jobs/index-document.js';
import { requireAgent } from '../services/agents.js';
import { isFunctionWord } from './function-words.js';
import { VOCABULARY_MAX_LENGTH, VOCABULARY_MIN_LENGTH } from './vocabulary.js';

/** The reciprocal-rank-fusion constant: a hit at rank r in one list adds 1 / (RRF_K + r). */
export const RRF_K = 60;

/** Default and largest number of hits. */
export const DEFAULT_LIMIT = 8;
export const MAX_LIMIT = 50;

/** At most this many words of a query go into the OR form and the trigram text. */
const MAX_TERMS = 32;
/** Longer "words" are dropped from the OR form (no real word is this long). */
const MAX_TERM_LENGTH = 64;
/** Below this trigram similarity a vocabulary word is no correction of a query word. */
const TRIGRAM_THRESHOLD = 0.4;
/** Vocabulary words tried per unknown query word, most similar first. */
const CORRECTIONS_PER_TERM = 3;

/** The retrievers whose ranks a hit reports. */
export type RetrieverName = 'fulltext' | 'trigram' | 'vector';

/** One retriever's answer: chunk ids, best first. */
export type RankedList = { name: RetrieverName; ids: string[] };

/** A fused hit before its chunk is loaded. */
export type FusedHit = { id: string; score: number; ranks: Partial<Record<RetrieverName, number>> };

/**
 * Reciprocal rank fusion: every list a chunk appears in adds 1 / (k + rank), rank 1-based.
 * Ties go to the chunk with the best single rank, then to the smaller id, so the order is stable.
 * Takes any number of lists: a vector retriever is one more list.
 */
export function fuseRankedLists(lists: readonly RankedList[], k: number = RRF_K): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  for (const list of lists) {
    list.ids.forEach((id, index) => {
      const rank = index + 1;
      const hit = fused.get(id) ?? { id, score: 0, ranks: {} };
      if (hit.ranks[list.name] !== undefined) return; // a list names a chunk once
      hit.ranks[list.name] = rank;
      hit.score += 1 / (k + rank);
      fused.set(id, hit);
    });
  }
  const bestRank = (hit: FusedHit) => Math.min(...Object.values(hit.ranks));
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || bestRank(a) - bestRank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * A query cleaned for use as data: NFKC, control characters (NUL breaks Postgres text) and
 * surrounding space gone, inner whitespace collapsed.
 */
export function normalizeQuery(query: string): string {
  return (
    query
      .normalize('NFKC')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/**
 * The words of a query: runs of letters, marks and digits, lower case, de-duplicated, at most
 * MAX_TERMS of them, over-long ones dropped. Nothing else survives, so no tsquery operator,
 * quote, backslash or weight can come from the user.
 */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const match of normalizeQuery(query)
    .toLowerCase()
    .matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    const term = match[0];
    if (term.length > MAX_TERM_LENGTH || terms.includes(term)) continue;
    terms.push(term);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/**
 * The OR form of a query for `to_tsquery`: each word quoted as a lexeme, joined by ` | `
 * (`'refund' | 'policy'`). Function words are left out when the query has other words. Null
 * when the query has no words.
 */
export function orTsQuery(query: string): string | null {
  const terms = contentTerms(query);
  return terms.length === 0 ? null : terms.map((term) => `'${term}'`).join(' | ');
}

/** The query's words without function words, or all of them when nothing else is left. */
export function contentTerms(query: string): string[] {
  const terms = queryTerms(query);
  const content = terms.filter((term) => !isFunctionWord(term));
  return content.length > 0 ? content : terms;
}

/** What a search needs: where, for whom, what, how many, and which optional retrievers exist. */
export type SearchInput = {
  db: Kysely<DB>;
  workspaceId: string;
  agentId: string;
  query: string;
  limit?: number | undefined;
  features: DatabaseFeatures;
  /** Embeds the query for the vector retriever; null or absent: no vector retrieval. */
  embeddings?: EmbeddingProvider | null | undefined;
  /** Called when the query cannot be embedded (the search goes on without vectors). */
  onVectorError?: (error: unknown) => void;
};

/**
 * Hybrid search over one agent's chunks: full-text (strict `websearch_to_tsquery` plus an OR
 * form for recall, in both `simple` and the agent's language), with pg_trgm trigram word
 * similarity for typos, and with pgvector and an embedding provider vector similarity, fused
 * by reciprocal rank. Every branch filters by workspace and agent
 * in its own SQL. An agent of another workspace (or none) is a 404.
 */
export async function searchChunks(input: SearchInput): Promise<TSearchHit[]> {
  const { db, workspaceId, agentId, features } = input;
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.trunc(input.limit ?? DEFAULT_LIMIT)));
  const agent = await requireAgent(db, workspaceId, agentId);

  const query = normalizeQuery(input.query);
  if (query === '') return [];
  const candidates = Math.min(200, Math.max(50, limit * 5));
  const scope = { db, workspaceId, agentId, candidates };
  const config = await textSearchConfig(db, agent.language_default);
  const lists: RankedList[] = [await fullTextList(scope, query, config)];
  if (features.trigram) lists.push(await trigramList(scope, query, config));
  if (features.vector && input.embeddings) {
    const vector = await vectorList(scope, query, input.embeddings).catch((error: unknown) => {
      input.onVectorError?.(error);
      return null;
    });
    if (vector) lists.push(vector);
  }

  const top = fuseRankedLists(lists).slice(0, limit);
  return loadHits(scope, top);
}

type Scope = { db: Kysely<DB>; workspaceId: string; agentId: string; candidates: number };

/** Queries with at most this many content words first look only at chunks matching two of them. */
const MAX_PAIRED_TERMS = 8;

/**
 * Chunks matching the strict query (all words, phrases, -exclusions) or the OR form (any
 * content word), in `simple` and in the agent's configuration. Strict matches rank first, then
 * chunks matching more of the query's distinct words, then by cover density.
 *
 * A query of several words common in the corpus matches most chunks through its OR form, and
 * ranking them all is the cost of a search. Since chunks matching more words rank first, the
 * top candidates come from the chunks matching at least two words whenever there are enough
 * of those: that (much smaller) set is ranked first, and the whole OR set only when it is short.
 * The answer is the same either way.
 */
async function fullTextList(scope: Scope, query: string, config: string): Promise<RankedList> {
  const terms = contentTerms(query);
  const strict = sql`(websearch_to_tsquery('simple', ${query}) || websearch_to_tsquery(${config}::regconfig, ${query}))`;
  if (terms.length === 0)
    return { name: 'fulltext', ids: await rankFullText(scope, strict, strict, strict, []) };
  const words = terms.map(
    (term) => sql`(to_tsquery('simple', ${`'${term}'`}) || to_tsquery(${config}::regconfig, ${`'${term}'`}))`,
  );
  const loose = sql`(${sql.join(words, sql` || `)})`;
  if (terms.length >= 2 && terms.length <= MAX_PAIRED_TERMS) {
    const pairs = words.flatMap((left, i) => words.slice(i + 1).map((right) => sql`(${left} && ${right})`));
    const paired = await rankFullText(scope, strict, loose, sql`(${sql.join(pairs, sql` || `)})`, words);
    if (paired.length >= scope.candidates) return { name: 'fulltext', ids: paired };
  }
  return { name: 'fulltext', ids: await rankFullText(scope, strict, loose, loose, words) };
}

/** Chunks matching `strict` or `filter`, ranked by strict match, words matched and cover density. */
async function rankFullText(
  scope: Scope,
  strict: RawBuilder<unknown>,
  loose: RawBuilder<unknown>,
  filter: RawBuilder<unknown>,
  words: RawBuilder<unknown>[],
): Promise<string[]> {
  const matched =
    words.length === 0
      ? sql`0::int` // a bare 0 would be an ORDER BY position
      : sql.join(
          words.map((word) => sql`(c.tsv @@ ${word})::int`),
          sql` + `,
        );
  const result = await sql<{ id: string }>`
    with q as (select ${strict} as strict, ${loose} as loose, ${filter} as filter)
    select c.id
    from chunks c, q
    where c.workspace_id = ${scope.workspaceId}
      and c.agent_id = ${scope.agentId}
      and (c.tsv @@ q.strict or c.tsv @@ q.filter)
    order by (c.tsv @@ q.strict) desc,
      ${matched} desc,
      ts_rank_cd(c.tsv, q.loose) desc,
      ts_rank_cd(c.tsv, q.strict) desc,
      c.id
    limit ${scope.candidates}`.execute(scope.db);
  return result.rows.map((row) => row.id);
}

/**
 * Typo tolerance: each query word the agent's vocabulary does not know is replaced by the
 * vocabulary words most similar to it (pg_trgm similarity over short words, through
 * agent_words_trgm_idx), and chunks containing those words are ranked as full-text would. So
 * `refnd polcy` finds "refund policy" without comparing the query with whole chunk texts.
 */
async function trigramList(scope: Scope, query: string, config: string): Promise<RankedList> {
  const terms = queryTerms(query).filter(
    (term) =>
      term.length >= VOCABULARY_MIN_LENGTH &&
      term.length <= VOCABULARY_MAX_LENGTH &&
      !/^\d+$/.test(term) &&
      !isFunctionWord(term),
  );
  if (terms.length === 0) return { name: 'trigram', ids: [] };
  const rows = await scope.db.transaction().execute(async (trx) => {
    await sql`select set_config('pg_trgm.similarity_threshold', ${String(TRIGRAM_THRESHOLD)}, true)`.execute(
      trx,
    );
    const corrections = await sql<{ word: string }>`
      select distinct w.word
      from unnest(${terms}::text[]) as q(term)
      cross join lateral (
        select v.word from agent_words v
        where v.agent_id = ${scope.agentId} and v.word % q.term and v.word <> q.term
        order by similarity(v.word, q.term) desc, v.word
        limit ${CORRECTIONS_PER_TERM}
      ) as w
      where not exists (select 1 from agent_words k where k.agent_id = ${scope.agentId} and k.word = q.term)`.execute(
      trx,
    );
    if (corrections.rows.length === 0) return [];
    const or = corrections.rows.map((row) => `'${row.word}'`).join(' | ');
    const result = await sql<{ id: string }>`
      with q as (select (to_tsquery('simple', ${or}) || to_tsquery(${config}::regconfig, ${or})) as query)
      select c.id
      from chunks c, q
      where c.workspace_id = ${scope.workspaceId}
        and c.agent_id = ${scope.agentId}
        and c.tsv @@ q.query
      order by ts_rank_cd(c.tsv, q.query) desc, c.id
      limit ${scope.candidates}`.execute(trx);
    return result.rows;
  });
  return { name: 'trigram', ids: rows.map((row) => row.id) };
}

/** Budget for embedding a query; past it the search answers without the vector list. */
const QUERY_EMBED_TIMEOUT_MS = 5_000;

/**
 * Chunks whose text vector is nearest the query's (cosine), among this agent's vectors of the
 * active provider, above the provider's similarity floor. The dimension is a literal so the
 * planner can use that dimension's partial HNSW index; iterative scans keep the agent filter
 * from starving the index of candidates (pgvector ≥ 0.8).
 */
async function vectorList(scope: Scope, query: string, embeddings: EmbeddingProvider): Promise<RankedList> {
  const [embedding] = await embeddings.embed([query], {
    signal: AbortSignal.timeout(QUERY_EMBED_TIMEOUT_MS),
  });
  if (!embedding?.some((value) => value !== 0)) return { name: 'vector', ids: [] };
  const dims = sql.lit(embedding.length);
  const literal = toVectorLiteral(embedding);
  const maxDistance = 1 - embeddings.minSimilarity;
  const rows = await scope.db.transaction().execute(async (trx) => {
    await sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', '100', true)`.execute(
      trx,
    );
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
      limit ${scope.candidates}`.execute(trx);
    return result.rows;
  });
  return { name: 'vector', ids: rows.map((row) => row.id) };
}

/** Loads the fused hits' chunks and documents (again within the workspace and agent), in fused order. */
async function loadHits(scope: Scope, top: FusedHit[]): Promise<TSearchHit[]> {
  if (top.length === 0) return [];
  const rows = await scope.db
    .selectFrom('chunks')
    .innerJoin('documents', 'documents.id', 'chunks.document_id')
    .select([
      'chunks.id as chunk_id',
      'chunks.document_id',
      'documents.source_id',
      'documents.title',
      'documents.url',
      'chunks.content',
    ])
    .where('chunks.workspace_id', '=', scope.workspaceId)
    .where('chunks.agent_id', '=', scope.agentId)
    .where('documents.workspace_id', '=', scope.workspaceId)
    .where(
      'chunks.id',
      'in',
      top.map((hit) => hit.id),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.chunk_id, row]));
  const hits: TSearchHit[] = [];
  for (const hit of top) {
    const row = byId.get(hit.id);
    if (!row) continue; // deleted between the ranking and this read
    hits.push({ ...row, score: hit.score, ranks: hit.ranks });
  }
  return hits;
}
