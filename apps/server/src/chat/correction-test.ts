import type { TCorrectionTestResult } from '@service/contract';
import type { AgentRow } from '../db/schema.js';
import { textSearchConfig } from '../retrieval/text-search-config.js';
import { CORRECTION_MATCH_THRESHOLD, closestCorrection } from '../services/quality/correction-match.js';
import { loadAnswerSources } from './answer-context.js';
import type { ChatDeps } from './chat-deps.js';

/**
 * What would answer a question (`POST /agents/{id}/corrections/test`): the closest correction
 * with its score, and the chunks the answer path retrieves (with their scores and whether words
 * found them). The decision is the answer path's: a correction at or above the threshold
 * answers; else the chunks, when words found one; else nothing matched ("I don't know" offline).
 */
export async function testCorrectionQuestion(options: {
  deps: Pick<ChatDeps, 'db' | 'features' | 'embeddings' | 'log'>;
  agent: AgentRow;
  question: string;
  baseUrl?: string | undefined;
}): Promise<TCorrectionTestResult> {
  const { deps, agent } = options;
  const config = await textSearchConfig(deps.db, agent.language_default);
  const [best, sources] = await Promise.all([
    closestCorrection(deps.db, {
      workspaceId: agent.workspace_id,
      agentId: agent.id,
      question: options.question,
      config,
      features: deps.features,
    }),
    loadAnswerSources({
      db: deps.db,
      agent,
      question: options.question,
      features: deps.features,
      embeddings: deps.embeddings,
      onError: (error, what) => deps.log.warn({ err: error }, what),
      baseUrl: options.baseUrl,
    }),
  ]);
  const matching = best !== null && best.score >= CORRECTION_MATCH_THRESHOLD ? best : null;
  const hasText = sources.some((source) => source.fromText);
  return {
    question: options.question,
    decision: matching ? 'correction' : hasText ? 'chunks' : 'no_match',
    threshold: CORRECTION_MATCH_THRESHOLD,
    correction: matching,
    best_correction: best,
    chunks: sources.map((source) => ({ id: source.id, ...source.hit, from_text: source.fromText })),
  };
}
