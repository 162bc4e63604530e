import { type RawBuilder, sql } from 'kysely';
import { prepared } from '../db/prepared.js';
import type { Bm25Term } from './bm25-terms.js';
import { FEEDBACK_CANDIDATES, type FeedbackSettings, queryLexemes } from './feedback.js';
import type { FusedHit, RankedList, SearchScope } from './fusion.js';
import { aggregatePages } from './page-aggregation.js';
import { titleVector } from './title-vector.js';

/**
 * BM25 over the agent's chunks, in one statement, with IDF from the agent's own term statistics
 * (`termStatistics`), a field weight for the page's title and URL, and page aggregation.
 *
 * A chunk's score is Σ idf(w) · tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avglen)) over the query
 * words it contains, where tf is the word's number of occurrences in the chunk (its forms'
 * positions in the tsvector: `ts_rank_cd` with unit weights counts exactly that for one word),
 * len the chunk's number of distinct lexemes and avglen their mean over the candidates; plus
 * `title` · Σ idf(w) over the words its page's title or URL path contain.
 */

type Sql = RawBuilder<unknown>;

/** The BM25 parameters and the two page-level signals; `title` 0 and `pages` 0 switch those off. */
export type Bm25Settings = Readonly<{
  k1: number;
  b: number;
  title: number;
  pages: number;
  idf: boolean;
  /** CANDIDATE_BUDGET unless given (the ablation's rows). */
  budget?: number;
}>;

/**
 * Chunks are scored among those containing the query's rarer words: words are taken rarest
 * first while their document frequencies add up to at most this (always at least one word).
 * A chunk with only the common words cannot score near one with a rare word, and scoring every
 * chunk a common word matches is what made a search slow.
 */
export const CANDIDATE_BUDGET = 1_000;

/** The words whose chunks are scored: rarest first, within CANDIDATE_BUDGET. */
export function candidateTerms(terms: readonly Bm25Term[], budget = CANDIDATE_BUDGET): Bm25Term[] {
  const byDf = [...terms].sort((a, b) => a.df - b.df);
  const picked: Bm25Term[] = [];
  let total = 0;
  for (const term of byDf) {
    if (picked.length > 0 && total + term.df > budget) break;
    picked.push(term);
    total += term.df;
  }
  return picked;
}

/** A scored chunk: its page, whether it matches the strict form, and its BM25 score. */
type Scored = { id: string; document_id: string; strict: boolean; score: number };

/**
 * The full-text list ranked by BM25: chunks matching `strict` (a websearch form with phrases or
 * exclusions; '' for none) first, then by score, each page's best chunk lifted by its page's
 * other candidates (`pages` decay, within the same strict group). `strictOnly`: only chunks
 * matching `strict` (the "any word" component off); `within`: score these chunks (an earlier
 * ranking's candidates, re-ranked) instead of those the words match.
 */
