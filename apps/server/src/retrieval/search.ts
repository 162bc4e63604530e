import type { TSearchHit } from '@service/contract';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DatabaseFeatures } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { type EmbeddingProvider, toVectorLiteral } from '../embeddings/index.js';
import { textSearchConfig } from '../jobs/index-document.js';
import { requireAgent } from '../services/agents.js';
import { isFunctionWord } from './function-words.js';
import { correctionsQuery, VOCABULARY_MAX_LENGTH, VOCABULARY_MIN_LENGTH } from './vocabulary.js';

/** The reciprocal-rank-fusion constant: a hit at rank r in one list adds 1 / (RRF_K + r). */
export const RRF_K = 60;

/** Default and largest number of hits. */
export const DEFAULT_LIMIT = 8;
export const MAX_LIMIT = 50;

/** At most this many words of a query go into the OR form and the trigram text. */
const MAX_TERMS = 32;
/** Longer "words" are dropped from the OR form (no real word is this long). */
const MAX_TERM_LENGTH = 64;

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
 * by reciprocal rank. Every branch filters by workspace and agent in its own SQL. The lexical
 * lists come from one ranking statement and the vector list from another, sent together (on
 * PostgreSQL they run side by side; the embedded store's one connection takes them in turn).
 * An agent of another workspace (or none) is a 404.
 */
export async function searchChunks(input: SearchInput): Promise<TSearchHit[]> {
  const { db, workspaceId, agentId, features } = input;
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.trunc(input.limit ?? DEFAULT_LIMIT)));
  const agent = await requireAgent(db, workspaceId, agentId);

  const query = normalizeQuery(input.query);
  if (query === '') return [];
  const candidates = Math.min(200, Math.max(50, limit * 5));
  const scope = { db, workspaceId, agentId, candidates };
  const embeddings = features.vector ? input.embeddings : null;
  const vector = embeddings
    ? vectorList(scope, query, embeddings).catch((error: unknown) => {
        input.onVectorError?.(error);
        return null;
      })
    : Promise.resolve(null);
  const config = await textSearchConfig(db, agent.language_default);
  const [lexical, vectorRanked] = await Promise.all([lexicalLists(scope, query, config, features), vector]);
  const lists = vectorRanked ? [...lexical, vectorRanked] : lexical;

  const top = fuseRankedLists(lists).slice(0, limit);
  return loadHits(scope, top);
}

type Scope = { db: Kysely<DB>; workspaceId: string; agentId: string; candidates: number };
type Sql = RawBuilder<unknown>;

/** The full-text list and, with pg_trgm, the typo list, from one ranking statement. */
async function lexicalLists(
  scope: Scope,
  query: string,
  config: string,
  features: DatabaseFeatures,
): Promise<RankedList[]> {
  const typos = features.trigram ? typoTerms(query) : [];
  const trigram = typos.length > 0 ? trigramIds(scope, typos, config) : sql`null::text[]`;
  const forms = await tsqueryForms(scope.db, query, config);
  const result = await sql<{ fulltext: string[] | null; trigram: string[] | null }>`
    select ${fullTextIds(scope, forms)} as fulltext, ${trigram} as trigram`.execute(scope.db);
  const row = result.rows[0];
  const lists: RankedList[] = [{ name: 'fulltext', ids: row?.fulltext ?? [] }];
  if (features.trigram) lists.push({ name: 'trigram', ids: row?.trigram ?? [] });
  return lists;
}

/** The strict query and each content word's query (`simple` or the agent's), as tsquery text. */
type TsqueryForms = { strict: string; words: string[] };

/**
 * Builds the full-text queries in their own small statement, so the ranking statement, which
 * uses each of them in several tiers, gets them as tsquery constants: the dictionaries run once
 * and the planner still sees the values (index conditions, selectivity). Each is the `simple`
 * form OR the configuration's, written once when the two are the same (most words the stemmer
 * leaves alone): ranking costs time per query operand and per row, and an operand a row does
 * not contain never changes `ts_rank_cd` of an OR query.
 */
