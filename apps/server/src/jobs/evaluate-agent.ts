import { sql } from 'kysely';
import type { DatabaseFeatures } from '../db/database.js';
import type { Queryable } from '../db/queryable.js';
import { defineJob, type JobContextOf } from '../queue/job-queue.js';
import { evaluateAgentSpec } from '../queue/job-specs.js';
import { EVAL_DEFAULT_LIMIT, type EvalReport, evaluateAgent } from '../retrieval/evaluate.js';
import {
  type EvaluationOutcome,
  failEvaluation,
  markEvaluationRunning,
  recordEvaluation,
} from '../services/quality/evaluation-runs.js';
import { goldenItemsOf } from '../services/quality/golden-set.js';

/** What an evaluation uses of its job context. */
type EvaluateContext = JobContextOf<'queue' | 'clock' | 'embeddings' | 'features'>;

/**
 * Runs one evaluation of an agent's golden set: marks the run `running`, sends every golden
 * item through the chat's hybrid search (the `cli eval` engine, top 10), and stores recall@1,
 * recall@5, MRR@10, each item's rank, the misses and the regressions against the previous done
 * run (which fire `agent.quality_regressed`). An empty golden set, or a last attempt that
 * fails, marks the run `failed` with the reason. A run already settled is left alone.
 */
export const evaluateAgentJob = defineJob({
  ...evaluateAgentSpec,
  async handle({ runId }, context: EvaluateContext) {
    const { db, clock, attempt } = context;
    const run = await markEvaluationRunning(db, clock, runId);
    if (!run) return;
    try {
      const items = await goldenItemsOf(db, run.agent_id);
      if (items.length === 0) {
        await failEvaluation(db, clock, runId, 'the golden set is empty');
        return;
      }
      const report = await evaluateAgent({
        db,
        features: context.features ?? (await detectFeatures(db)),
        agentId: run.agent_id,
        questions: items.map((item) => ({
          id: item.id,
          question: item.question,
          expected_urls: item.expected_urls,
          expected_document_ids: item.expected_document_ids,
        })),
        limit: EVAL_DEFAULT_LIMIT,
        embeddings: context.embeddings ?? null,
      });
      await recordEvaluation(db, context.queue, clock, run, outcomeOf(report));
    } catch (error) {
      if (attempt > (evaluateAgentSpec.retryLimit ?? 0)) {
        await failEvaluation(db, clock, runId, error instanceof Error ? error.message : String(error));
      }
      throw error;
    }
  },
  async giveUp({ runId }, { db, clock }, reason) {
    return failEvaluation(db, clock, runId, `the evaluation ${reason}`);
  },
});

/** The engine's report as a run stores it (golden item ids as strings). */
export function outcomeOf(report: EvalReport): EvaluationOutcome {
  const idOf = (id: string | number | undefined) => String(id ?? '');
  return {
    metrics: {
      questions: report.questions,
      recall_at_1: report.recall_at_1,
      recall_at_5: report.recall_at_5,
      mrr: report.mrr,
    },
    results: report.results.map((result) => ({
      golden_id: idOf(result.id),
      question: result.question,
      rank: result.rank,
    })),
    misses: report.misses.map((miss) => ({
      golden_id: idOf(miss.id),
      question: miss.question,
      rank: miss.rank,
      top: miss.top,
    })),
  };
}

/** The store's installed extensions, for a worker that was not told (db/database.ts detects them at start). */
async function detectFeatures(db: Queryable): Promise<DatabaseFeatures> {
  const installed = await sql<{ extname: string }>`
    select extname from pg_extension where extname in ('vector', 'pg_trgm')`.execute(db);
  const names = new Set(installed.rows.map((row) => row.extname));
  return { vector: names.has('vector'), trigram: names.has('pg_trgm') };
}
