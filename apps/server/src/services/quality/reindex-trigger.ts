import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { queueReindexEvaluation } from './evaluation-runs.js';

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
