import {
  EVALUATION_PASS_RANK,
  type TEvaluationRegression,
  type TEvaluationRun,
  type TEvaluationRunSummary,
  ZEvaluationMetrics,
  ZEvaluationMiss,
  ZEvaluationRegression,
  ZEvaluationResult,
} from '@service/contract';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { EvaluationRunRow } from '../../db/schema-quality.js';
import { AppError, notFound } from '../../errors/app-error.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { evaluateAgentSpec } from '../../queue/job-specs.js';
import { recordAudit } from '../audit.js';
import { iso, type TenantScope } from '../context.js';
import { hasGoldenSet, insertEvaluationRun } from '../knowledge/evaluation-trigger.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';
import { requireAgent } from '../require-agent.js';
import { queueQualityRegressed } from './quality-webhook.js';

/** What a finished evaluation hands back to be stored: the metrics and each item's outcome. */
export type EvaluationOutcome = {
  metrics: z.infer<typeof ZEvaluationMetrics>;
  results: Array<z.infer<typeof ZEvaluationResult>>;
  misses: Array<z.infer<typeof ZEvaluationMiss>>;
};

/**
 * Queues a manual evaluation of the agent's golden set: a `queued` run, answered at once, and
 * an `evaluate-agent` job for it. An empty golden set is 409. Audited as `evaluation.requested`.
 */
export async function requestEvaluation(
  scope: TenantScope & { queue: JobQueue },
  agentId: string,
): Promise<TEvaluationRun> {
  return scope.db.transaction().execute(async (trx) => {
    await requireAgent(trx, scope.workspaceId, agentId);
    if (!(await hasGoldenSet(trx, agentId))) {
      throw new AppError('conflict', {
        message: "The agent's golden set is empty: add golden items before running an evaluation.",
        errors: { golden: ['The golden set is empty.'] },
      });
    }
    const row = await insertEvaluationRun(trx, scope.clock, {
      workspaceId: scope.workspaceId,
      agentId,
      trigger: 'manual',
    });
    if (!row) throw new Error('the run was not stored');
    await scope.queue.send(evaluateAgentSpec, { runId: row.id }, { key: row.id, db: trx });
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'evaluation.requested',
      target: { type: 'evaluation_run', id: row.id },
      metadata: { agent_id: agentId },
      requestId: scope.requestId,
    });
    return toEvaluationRun(row);
  });
}

/** A page of an agent's runs (id order; `order=desc` for the newest first), without per-item lists. */
export async function listEvaluationRuns(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  agentId: string,
  page: PageRequest,
): Promise<Page<TEvaluationRunSummary>> {
  await requireAgent(scope.db, scope.workspaceId, agentId);
  const binding = { list: `evaluations:${page.order}`, workspaceId: scope.workspaceId, parentId: agentId };
  const after = pageStart(page, binding);
  let query = scope.db
    .selectFrom('evaluation_runs')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('agent_id', '=', agentId)
    .orderBy('id', page.order)
    .limit(page.limit + 1);
  if (after !== undefined) query = query.where('id', afterOperator(page), after);
  return pageOf(await query.execute(), page, binding, (row) => {
    const { results: _results, misses, ...run } = toEvaluationRun(row);
    return { ...run, misses: misses.length };
  });
}