async function tsqueryForms(db: Kysely<DB>, query: string, config: string): Promise<TsqueryForms> {
  const terms = contentTerms(query);
  const quoted = terms.map((term) => `'${term}'`);
  const result = await sql<{ strict: [string, string]; words: string[] }>`
    select array[websearch_to_tsquery('simple', ${query})::text,
        websearch_to_tsquery(${config}::regconfig, ${query})::text] as strict,
      array(select f.form from unnest(${quoted}::text[]) with ordinality as t(term, i)
        cross join lateral (values (1, to_tsquery('simple', t.term)::text),
          (2, to_tsquery(${config}::regconfig, t.term)::text)) as f(k, form)
        order by t.i, f.k) as words`.execute(db);
  const row = result.rows[0];
  const forms = row?.words ?? [];
  return {
    strict: eitherForm(row?.strict[0] ?? '', row?.strict[1] ?? ''),
    words: terms.map((_, i) => eitherForm(forms[2 * i] ?? '', forms[2 * i + 1] ?? '')),
  };
}

/** Two tsquery texts as one that matches either: one of them when the other is empty or equal. */
export function eitherForm(simple: string, configured: string): string {
  if (simple === '' || simple === configured) return configured;
  if (configured === '') return simple;
  return `(${simple}) | (${configured})`;
}

/** Queries with at most this many content words rank the chunks matching two of them first. */
const MAX_PAIRED_TERMS = 8;

/**
 * Chunks matching the strict query (all words, phrases, -exclusions) or the OR form (any
 * content word), in `simple` and in the agent's configuration, as an array expression. Strict
 * matches rank first, then chunks matching more of the query's distinct words, then by cover
 * density (`ts_rank_cd` of the OR form, then of the strict query), then by id.
 *
 * Ranking is the cost of a search (a common word matches thousands of chunks), so the chunks
 * are taken in tiers that this order keeps apart, each found through the GIN index alone:
 * strict matches with every word, other strict matches, chunks with two of the words, chunks
 * with one. A tier is read only while the tiers before it hold fewer than the candidates
 * wanted, and ranks only by what differs within it. Tiers sort ids and keys only (sorting the
 * vectors too spilled a common word's tier to disk); the second cover density is computed at
 * the end for the few rows that survive the cuts, their vectors read again by id. The answer
 * is the same as ranking every match.
 */
