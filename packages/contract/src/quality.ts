import { z } from 'zod';
import { ZKbArticle } from './kb.js';
import { ZListQuery, ZPageMeta } from './pagination.js';
import { ZSearchHit } from './search.js';
import { zText } from './text.js';

/** Longest stored question of a correction, in characters. */
export const CORRECTION_QUESTION_MAX = 500;
/** Longest answer of a correction, in characters. */
export const CORRECTION_ANSWER_MAX = 4000;
/** Most corrections one agent may hold. */
export const CORRECTIONS_PER_AGENT_MAX = 1000;

const correctionQuestion = zText().trim().min(1).max(CORRECTION_QUESTION_MAX);
const correctionAnswer = zText().trim().min(1).max(CORRECTION_ANSWER_MAX);

/**
 * Body of `POST /api/v1/admin/agents/{id}/corrections`: a typed `{question, answer}`, or
 * `{message_id}` of an assistant answer of one of the agent's conversations (the question is
 * the visitor message before it; `answer`, when given, replaces the answer's text).
 */
export const ZCorrectionCreate = z.union([
  z.strictObject({ question: correctionQuestion, answer: correctionAnswer }),
  z.strictObject({
    message_id: zText().min(1).max(64),
    question: correctionQuestion.optional(),
    answer: correctionAnswer.optional(),
  }),
]);
export type TCorrectionCreate = z.infer<typeof ZCorrectionCreate>;

/** Body of `PATCH /api/v1/admin/agents/{id}/corrections/{cid}` (partial). */
export const ZCorrectionUpdate = z
  .strictObject({ question: correctionQuestion, answer: correctionAnswer })
  .partial()
  .refine((body) => body.question !== undefined || body.answer !== undefined, {
    message: 'Give question, answer or both.',
  });
export type TCorrectionUpdate = z.infer<typeof ZCorrectionUpdate>;

/** An answer correction as the admin API returns it. */
export const ZCorrection = z.object({
  id: zText(),
  agent_id: zText(),
  question: zText(),
  answer: zText(),
  source: z.enum(['typed', 'message', 'question']),
  source_message_id: zText().nullable(),
  source_question_id: zText().nullable(),
  use_count: z.number().int(),
  last_used_at: zText().nullable(),
  created_by: zText().nullable(),
  created_at: zText(),
  updated_at: zText(),
});
export type TCorrection = z.infer<typeof ZCorrection>;

/** Body of `POST /api/v1/admin/agents/{id}/corrections/test`. */
export const ZCorrectionTestRequest = z.strictObject({
  question: zText().trim().min(1).max(CORRECTION_QUESTION_MAX).describe('What a visitor would ask'),
});

/** A correction as a match: its id, question and answer, and how close the question was. */
export const ZCorrectionMatch = z.object({
  id: zText(),
  question: zText(),
  answer: zText(),
  score: z.number().describe('0 to 1: the larger of lexeme overlap (Jaccard) and trigram similarity'),
});
export type TCorrectionMatch = z.infer<typeof ZCorrectionMatch>;

/** What would answer a question: a correction, else the chunks retrieval gives, and why. */
export const ZCorrectionTestResult = z.object({
  question: zText(),
  decision: z
    .enum(['correction', 'chunks', 'no_match'])
    .describe(
      'correction: the best correction is at or above the threshold; chunks: retrieval found words; no_match: neither',
    ),
  threshold: z.number(),
  correction: ZCorrectionMatch.nullable().describe('The correction that would answer (decision correction)'),
  best_correction: ZCorrectionMatch.nullable().describe('The closest correction, whatever its score'),
  chunks: z.array(ZSearchHit.extend({ id: z.number().int().min(1), from_text: z.boolean() })),
});
export type TCorrectionTestResult = z.infer<typeof ZCorrectionTestResult>;

/** Why a question was recorded. */
export const QUESTION_REASONS = ['no_match', 'fallback', 'handoff', 'rated_down'] as const;
/** Where a recorded question is. */
export const QUESTION_STATUSES = ['open', 'resolved'] as const;

/** Query of `GET /api/v1/admin/agents/{id}/questions`: a page, filtered by status and reason. */
export const ZQuestionListQuery = ZListQuery.extend({
  status: z.enum(QUESTION_STATUSES).optional(),
  reason: z.enum(QUESTION_REASONS).optional(),
});
export type TQuestionListQuery = z.infer<typeof ZQuestionListQuery>;

/** A recorded visitor question, with the chunks behind its answer. */
export const ZAgentQuestion = z.object({
  id: zText(),
  agent_id: zText(),
  conversation_id: zText().nullable(),
  turn_id: zText().nullable(),
  question_message_id: zText().nullable(),
  answer_message_id: zText().nullable(),
  question: zText(),
  answer: zText(),
  reasons: z.array(z.enum(QUESTION_REASONS)),
  chunks: z.array(
    z.object({
      chunk_id: zText(),
      score: z.number(),
      /** The chunk's document title and URL; null when the chunk is gone since (re-indexed, deleted). */
      title: zText().nullable(),
      url: zText().nullable(),
    }),
  ),
  status: z.enum(QUESTION_STATUSES),
  resolution: z.enum(['correction', 'kb_article', 'dismissed']).nullable(),
  resolution_id: zText().nullable(),
  resolved_by: zText().nullable(),
  resolved_at: zText().nullable(),
  created_at: zText(),
  updated_at: zText(),
});
export type TAgentQuestion = z.infer<typeof ZAgentQuestion>;

/** A page of recorded questions, with the agent's counts per status and per reason (all pages). */
export const ZQuestionPage = z.object({
  data: z.array(ZAgentQuestion),
  meta: ZPageMeta.extend({
    counts: z.object({
      status: z.record(z.enum(QUESTION_STATUSES), z.number().int()),
      reason: z.record(z.enum(QUESTION_REASONS), z.number().int()),
    }),
  }),
});

/** Body of `POST .../questions/{qid}/correction`. */
export const ZQuestionToCorrection = z.strictObject({
  answer: correctionAnswer,
  question: correctionQuestion.optional().describe('Defaults to the recorded question'),
});

/** Body of `POST .../questions/{qid}/kb-article`: a published article made of the answer. */
export const ZQuestionToKbArticle = z.strictObject({
  title: zText().trim().min(1).max(300),
  body: zText().trim().min(1).max(100_000),
});

/** Body of `POST .../questions/{qid}/resolve`. */
export const ZQuestionResolve = z.strictObject({}).default({});

/** What resolving a question gives: the question, and the correction or article made of it. */
export const ZQuestionResolution = z.object({
  question: ZAgentQuestion,
  correction: ZCorrection.optional(),
  kb_article: ZKbArticle.optional(),
});
