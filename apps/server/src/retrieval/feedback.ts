import { sql } from 'kysely';
import { type Bm25Term, idf } from './bm25-terms.js';
import type { SearchScope } from './fusion.js';

/**
 * Feedback settings: how many top chunks are read, how many words are added, their weight, and
 * whether the words and the re-ranking are part of the ranking statement (`folded`) or two
 * statements after it.
 */
export type FeedbackSettings = Readonly<{
  chunks: number;
  terms: number;
  weight: number;
  folded?: boolean;
}>;

/**
 * The words read for their document frequency: the most weighty by share alone (a word the
 * top chunks barely use cannot become one of the added words however rare it is).
 */
export const FEEDBACK_CANDIDATES = 100;

type Row = { lexeme: string; weight: number | string; df: number | string };

/**
 * Pseudo-relevance feedback (RM3-style): the words that weigh most in the first ranking's top
 * chunks — each word's share of a chunk's length, summed over the chunks with the chunk's rank
 * weight, times its IDF — and that the query does not already have, as BM25 terms of their own
 * weight (`weight` × their share of the best one's). A question worded unlike the page it is
 * about often still finds a neighbouring chunk first; the words that chunk shares with its
 * neighbours find the page.
 */
export async function feedbackTerms(
  scope: SearchScope,
  topIds: readonly string[],
  query: readonly Bm25Term[],
  chunks: number,
  settings: FeedbackSettings,
): Promise<Bm25Term[]> {
  const ids = topIds.slice(0, settings.chunks);
  if (ids.length === 0 || settings.terms <= 0) return [];
  const known = new Set(queryLexemes(query));
  const result = await sql<Row>`
    with top as (
      select t.id, t.rank from unnest(${[...ids]}::text[]) with ordinality as t(id, rank)
    ), words as (
      select u.lexeme, sum(coalesce(cardinality(u.positions), 1)::float8 / greatest(length(c.tsv), 1) / t.rank) as weight
      from top t
      join chunks c on c.id = t.id and c.workspace_id = ${scope.workspaceId} and c.agent_id = ${scope.agentId}
      cross join lateral unnest(c.tsv) as u(lexeme, positions, weights)
      where u.lexeme ~ '^[[:alpha:]][[:alnum:]_]+$'
      group by u.lexeme
      order by weight desc, u.lexeme
      limit ${FEEDBACK_CANDIDATES}
    )
    select w.lexeme, w.weight, a.df
    from words w join agent_terms a on a.agent_id = ${scope.agentId} and a.term = w.lexeme
    where a.df >= 2`.execute(scope.db);
  const scored = result.rows
    .filter((row) => !known.has(row.lexeme))
    .map((row) => {
      const df = Number(row.df);
      const weight = Number(row.weight) * idf(chunks, df);
      return { lexeme: row.lexeme, df, weight };
    })
    .sort((a, b) => b.weight - a.weight || a.lexeme.localeCompare(b.lexeme))
    .slice(0, settings.terms);
  const best = scored[0]?.weight ?? 0;
  if (best <= 0) return [];
  return scored.map((row) => ({
    word: `+${row.lexeme}`,
    tsquery: `'${row.lexeme}'`,
    df: row.df,
    idf: idf(chunks, row.df) * settings.weight * (row.weight / best),
    corrected: false,
  }));
}

/** The lexemes of the query's words (their tsquery forms' quoted lexemes): feedback never adds them. */
export function queryLexemes(query: readonly Bm25Term[]): string[] {
  return [
    ...new Set(query.flatMap((term) => [...term.tsquery.matchAll(/'([^']+)'/g)].map((m) => m[1] ?? ''))),
  ].filter((lexeme) => lexeme !== '');
}