function fullTextIds(scope: Scope, forms: TsqueryForms): Sql {
  const n = sql.lit(scope.candidates);
  const strict = sql`${forms.strict}::tsquery`;
  const inScope = sql`c.workspace_id = ${scope.workspaceId} and c.agent_id = ${scope.agentId}`;
  if (forms.words.length === 0) {
    return sql`array(select c.id from chunks c where ${inScope} and c.tsv @@ ${strict}
      order by ts_rank_cd(c.tsv, ${strict}) desc, c.id limit ${n})`;
  }
  const words = forms.words.map((word) => sql`${word}::tsquery`);
  const loose = sql`(${sql.join(words, sql` || `)})`;
  const all = sql`(${sql.join(words, sql` && `)})`;
  const matched = sql`(${sql.join(
    words.map((word) => sql`(c.tsv @@ ${word})::int`),
    sql` + `,
  )})`;
  const paired = words.length >= 2 && words.length <= MAX_PAIRED_TERMS;
  const pairs = paired
    ? sql`(${sql.join(
        words.flatMap((left, i) => words.slice(i + 1).map((right) => sql`(${left} && ${right})`)),
        sql` || `,
      )})`
    : null;
  const nonEmpty = (tsquery: Sql) => sql`numnode(${tsquery}) > 0`;
  const fewerThanN = (earlier: string[]) =>
    sql`${sql.join(
      earlier.map((name) => sql`(select count(*) from ${sql.id(name)})`),
      sql` + `,
    )} < ${n}`;
  /**
   * One tier: the chunks matching `match` while the tiers before it hold fewer than n rows,
   * with their words matched (`m`, or computed when it differs within the tier) and cover
   * density, cut at the n-th row with its ties. Computing `m` reads each tsvector once, copied
   * into memory: one stored out of line (TOAST) would otherwise be fetched again for every word.
   */
  const tier = (
    name: string,
    match: Sql,
    when: Sql,
    m: number | null,
    rank: Sql = sql`ts_rank_cd(c.tsv, ${loose})`,
  ) => {
    const rows = sql`select c.id, c.tsv from chunks c where ${inScope} and c.tsv @@ ${match} and ${when}`;
    const from =
      m === null ? sql`(select id, (array[tsv])[1] as tsv from (${rows}) as s offset 0)` : sql`(${rows})`;
    return sql`${sql.id(name)} as (
      select c.id, ${m === null ? matched : sql.lit(m)} as m, ${rank} as r
      from ${from} as c
      order by m desc, r desc
      fetch first ${n} rows with ties)`;
  };
  const oneWord = pairs ? sql`(${loose} && !!${strict} && !!${pairs})` : sql`(${loose} && !!${strict})`;
  // A row of the one-word tier holds exactly one of the words, and the words it lacks add
  // nothing to its cover density: ranking it by that word alone gives the same number for a
  // fraction of the work (the tier of a common word is thousands of rows).
  const oneWordRank = sql`case ${sql.join(
    words.map((word) => sql`when c.tsv @@ ${word} then ts_rank_cd(c.tsv, ${word})`),
    sql` `,
  )} end`;
  const strictAll = sql`${nonEmpty(strict)} and ${nonEmpty(all)}`;
  const tiers = [
    tier('t1', sql`(${strict} && ${all})`, strictAll, words.length),
    tier('t2', sql`(${strict} && !!${all})`, sql`${strictAll} and ${fewerThanN(['t1'])}`, null),
    pairs
      ? tier(
          't3',
          sql`(${pairs} && !!${strict})`,
          sql`${nonEmpty(pairs)} and ${fewerThanN(['t1', 't2'])}`,
          null,
        )
      : sql`t3 as (select null::text as id, 0 as m, 0::real as r where false)`,
    tier(
      't4',
      oneWord,
      sql`${nonEmpty(loose)} and ${fewerThanN(['t1', 't2', 't3'])}`,
      pairs || words.length === 1 ? 1 : null,
      pairs ? oneWordRank : undefined,
    ),
  ];
  return sql`array(
    with ${sql.join(tiers, sql`, `)}
    select t.id from (
      select id, true as strict, m, r from t1
      union all select id, true, m, r from t2
      union all select id, false, m, r from t3
      union all select id, false, m, r from t4
    ) as t
    join chunks c on c.id = t.id and ${inScope}
    order by t.strict desc, t.m desc, t.r desc, ts_rank_cd(c.tsv, ${strict}) desc, t.id
    limit ${n})`;
}

/** The query words typo tolerance tries to correct: vocabulary-sized, not numbers, not function words. */
function typoTerms(query: string): string[] {
  return queryTerms(query).filter(
    (term) =>
      term.length >= VOCABULARY_MIN_LENGTH &&
      term.length <= VOCABULARY_MAX_LENGTH &&
      !/^\d+$/.test(term) &&
      !isFunctionWord(term),
  );
}

/**
 * Typo tolerance, as an array expression: each query word the agent's vocabulary does not know
 * is replaced by the vocabulary words most similar to it (see `correctionsQuery`), and chunks
 * containing those words are ranked as full-text would. So `refnd polcy` finds "refund policy"
 * without comparing the query with whole chunk texts.
 */
function trigramIds(scope: Scope, terms: readonly string[], config: string): Sql {
  return sql`array(
    with q as (select ${correctionsQuery(scope.agentId, terms, config)} as query)
    select c.id
    from chunks c
    where c.workspace_id = ${scope.workspaceId}
      and c.agent_id = ${scope.agentId}
      and c.tsv @@ (select q.query from q)
    order by ts_rank_cd(c.tsv, (select q.query from q)) desc, c.id
    limit ${sql.lit(scope.candidates)})`;
}

/** Budget for embedding a query; past it the search answers without the vector list. */
const QUERY_EMBED_TIMEOUT_MS = 5_000;

/**
 * Chunks whose text vector is nearest the query's (cosine), among this agent's vectors of the
 * active provider, above the provider's similarity floor. The dimension is a literal so the
 * planner can use that dimension's partial HNSW index. The scan's width and its iterative mode,
 * which keeps the agent filter from starving the index of candidates (pgvector ≥ 0.8), are set
 * once per connection (`VECTOR_SESSION_SETTINGS` in db/database.ts), not per search.
 */
async function vectorList(scope: Scope, query: string, embeddings: EmbeddingProvider): Promise<RankedList> {
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
