import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { EvaluationRunRow } from '../../db/schema-quality.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { evaluateAgentSpec } from '../../queue/job-specs.js';
import { newId } from '../../security/ids.js';

/*
 * What a source's transition to `indexed` starts: the agent's quality evaluation (its golden set
 * run again, see services/quality/evaluation-runs.ts). It lives beside the settling code, which
 * calls it in its transaction; the quality services build on it, not the other way round.
 */

/** A source that has just become `indexed`. */
export type IndexedSource = { id: string; agent_id: string };

/**
 * What follows a source's transition to `indexed` (the end of a fetch, index and embedding
 * run): each of their agents that has a golden set gets a `reindex` evaluation run, debounced
 * per agent (see queueReindexEvaluation). Called in the transaction that settled the sources.
 * Returns the ids of the runs queued.
 */
export async function onSourcesIndexed(
  db: Queryable,
  queue: JobQueue,
  clock: Clock,
  sources: readonly IndexedSource[],
): Promise<string[]> {
  const agents = [...new Set(sources.map((source) => source.agent_id))].sort();
  const queued: string[] = [];
  for (const agentId of agents) {
    const runId = await queueReindexEvaluation(db, queue, clock, agentId);
    if (runId) queued.push(runId);
  }
  return queued;
}

/**
 * Queues a `reindex` run of the agent when it has a golden set. Debounced per agent: while one
 * such run waits, later triggers join it (a partial unique index decides, so two concurrent
 * triggers cannot both queue one). Returns the run id, or null when none was queued.
 */
export async function queueReindexEvaluation(
  db: Queryable,
  queue: JobQueue,
  clock: Clock,
  agentId: string,
): Promise<string | null> {
  const agent = await db
    .selectFrom('agents')
    .select(['id', 'workspace_id'])
    .where('id', '=', agentId)
    .executeTakeFirst();
  if (!agent || !(await hasGoldenSet(db, agentId))) return null;
  const row = await insertEvaluationRun(db, clock, {
    workspaceId: agent.workspace_id,
    agentId,
    trigger: 'reindex',
  });
  if (!row) return null;
  await queue.send(evaluateAgentSpec, { runId: row.id }, { key: row.id, db });
  return row.id;
}

/** Inserts an evaluation run; a second queued `reindex` run of an agent is not inserted (undefined). */
export async function insertEvaluationRun(
  db: Queryable,
  clock: Clock,
  run: { workspaceId: string; agentId: string; trigger: 'manual' | 'reindex' },
): Promise<EvaluationRunRow | undefined> {
  const now = clock.now();
  const inserted = await sql<EvaluationRunRow>`
    insert into evaluation_runs (id, workspace_id, agent_id, trigger, created_at, updated_at)
    values (${newId()}, ${run.workspaceId}, ${run.agentId}, ${run.trigger}, ${now}, ${now})
    on conflict (agent_id) where status = 'queued' and trigger = 'reindex' do nothing
    returning *`.execute(db);
  return inserted.rows[0];
}

/** Whether an agent has at least one golden item. */
export async function hasGoldenSet(db: Queryable, agentId: string): Promise<boolean> {
  const row = await db
    .selectFrom('golden_items')
    .select('id')
    .where('agent_id', '=', agentId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
