import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DatabaseFeatures } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { isFunctionWord } from './function-words.js';
import type { RankedList, SearchScope } from './fusion.js';
import { contentTerms, queryTerms, usesSearchOperators } from './query-terms.js';
import { FULL_SEARCH, type SearchComponents } from './search-components.js';
import { correctionsQuery, VOCABULARY_MAX_LENGTH, VOCABULARY_MIN_LENGTH } from './vocabulary.js';

/**
 * The lexical retrievers: full-text over the chunks' tsvectors (strict and OR forms, ranked in
 * tiers) and typo tolerance (vocabulary corrections), both from one ranking statement.
 */

type Sql = RawBuilder<unknown>;

/** The full-text list and, with pg_trgm, the typo list, from one ranking statement. */
export async function lexicalLists(
  scope: SearchScope,
  query: string,
  config: string,
  features: DatabaseFeatures,
  components: Readonly<SearchComponents> = FULL_SEARCH,
): Promise<RankedList[]> {
  const useTrigram = features.trigram && components.trigram;
  const typos = useTrigram ? typoTerms(query) : [];
  const trigram = typos.length > 0 ? trigramIds(scope, typos, config) : sql`null::text[]`;
  const strict = components.allWords === 'operators' ? usesSearchOperators(query) : components.allWords;
  const forms = withComponents(await tsqueryForms(scope.db, query, config), {
    ...components,
    allWords: strict,
  });
  const result = await sql<{ fulltext: string[] | null; trigram: string[] | null }>`
    select ${fullTextIds(scope, forms)} as fulltext, ${trigram} as trigram`.execute(scope.db);
  const row = result.rows[0];
  const lists: RankedList[] = [{ name: 'fulltext', ids: row?.fulltext ?? [] }];
  if (useTrigram) lists.push({ name: 'trigram', ids: row?.trigram ?? [] });
  return lists;
}

/** The strict query and each content word's query (`simple` or the agent's), as tsquery text. */
export type TsqueryForms = {
  strict: string;
  words: string[];
  /** The same in each configuration alone, for `withComponents`. */
  simple: { strict: string; words: string[] };
  configured: { strict: string; words: string[] };
};

/**
 * The forms the components leave: one configuration only (a word with no lexeme in it is
 * dropped), no strict form (`''`, matching nothing), no OR form (no words).
 */
function withComponents(
  forms: TsqueryForms,
  components: Readonly<Omit<SearchComponents, 'allWords'> & { allWords: boolean }>,
): TsqueryForms {
  if (components.configs === 'both' && components.allWords && components.anyWord) return forms;
  const one = components.configs === 'simple' ? forms.simple : forms.configured;
  const picked =
    components.configs === 'both' ? forms : { strict: one.strict, words: one.words.filter((w) => w !== '') };
  return {
    ...forms,
    strict: components.allWords ? picked.strict : '',
    words: components.anyWord ? picked.words : [],
  };
}

/**
 * Builds the full-text queries in their own small statement, so the ranking statement, which
 * uses each of them in several tiers, gets them as tsquery constants: the dictionaries run once
 * and the planner still sees the values (index conditions, selectivity). Each is the `simple`
 * form OR the configuration's, written once when the two are the same (most words the stemmer
 * leaves alone): ranking costs time per query operand and per row, and an operand a row does
 * not contain never changes `ts_rank_cd` of an OR query.
 */
export async function tsqueryForms(db: Kysely<DB>, query: string, config: string): Promise<TsqueryForms> {
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
  const simple = { strict: row?.strict[0] ?? '', words: terms.map((_, i) => forms[2 * i] ?? '') };
  const configured = { strict: row?.strict[1] ?? '', words: terms.map((_, i) => forms[2 * i + 1] ?? '') };
  return {
    strict: eitherForm(simple.strict, configured.strict),
    words: terms.map((_, i) => eitherForm(simple.words[i] ?? '', configured.words[i] ?? '')),
    simple,
    configured,
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
function fullTextIds(scope: SearchScope, forms: TsqueryForms): Sql {
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
  const oneWordRank = pairs
    ? sql`case ${sql.join(
        words.map((word) => sql`when c.tsv @@ ${word} then ts_rank_cd(c.tsv, ${word})`),
        sql` `,
      )} end`
    : undefined;
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
      oneWordRank,
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

/** The typo list alone (the BM25 ranking corrects typos inside its own query): empty without pg_trgm or typos. */
export async function trigramList(scope: SearchScope, query: string, config: string): Promise<RankedList> {
  const typos = typoTerms(query);
  if (typos.length === 0) return { name: 'trigram', ids: [] };
  const result = await sql<{ trigram: string[] | null }>`
    select ${trigramIds(scope, typos, config)} as trigram`.execute(scope.db);
  return { name: 'trigram', ids: result.rows[0]?.trigram ?? [] };
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
function trigramIds(scope: SearchScope, terms: readonly string[], config: string): Sql {
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
