import type { TCorrectionMatch } from '@service/contract';
import { type RawBuilder, sql } from 'kysely';
import { z } from 'zod';
import type { DatabaseFeatures } from '../../db/database.js';
import type { Queryable } from '../../db/queryable.js';

/**
 * How close a question must be to a correction's stored question for the correction to answer
 * it, on the score below (0 to 1). Chosen on paraphrases and near misses: "how long does the
 * delivery take" vs "How long does delivery take?" scores 0.9–1; "How long does a refund
 * take?" 0.53, "What is your privacy policy?" vs "…return policy?" 0.61, "Do you ship to
 * Mexico?" vs "…Canada?" 0.52 — all below.
 */
export const CORRECTION_MATCH_THRESHOLD = 0.7;

/** What {@link correctionMatchSql} reads. */
export type CorrectionMatchInput = {
  workspaceId: string;
  agentId: string;
  question: string;
  /** The agent's text-search configuration (`english`, …, or `simple`). */
  config: string;
  features: Pick<DatabaseFeatures, 'trigram'>;
  /** Only a correction at or above the threshold (the answer path); false: the closest one. */
  onlyMatching: boolean;
};

/** Jaccard overlap of two tsvectors' lexemes: shared lexemes over all lexemes (0 when both are empty). */
function lexemeOverlap(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`coalesce((
      select count(*) from (select unnest(tsvector_to_array(${a})) intersect
        select unnest(tsvector_to_array(${b}))) as shared)::float8
    / nullif((select count(*) from (select unnest(tsvector_to_array(${a})) union
        select unnest(tsvector_to_array(${b}))) as every_lexeme), 0), 0)`;
}

/**
 * The agent's correction closest to the question, as a scalar subquery giving jsonb
 * `{id, question, answer, score}` or null: one expression, so the answer path reads it within
 * the statement that stores the visitor's question. The score is the larger of the overlap of
 * the two questions' lexemes in the agent's text-search configuration (stems, stop words
 * dropped) and, where pg_trgm exists, the trigram similarity of the lower-cased questions
 * (typos). Ties go to the most used, then the newest correction.
 */
export function correctionMatchSql(input: CorrectionMatchInput): RawBuilder<TCorrectionMatch | null> {
  const config = sql`${input.config}::regconfig`;
  const overlap = lexemeOverlap(
    sql`to_tsvector(${config}, c.question)`,
    sql`to_tsvector(${config}, ${input.question}::text)`,
  );
  const trigram = input.features.trigram
    ? sql`similarity(lower(c.question), lower(${input.question}::text))::float8`
    : sql`0::float8`;
  const floor = input.onlyMatching ? sql`where m.score >= ${CORRECTION_MATCH_THRESHOLD}` : sql``;
  return sql<TCorrectionMatch | null>`(
    select jsonb_build_object('id', m.id, 'question', m.question, 'answer', m.answer,
      'score', round(m.score::numeric, 4))
    from (
      select c.id, c.question, c.answer, c.use_count, greatest(${overlap}, ${trigram}) as score
      from answer_corrections c
      where c.workspace_id = ${input.workspaceId} and c.agent_id = ${input.agentId}
    ) as m
    ${floor}
    order by m.score desc, m.use_count desc, m.id desc
    limit 1)`;
}

const ZMatch = z.object({
  id: z.string(),
  question: z.string(),
  answer: z.string(),
  score: z.coerce.number(),
});

/** A stored match as read back from the store (null, or jsonb of the shape above). */
export function parseCorrectionMatch(value: unknown): TCorrectionMatch | null {
  if (value === null || value === undefined) return null;
  const parsed = ZMatch.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The agent's correction closest to the question, whatever its score (the console's test). */
export async function closestCorrection(
  db: Queryable,
  input: Omit<CorrectionMatchInput, 'onlyMatching'>,
): Promise<TCorrectionMatch | null> {
  const row = await db
    .selectNoFrom(correctionMatchSql({ ...input, onlyMatching: false }).as('best'))
    .executeTakeFirstOrThrow();
  return parseCorrectionMatch(row.best);
}