export async function bm25List(
  scope: SearchScope,
  terms: readonly Bm25Term[],
  strict: string,
  config: string,
  settings: Bm25Settings,
  options: {
    strictOnly?: boolean;
    within?: readonly string[];
    /**
     * Pseudo-relevance feedback inside this statement (`feedbackTerms`' words of the first
     * ranking's top chunks, then the first ranking's `scope.candidates` re-ranked with them):
     * `chunks` is the agent's chunk count (for the added words' IDF). Only without page lift,
     * whose order is made after the statement.
     */
    feedback?: { settings: FeedbackSettings; chunks: number } | undefined;
  } = {},
): Promise<RankedList> {
  const { strictOnly = false, within } = options;
  if (terms.length === 0 || (strictOnly && strict === '')) return { name: 'fulltext', ids: [] };
  // Without IDF (the ablation's row) every word weighs the same.
  const weighted = settings.idf ? terms : terms.map((t) => ({ ...t, idf: 1 }));
  const candidates = candidateTerms(terms, settings.budget);
  const match = sql`${candidates.map((t) => `(${t.tsquery})`).join(' | ')}::tsquery`;
  const inScope = sql`c.workspace_id = ${scope.workspaceId} and c.agent_id = ${scope.agentId}`;
  const k1 = sql.lit(settings.k1);
  const b = sql.lit(settings.b);
  const tfs = sql.join(
    terms.map((t) => sql`ts_rank_cd('{1,1,1,1}', c.tsv, ${t.tsquery}::tsquery)::float8`),
    sql`, `,
  );
  const body = sql.join(
    weighted.map(
      (t, i) =>
        sql`${t.idf}::float8 * s.tf[${sql.lit(i + 1)}] * ${sql.lit(settings.k1 + 1)} / (s.tf[${sql.lit(i + 1)}] + s.k)`,
    ),
    sql` + `,
  );
  const title: Sql =
    settings.title > 0
      ? sql`${sql.lit(settings.title)} * (${sql.join(
          weighted.map((t) => sql`${t.idf}::float8 * (p.tsv @@ ${t.tsquery}::tsquery)::int`),
          sql` + `,
        )})`
      : sql`0`;
  const isStrict = strict === '' ? sql`false` : sql`c.tsv @@ ${strict}::tsquery`;
  const { feedback } = options;
  const withFeedback =
    feedback !== undefined &&
    feedback.settings.weight > 0 &&
    feedback.settings.terms > 0 &&
    settings.pages === 0;
  const rows = sql.lit(Math.min(400, scope.candidates * 3));
  const scored = sql`
    cand as (
      select c.id, c.document_id, (array[c.tsv])[1] as tsv
      from chunks c where ${inScope} and ${within ? sql`c.id = any(${[...within]}::text[])` : sql`c.tsv @@ ${match}`}
        ${strictOnly ? sql`and c.tsv @@ ${strict}::tsquery` : sql``}
      offset 0
    ), tf as materialized (
      select c.id, c.document_id, ${isStrict} as strict, length(c.tsv)::float8 as len, array[${tfs}] as tf
        ${withFeedback ? sql`, c.tsv` : sql``}
      from cand c
    ), s as (
      select tf.*, ${k1} * (1 - ${b} + ${b} * tf.len / greatest(avg(tf.len) over (), 1)) as k from tf
    ), p as materialized (
      select d.id, ${
        settings.title > 0
          ? sql`coalesce(d.title_tsv, ${titleVector(config, sql`d.title`, sql`d.url`)})`
          : sql`null::tsvector`
      } as tsv
      from documents d
      where d.workspace_id = ${scope.workspaceId} and d.id in (select distinct document_id from cand)
    )`;
  const result = withFeedback
    ? await prepared(
        sql<Scored>`with ${scored}, ${feedbackRanking(scope, terms, settings, feedback, { body, title })}`,
      ).execute(scope.db)
    : await prepared(sql<Scored>`with ${scored}
    select s.id, s.document_id, s.strict, (${body}) + ${title} as score
    from s join p on p.id = s.document_id
    order by s.strict desc, score desc, s.id
    limit ${rows}`).execute(scope.db);
  return { name: 'fulltext', ids: liftPages(result.rows, settings.pages).slice(0, scope.candidates) };
}

/**
 * The rest of the ranking statement with feedback folded in (the CTEs after `cand`, `s` and
 * `p`): the first ranking (`r1`, its `scope.candidates` best), the words of its top chunks as
 * `feedbackTerms` picks them (`fw`, weighted as it weighs them: `fq`), and the first ranking
 * scored again with those words added, over the same candidates (BM25's length normalisation
 * then averages over them, as a re-ranking statement of its own did). Without added words the
 * first ranking's order stands.
 */
