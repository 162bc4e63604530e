import { z } from 'zod';
import { storable, zText } from './text.js';

/** Most golden items one agent may have. */
export const GOLDEN_ITEMS_PER_AGENT_MAX = 500;
/** Longest golden question, in characters. */
export const GOLDEN_QUESTION_MAX = 1000;
/** Most expected pages (URLs plus document ids) of one golden item. */
export const GOLDEN_EXPECTED_MAX = 10;
/** Longest note of a golden item, in characters. */
export const GOLDEN_NOTE_MAX = 2000;
/** Where a golden item came from. */
export const GOLDEN_ORIGINS = ['manual', 'question', 'correction'] as const;
/** What an evaluation run is doing, or how it ended. */
export const EVALUATION_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
/** Why an evaluation run was started. */
export const EVALUATION_TRIGGERS = ['manual', 'reindex'] as const;
/** An item passes when an expected page is within this rank; a regression is a pass turned fail. */
export const EVALUATION_PASS_RANK = 5;
/** The event a run with regressions fires. */
export const QUALITY_REGRESSED_EVENT = 'agent.quality_regressed';

const zQuestion = zText().trim().min(1, 'must not be empty').max(GOLDEN_QUESTION_MAX);
const URL_ERROR = 'Must be an http or https URL.';
const zExpectedUrl = storable(z.url({ protocol: /^https?$/, error: URL_ERROR }).max(2048));
const zDocumentId = zText().min(1).max(64);
const unique = <T>(values: T[]) => [...new Set(values)];
const zExpectedUrls = z.array(zExpectedUrl).max(GOLDEN_EXPECTED_MAX).transform(unique);
const zExpectedDocumentIds = z.array(zDocumentId).max(GOLDEN_EXPECTED_MAX).transform(unique);
const zNote = zText().max(GOLDEN_NOTE_MAX).nullable();

const EXPECTED_MESSAGE = `Give at least one expected page: expected_urls or expected_document_ids (at most ${GOLDEN_EXPECTED_MAX} in all).`;

function expectsOneToMax(value: { expected_urls?: string[]; expected_document_ids?: string[] }): boolean {
  const n = (value.expected_urls?.length ?? 0) + (value.expected_document_ids?.length ?? 0);
  return n >= 1 && n <= GOLDEN_EXPECTED_MAX;
}

/**
 * Body of `POST /api/v1/admin/agents/{id}/golden`: a question and the page(s) that answer it (by
 * URL or document id); a hit counts when one of the top chunks belongs to an expected page.
 */
export const ZGoldenItemCreate = z
  .strictObject({
    question: zQuestion,
    expected_urls: zExpectedUrls.default([]),
    expected_document_ids: zExpectedDocumentIds.default([]),
    note: zNote.optional(),
  })
  .refine(expectsOneToMax, { message: EXPECTED_MESSAGE, path: ['expected_urls'] });
export type TGoldenItemCreate = z.infer<typeof ZGoldenItemCreate>;

/** Body of `PATCH /api/v1/admin/agents/{id}/golden/{gid}` (partial; the origin never changes). */
export const ZGoldenItemUpdate = z.strictObject({
  question: zQuestion.optional(),
  expected_urls: zExpectedUrls.optional(),
  expected_document_ids: zExpectedDocumentIds.optional(),
  note: zNote.optional(),
});
export type TGoldenItemUpdate = z.infer<typeof ZGoldenItemUpdate>;

/**
 * Body of `POST /api/v1/admin/agents/{id}/golden/import`: a golden item made from a resolved
 * question or a correction of the agent. The expected pages default to what it points at.
 */
export const ZGoldenItemImport = z.strictObject({
  origin: z.enum(['question', 'correction']),
  origin_id: zText().min(1).max(64),
  expected_urls: zExpectedUrls.optional(),
  expected_document_ids: zExpectedDocumentIds.optional(),
  note: zNote.optional(),
});
export type TGoldenItemImport = z.infer<typeof ZGoldenItemImport>;

/** One golden item as the admin API shows it. */
export const ZGoldenItem = z.object({
  id: zText(),
  agent_id: zText(),
  question: zText(),
  expected_urls: z.array(zText()),
  expected_document_ids: z.array(zText()),
  note: zText().nullable(),
  origin: z.enum(GOLDEN_ORIGINS),
  origin_id: zText().nullable(),
  created_at: zText(),
  updated_at: zText(),
});
export type TGoldenItem = z.infer<typeof ZGoldenItem>;

/** The metrics of a run (null until it is done). */
export const ZEvaluationMetrics = z.object({
  questions: z.number().int(),
  recall_at_1: z.number(),
  recall_at_5: z.number(),
  mrr: z.number().describe('MRR@10'),
});
export type TEvaluationMetrics = z.infer<typeof ZEvaluationMetrics>;

/** One item's outcome in a run: the 1-based rank of its first expected page, null when not found. */
export const ZEvaluationResult = z.object({
  golden_id: zText(),
  question: zText(),
  rank: z.number().int().nullable(),
});

/** A miss: an item with no expected page in the top 5, with what was found instead. */
export const ZEvaluationMiss = ZEvaluationResult.extend({
  top: z.array(z.object({ title: zText(), url: zText().nullable() })),
});

/** A regression: an item that passed (rank ≤ 5) in the previous done run and fails now. */
export const ZEvaluationRegression = ZEvaluationResult.extend({ previous_rank: z.number().int() });
export type TEvaluationRegression = z.infer<typeof ZEvaluationRegression>;

/** An evaluation run of an agent's golden set. */
export const ZEvaluationRun = z.object({
  id: zText(),
  agent_id: zText(),
  status: z.enum(EVALUATION_STATUSES),
  trigger: z.enum(EVALUATION_TRIGGERS),
  metrics: ZEvaluationMetrics.nullable(),
  /** The previous done run the regressions are counted against (null: none). */
  previous_run_id: zText().nullable(),
  results: z.array(ZEvaluationResult),
  misses: z.array(ZEvaluationMiss),
  regressions: z.array(ZEvaluationRegression),
  error: zText().nullable(),
  created_at: zText(),
  started_at: zText().nullable(),
  finished_at: zText().nullable(),
});
export type TEvaluationRun = z.infer<typeof ZEvaluationRun>;

/** A run as the list shows it: without the per-item lists. */
export const ZEvaluationRunSummary = ZEvaluationRun.omit({ results: true, misses: true }).extend({
  misses: z.number().int(),
});
export type TEvaluationRunSummary = z.infer<typeof ZEvaluationRunSummary>;

/** The `data` of an `agent.quality_regressed` delivery. */
export const ZQualityRegressedData = z.object({
  agent_id: zText(),
  run_id: zText(),
  previous_run_id: zText(),
  trigger: z.enum(EVALUATION_TRIGGERS),
  before: ZEvaluationMetrics,
  after: ZEvaluationMetrics,
  regressions: z.array(ZEvaluationRegression),
});
export type TQualityRegressedData = z.infer<typeof ZQualityRegressedData>;

/** The JSON body of an `agent.quality_regressed` delivery (signed with X-Service-Signature). */
export const ZQualityRegressedEvent = z.object({
  id: zText(),
  event: z.literal(QUALITY_REGRESSED_EVENT),
  created_at: zText(),
  data: ZQualityRegressedData,
});
export type TQualityRegressedEvent = z.infer<typeof ZQualityRegressedEvent>;