/** One run of the agent, with every item's rank, the misses and the regressions. */
export async function getEvaluationRun(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  agentId: string,
  runId: string,
): Promise<TEvaluationRun> {
  const row = await scope.db
    .selectFrom('evaluation_runs')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('agent_id', '=', agentId)
    .where('id', '=', runId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return toEvaluationRun(row);
}

/** Marks a queued (or interrupted running) run `running`; null when it is gone or settled. */
export async function markEvaluationRunning(
  db: Queryable,
  clock: Clock,
  runId: string,
): Promise<EvaluationRunRow | null> {
  const now = clock.now();
  const row = await db
    .updateTable('evaluation_runs')
    .set({ status: 'running', started_at: now, updated_at: now })
    .where('id', '=', runId)
    .where('status', 'in', ['queued', 'running'])
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Marks a run that could not finish `failed` with the reason; false when it had already settled. */
export async function failEvaluation(
  db: Queryable,
  clock: Clock,
  runId: string,
  reason: string,
): Promise<boolean> {
  const now = clock.now();
  const result = await db
    .updateTable('evaluation_runs')
    .set({ status: 'failed', error: reason.slice(0, 2000), finished_at: now, updated_at: now })
    .where('id', '=', runId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Stores a finished run: metrics, results, misses, and the regressions against the previous
 * done run of the agent (items that passed there, rank ≤ 5, and fail now). Regressions queue an
 * `agent.quality_regressed` delivery per subscribed webhook, in the same transaction.
 */
export async function recordEvaluation(
  db: Queryable,
  queue: JobQueue,
  clock: Clock,
  run: Pick<EvaluationRunRow, 'id' | 'workspace_id' | 'agent_id' | 'trigger'>,
  outcome: EvaluationOutcome,
): Promise<void> {
  const work = async (trx: Queryable) => {
    const previous = await trx
      .selectFrom('evaluation_runs')
      .selectAll()
      .where('agent_id', '=', run.agent_id)
      .where('status', '=', 'done')
      .where('id', '<', run.id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const regressions = previous ? regressionsOf(parseResults(previous.results), outcome.results) : [];
    const now = clock.now();
    const updated = await trx
      .updateTable('evaluation_runs')
      .set({
        status: 'done',
        metrics: JSON.stringify(outcome.metrics),
        results: JSON.stringify(outcome.results),
        misses: JSON.stringify(outcome.misses),
        regressions: JSON.stringify(regressions),
        previous_run_id: previous?.id ?? null,
        error: null,
        finished_at: now,
        updated_at: now,
      })
      .where('id', '=', run.id)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0 || !previous || regressions.length === 0) return;
    const before = ZEvaluationMetrics.safeParse(previous.metrics);
    if (!before.success) return;
    await queueQualityRegressed(trx, queue, now, {
      workspaceId: run.workspace_id,
      data: {
        agent_id: run.agent_id,
        run_id: run.id,
        previous_run_id: previous.id,
        trigger: run.trigger,
        before: before.data,
        after: outcome.metrics,
        regressions,
      },
    });
  };
  if (db.isTransaction) return work(db);
  return db.transaction().execute(work);
}

/** Items that passed before (rank ≤ 5) and fail now (not found, or past rank 5), in the current order. */
export function regressionsOf(
  previous: ReadonlyArray<z.infer<typeof ZEvaluationResult>>,
  current: ReadonlyArray<z.infer<typeof ZEvaluationResult>>,
): TEvaluationRegression[] {
  const passed = new Map<string, number>();
  for (const result of previous) {
    if (result.rank !== null && result.rank <= EVALUATION_PASS_RANK)
      passed.set(result.golden_id, result.rank);
  }
  const regressions: TEvaluationRegression[] = [];
  for (const result of current) {
    const before = passed.get(result.golden_id);
    const fails = result.rank === null || result.rank > EVALUATION_PASS_RANK;
    if (before !== undefined && fails) regressions.push({ ...result, previous_rank: before });
  }
  return regressions;
}

const ZStoredResults = z.array(ZEvaluationResult).catch([]);
const ZStoredMisses = z.array(ZEvaluationMiss).catch([]);
const ZStoredRegressions = z.array(ZEvaluationRegression).catch([]);

function parseResults(value: unknown) {
  return ZStoredResults.parse(value);
}

/** The wire form of a run. */
export function toEvaluationRun(row: EvaluationRunRow): TEvaluationRun {
  const metrics = ZEvaluationMetrics.safeParse(row.metrics);
  return {
    id: row.id,
    agent_id: row.agent_id,
    status: row.status,
    trigger: row.trigger,
    metrics: metrics.success ? metrics.data : null,
    previous_run_id: row.previous_run_id,
    results: parseResults(row.results),
    misses: ZStoredMisses.parse(row.misses),
    regressions: ZStoredRegressions.parse(row.regressions),
    error: row.error,
    created_at: iso(row.created_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}