function feedbackRanking(
  scope: SearchScope,
  terms: readonly Bm25Term[],
  settings: Bm25Settings,
  feedback: { settings: FeedbackSettings; chunks: number },
  parts: { body: Sql; title: Sql },
): Sql {
  const { body, title } = parts;
  const k1 = sql.lit(settings.k1);
  const b = sql.lit(settings.b);
  const n = sql`${feedback.chunks}::float8`;
  // IDF as `idf` computes it: ln(1 + (N − df + 0.5) / (df + 0.5)), N at least df.
  const idfOf = (df: Sql) => sql`ln(1 + (greatest(${n}, ${df}) - ${df} + 0.5) / (${df} + 0.5))`;
  const extraTitle: Sql =
    settings.title > 0 ? sql`${sql.lit(settings.title)} * (p.tsv @@ fq.q)::int` : sql`0`;
  return sql`r1 as materialized (
      select s.id, s.document_id, s.strict, s.len, s.tf, s.tsv, (${body}) + ${title} as score
      from s join p on p.id = s.document_id
      order by s.strict desc, score desc, s.id
      limit ${sql.lit(scope.candidates)}
    ), top as (
      select r1.id, r1.tsv, row_number() over (order by r1.strict desc, r1.score desc, r1.id) as rank
      from r1 order by rank limit ${sql.lit(feedback.settings.chunks)}
    ), words as (
      select u.lexeme, sum(coalesce(cardinality(u.positions), 1)::float8 / greatest(length(t.tsv), 1) / t.rank) as weight
      from top t cross join lateral unnest(t.tsv) as u(lexeme, positions, weights)
      where u.lexeme ~ '^[[:alpha:]][[:alnum:]_]+$'
      group by u.lexeme
      order by weight desc, u.lexeme
      limit ${sql.lit(FEEDBACK_CANDIDATES)}
    ), fw as (
      select w.lexeme, w.weight * ${idfOf(sql`w.df`)} as fscore, ${idfOf(sql`w.df`)} as idf
      from (
        -- One primary-key lookup per word (a join read every term of the agent for each word).
        select words.*, (select a.df from agent_terms a where a.agent_id = ${scope.agentId} and a.term = words.lexeme) as df
        from words offset 0
      ) as w
      where w.df >= 2 and w.lexeme <> all(${queryLexemes(terms)}::text[])
      order by fscore desc, w.lexeme
      limit ${sql.lit(feedback.settings.terms)}
    ), fq as (
      select fw.lexeme, quote_literal(fw.lexeme)::tsquery as q,
        fw.idf * ${sql.lit(feedback.settings.weight)} * fw.fscore / max(fw.fscore) over () as qidf
      from fw where fw.fscore > 0
    ), r2 as (
      select r1.*, ${k1} * (1 - ${b} + ${b} * r1.len / greatest(avg(r1.len) over (), 1)) as k from r1
    )
    select s.id, s.document_id, s.strict,
      case when exists (select 1 from fq) then (${body}) + ${title} + coalesce((
        select sum(${settings.idf ? sql`fq.qidf` : sql`1`} * (x.tf * ${sql.lit(settings.k1 + 1)} / (x.tf + s.k) + ${extraTitle}))
        from fq cross join lateral (
          select ts_rank_cd('{1,1,1,1}', s.tsv, fq.q)::float8 as tf) as x
      ), 0) else s.score end as score
    from r2 s join p on p.id = s.document_id
    order by s.strict desc, score desc, s.id`;
}

/** Page aggregation within each strict group (strict matches stay first), as chunk ids in order. */
export function liftPages(rows: readonly Scored[], decay: number): string[] {
  const groups = [rows.filter((row) => row.strict), rows.filter((row) => !row.strict)];
  return groups.flatMap((group) => {
    const hits: FusedHit[] = group.map((row) => ({ id: row.id, score: Number(row.score), ranks: {} }));
    const documentOf = new Map(group.map((row) => [row.id, row.document_id]));
    return aggregatePages(hits, documentOf, decay).map((hit) => hit.id);
  });
}
