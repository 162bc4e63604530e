import { sql } from 'kysely';
import type { SearchScope } from './fusion.js';
import { TRIGRAM_THRESHOLD } from './vocabulary.js';

/**
 * The term statistics BM25 needs, read from the agent's own chunks in one statement: how many
 * chunks the agent has, and each query word's document frequency (how many chunks contain it).
 * A word the agent's vocabulary does not know (a typo) is replaced inside the query by its
 * nearest vocabulary word that the chunks contain (pg_trgm similarity, then the more frequent).
 */

/** Document frequencies are counted up to this many chunks; a word this common weighs little anyway. */
export const DF_CAP = 2_000;

/** One query word as BM25 scores it: its tsquery (either form), document frequency and IDF. */
export type Bm25Term = {
  /** The word as typed, or `typed→correction` when the vocabulary corrected it. */
  word: string;
  tsquery: string;
  df: number;
  idf: number;
  /** True when the word was a typo replaced by a vocabulary word. */
  corrected: boolean;
};

/** Robertson–Spärck Jones IDF with BM25's +1 inside the log, so it stays positive. */
export function idf(chunks: number, df: number): number {
  const n = Math.max(chunks, df);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

type Row = {
  chunks: string;
  dfs: string[];
  known: boolean[];
  fixes: (string | null)[];
  fix_forms: (string | null)[];
  fix_dfs: (string | null)[];
  fix_sims: (number | null)[];
};

/**
 * The statistics of `words` (each with its `tsquery` text, '' when it has no lexeme) for the
 * agent: the agent's chunk count and each word's capped document frequency; with `correct`,
 * words missing from the vocabulary get the most similar vocabulary word that occurs in the
 * chunks (at least TRIGRAM_THRESHOLD similar, ties to the more frequent word).
 */
export async function termStatistics(
  scope: SearchScope,
  words: readonly { word: string; tsquery: string }[],
  config: string,
  correct: boolean,
): Promise<{ chunks: number; terms: Bm25Term[] }> {
  if (words.length === 0) return { chunks: 0, terms: [] };
  const inScope = sql`c.workspace_id = ${scope.workspaceId} and c.agent_id = ${scope.agentId}`;
  const df = (tsquery: ReturnType<typeof sql>) =>
    sql`(select count(*) from (select 1 from chunks c where ${inScope} and c.tsv @@ ${tsquery}
      limit ${sql.lit(DF_CAP)}) as s)`;
  const fix = correct
    ? sql`left join lateral (
        select f.word, f.form, f.sim, ${df(sql`f.form::tsquery`)} as df
        from (select v.word, similarity(v.word, w.word) as sim,
            (select string_agg(distinct x, ' | ') from (values
              (to_tsquery('simple', '''' || v.word || '''')::text),
              (to_tsquery(${config}::regconfig, '''' || v.word || '''')::text)) as t(x) where x <> '') as form
          from agent_words v
          where not w.known and v.agent_id = ${scope.agentId} and v.word % w.word and v.word <> w.word
            and similarity(v.word, w.word) >= ${TRIGRAM_THRESHOLD}
          order by similarity(v.word, w.word) desc, v.word
          limit 3) as f
        where f.form is not null
        order by f.sim desc, ${df(sql`f.form::tsquery`)} desc, f.word
        limit 1) as fx on true`
    : sql`left join lateral (select null::text as word, null::text as form, null::real as sim, null::bigint as df) as fx on true`;
  const result = await sql<Row>`
    with w as (
      select t.i, t.word, t.q,
        exists (select 1 from agent_words k where k.agent_id = ${scope.agentId} and k.word = t.word) as known
      from unnest(${words.map((w) => w.word)}::text[], ${words.map((w) => w.tsquery)}::text[])
        with ordinality as t(word, q, i)
    )
    select (select count(*) from chunks c where ${inScope}) as chunks,
      array_agg(case when w.q = '' then 0 else ${df(sql`w.q::tsquery`)} end order by w.i) as dfs,
      array_agg(w.known order by w.i) as known,
      array_agg(fx.word order by w.i) as fixes,
      array_agg(fx.form order by w.i) as fix_forms,
      array_agg(fx.df order by w.i) as fix_dfs,
      array_agg(fx.sim order by w.i) as fix_sims
    from w ${fix}`.execute(scope.db);
  const row = result.rows[0];
  const chunks = Number(row?.chunks ?? 0);
  const terms: Bm25Term[] = [];
  words.forEach((w, i) => {
    const df = Number(row?.dfs[i] ?? 0);
    const fixed = row?.fixes[i] ?? null;
    const fixedForm = row?.fix_forms[i] ?? null;
    const fixedDf = Number(row?.fix_dfs[i] ?? 0);
    const similarity = Number(row?.fix_sims[i] ?? 0);
    if (fixed !== null && fixedForm !== null && fixedDf > 0 && df === 0) {
      terms.push({
        word: `${w.word}→${fixed}`,
        tsquery: fixedForm,
        df: fixedDf,
        // A correction is a guess: it weighs its IDF times its similarity (0.4 to 1), so a word
        // that was no typo at all does not turn into the query's strongest term.
        idf: idf(chunks, fixedDf) * similarity,
        corrected: true,
      });
    } else if (df > 0) {
      terms.push({ word: w.word, tsquery: w.tsquery, df, idf: idf(chunks, df), corrected: false });
    }
  });
  return { chunks, terms };
}
