import { sql } from 'kysely';
import { prepared } from '../db/prepared.js';
import type { SearchScope } from './fusion.js';
import { eitherForm } from './lexical.js';
import type { SearchComponents } from './search-components.js';
import { CORRECTIONS_PER_TERM, TRIGRAM_THRESHOLD, typingSlips } from './vocabulary.js';

/**
 * The term statistics BM25 needs, in one statement: the agent's chunk count and each query
 * word's document frequency (how many chunks contain it), both read from `agent_terms` (kept
 * by triggers on `chunks`: migration 0018) by index lookups, never by counting chunks; the
 * words' tsquery forms; and, for a word the agent's vocabulary does not know (a typo), the
 * vocabulary word it was most likely meant to be, which replaces it inside the query: one typing
 * slip away (`typingSlips`: a letter left out, two swapped, one doubled, a neighbouring key; the
 * more frequent of several), else the nearest by pg_trgm similarity (then the more frequent).
 */

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

/**
 * The weight of a correction one edit away, in place of its trigram similarity (which is low
 * for a short word's swapped letters although the typo is plain).
 */
const EDIT_CONFIDENCE = 0.6;

/** Robertson–Spärck Jones IDF with BM25's +1 inside the log, so it stays positive. */
export function idf(chunks: number, df: number): number {
  const n = Math.max(chunks, df);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

type Row = {
  chunks: number | string | null;
  strict: [string, string] | null;
  simple: string[];
  configured: string[];
  df_simple: (number | string)[];
  df_configured: (number | string)[];
  fixes: (string | null)[];
  fix_forms: (string | null)[];
  fix_dfs: (number | string | null)[];
  fix_sims: (number | null)[];
  fix_edits: (boolean | null)[];
};

/** What the BM25 list needs from a query: its scored words and, when asked for, its strict form. */
export type QueryStatistics = { chunks: number; terms: Bm25Term[]; strict: string };

/** The `simple` and configured lexemes of a word, as an array expression over `word`. */
const lexemes = (word: ReturnType<typeof sql>, config: string) =>
  sql`tsvector_to_array(to_tsvector('simple', ${word}) || to_tsvector(${config}::regconfig, ${word}))`;

/**
 * The statistics of the content `words` of a query for the agent. `configs` picks which forms
 * a word matches in (and so which lexemes its frequency is read for); `strict`: also parse the
 * whole `query` with `websearch_to_tsquery` (its phrases and exclusions); `correct`: words that
 * the vocabulary lacks and no chunk contains get the most similar vocabulary word that occurs
 * in the chunks (at least TRIGRAM_THRESHOLD similar, ties to the more frequent word).
 */
export async function queryStatistics(
  scope: SearchScope,
  query: string,
  words: readonly string[],
  options: {
    config: string;
    configs: SearchComponents['configs'];
    strict: boolean;
    correct: boolean;
    slips?: boolean;
    /**
     * Words shorter than this are not corrected by trigram similarity (1: every word; typing
     * slips are only tried from EDIT_MIN_LENGTH letters on anyway).
     */
    minLength?: number | undefined;
  },
): Promise<QueryStatistics> {
  if (words.length === 0 && !options.strict) return { chunks: 0, terms: [], strict: '' };
  const { config } = options;
  const agent = scope.agentId;
  // One primary-key lookup of the whole (agent, term) per lexeme, as a subquery the planner
  // cannot turn into a join: with "term = any(…)" or a join, and the statistics of a table
  // not yet analyzed, it read every term of the agent (thousands) for each word.
  const dfOf = (terms: ReturnType<typeof sql>) =>
    sql`coalesce((select max((select a.df from agent_terms a where a.agent_id = ${agent} and a.term = l.term))
      from unnest(${terms}) as l(term)), 0)`;
  // Each word's typing slips, space-separated (a word has no space), read by its row of `w`.
  const slips = words.map((word) =>
    options.correct && options.slips !== false ? typingSlips(word).join(' ') : '',
  );
  const candidate = (word: ReturnType<typeof sql>) => sql`
    (select string_agg(distinct x, ' | ') from (values
      (to_tsquery('simple', '''' || ${word} || '''')::text),
      (to_tsquery(${config}::regconfig, '''' || ${word} || '''')::text)) as t(x) where x <> '') as form,
    ${dfOf(lexemes(word, config))} as df`;
  const fix = options.correct
    ? sql`left join lateral (
        select f.word, f.form, f.sim, f.df, f.edit
        from (
          select s.word, similarity(s.word, d.word) as sim, true as edit, ${candidate(sql`s.word`)}
          -- Each slip is one primary-key lookup (a subquery, never a join or "word = any(…)",
          -- which the planner could answer with a scan of the agent's whole vocabulary or one
          -- trigram index scan per slip, about a hundred per word). The lookup runs in a subquery
          -- of its own ("offset 0" keeps the planner from merging it), so only the few slips that
          -- are words get their forms and frequencies: merged, the planner checked the cheaper-
          -- looking "form is not null" first and parsed every slip's two forms.
          from (
            select s.word from unnest(string_to_array(d.slips, ' ')) as s(word)
            where d.df_simple = 0 and d.df_configured = 0 and d.slips <> ''
              and not exists (select 1 from agent_words k where k.agent_id = ${agent} and k.word = d.word)
              and (select true from agent_words v where v.agent_id = ${agent} and v.word = s.word)
            offset 0
          ) as s
          union all
          (select v.word, similarity(v.word, d.word) as sim, false as edit, ${candidate(sql`v.word`)}
          from agent_words v
          where d.df_simple = 0 and d.df_configured = 0
            and not exists (select 1 from agent_words k where k.agent_id = ${agent} and k.word = d.word)
            and v.agent_id = ${agent} and v.word % d.word and v.word <> d.word
            and char_length(d.word) >= ${options.minLength ?? 1}
            and similarity(v.word, d.word) >= ${TRIGRAM_THRESHOLD}
          order by similarity(v.word, d.word) desc, v.word
          limit ${CORRECTIONS_PER_TERM})
        ) as f
        where f.form is not null and f.df > 0
        order by f.edit desc, case when f.edit then 0 else f.sim end desc, f.df desc, f.word
        limit 1) as fx on true`
    : sql`left join lateral (select null::text as word, null::text as form, null::real as sim, null::int as df, null::boolean as edit) as fx on true`;
  const result = await prepared(sql<Row>`
    with w as (
      select t.i, t.word, t.slips,
        to_tsquery('simple', '''' || t.word || '''')::text as qs,
        to_tsquery(${config}::regconfig, '''' || t.word || '''')::text as qc,
        tsvector_to_array(to_tsvector('simple', t.word)) as ls,
        tsvector_to_array(to_tsvector(${config}::regconfig, t.word)) as lc
      from unnest(${[...words]}::text[], ${slips}::text[]) with ordinality as t(word, slips, i)
    ), d as (
      select w.*, ${dfOf(sql`w.ls`)} as df_simple, ${dfOf(sql`w.lc`)} as df_configured from w
    )
    select
      (select a.df from agent_terms a where a.agent_id = ${agent} and a.term = '') as chunks,
      ${
        options.strict
          ? sql`array[websearch_to_tsquery('simple', ${query})::text, websearch_to_tsquery(${config}::regconfig, ${query})::text]`
          : sql`null::text[]`
      } as strict,
      coalesce(array_agg(d.qs order by d.i), '{}') as simple,
      coalesce(array_agg(d.qc order by d.i), '{}') as configured,
      coalesce(array_agg(d.df_simple order by d.i), '{}') as df_simple,
      coalesce(array_agg(d.df_configured order by d.i), '{}') as df_configured,
      coalesce(array_agg(fx.word order by d.i), '{}') as fixes,
      coalesce(array_agg(fx.form order by d.i), '{}') as fix_forms,
      coalesce(array_agg(fx.df order by d.i), '{}') as fix_dfs,
      coalesce(array_agg(fx.sim order by d.i), '{}') as fix_sims,
      coalesce(array_agg(fx.edit order by d.i), '{}') as fix_edits
    from d ${fix}`).execute(scope.db);
  const row = result.rows[0];
  const chunks = Number(row?.chunks ?? 0);
  const strictForms = row?.strict ?? null;
  const strict = !strictForms
    ? ''
    : options.configs === 'simple'
      ? strictForms[0]
      : options.configs === 'language'
        ? strictForms[1]
        : eitherForm(strictForms[0], strictForms[1]);
  const terms: Bm25Term[] = [];
  words.forEach((word, i) => {
    const simple = row?.simple[i] ?? '';
    const configured = row?.configured[i] ?? '';
    const dfSimple = Number(row?.df_simple[i] ?? 0);
    const dfConfigured = Number(row?.df_configured[i] ?? 0);
    const [tsquery, df] =
      options.configs === 'simple'
        ? [simple, dfSimple]
        : options.configs === 'language'
          ? [configured, dfConfigured]
          : [eitherForm(simple, configured), Math.max(dfSimple, dfConfigured)];
    const fixed = row?.fixes[i] ?? null;
    const fixedForm = row?.fix_forms[i] ?? null;
    const fixedDf = Number(row?.fix_dfs[i] ?? 0);
    if (fixed !== null && fixedForm !== null && fixedDf > 0 && dfSimple === 0 && dfConfigured === 0) {
      terms.push({
        word: `${word}→${fixed}`,
        tsquery: fixedForm,
        df: fixedDf,
        // A correction is a guess: it weighs its IDF times its similarity (0.4 to 1), so a word
        // that was no typo at all does not turn into the query's strongest term.
        idf: idf(chunks, fixedDf) * (row?.fix_edits[i] ? EDIT_CONFIDENCE : Number(row?.fix_sims[i] ?? 0)),
        corrected: true,
      });
    } else if (df > 0 && tsquery !== '') {
      terms.push({ word, tsquery, df, idf: idf(chunks, df), corrected: false });
    }
  });
  return { chunks, terms, strict };
}
