import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { DatabaseFeatures } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { EmbeddingProvider } from '../embeddings/index.js';
import { AppError, validationError } from '../errors/app-error.js';
import { MAX_LIMIT, searchChunks } from './search.js';

/** Hits retrieved per question unless told otherwise; MRR looks at this many. */
export const EVAL_DEFAULT_LIMIT = 10;
/** Reciprocal rank counts only within the top MRR_DEPTH hits. */
export const MRR_DEPTH = 10;
/** Most questions one run takes (the set travels as one control-socket request). */
export const MAX_GOLDEN_QUESTIONS = 2_000;
/** How many of a miss's hits the report shows. */
const MISS_TOP = 3;

/**
 * One golden question with exactly one kind of expectation: `expected_url` (one page),
 * `expected_text` (a passage), or a set of pages by `expected_urls` and/or
 * `expected_document_ids` (an agent's stored golden set: a hit on any of them counts).
 */
export const ZGoldenQuestion = z
  .object({
    id: z.union([z.string(), z.number()]).optional(),
    question: z.string().trim().min(1, 'must not be empty'),
    expected_url: z.string().trim().min(1, 'must not be empty').optional(),
    expected_text: z.string().trim().min(1, 'must not be empty').optional(),
    expected_urls: z.array(z.string().trim().min(1, 'must not be empty')).optional(),
    expected_document_ids: z.array(z.string().trim().min(1, 'must not be empty')).optional(),
  })
  .refine(
    (value) => {
      const pages = (value.expected_urls?.length ?? 0) + (value.expected_document_ids?.length ?? 0) > 0;
      return (
        [value.expected_url !== undefined, value.expected_text !== undefined, pages].filter(Boolean)
          .length === 1
      );
    },
    { message: 'needs exactly one of expected_url, expected_text or expected_urls/expected_document_ids' },
  );
export type TGoldenQuestion = z.infer<typeof ZGoldenQuestion>;

/**
 * Parses a golden set in JSON Lines (blank lines skipped). Every bad line is reported by its
 * 1-based number under the `golden` field, and nothing is returned unless every line is good.
 */
export function parseGoldenSet(text: string): TGoldenQuestion[] {
  const questions: TGoldenQuestion[] = [];
  const problems: string[] = [];
  // A BOM is what some editors put in front of UTF-8 files; JSON.parse would refuse line 1.
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((line, index) => {
      if (line.trim() === '') return;
      const where = `line ${index + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        problems.push(`${where}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
        return;
      }
      const parsed = ZGoldenQuestion.safeParse(value);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) =>
          issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
        );
        problems.push(`${where}: ${issues.join('; ')}`);
        return;
      }
      questions.push(parsed.data);
    });
  if (problems.length > 0) throw validationError({ golden: problems });
  if (questions.length === 0) throw validationError({ golden: ['the golden set has no questions'] });
  if (questions.length > MAX_GOLDEN_QUESTIONS) {
    throw validationError({ golden: [`at most ${MAX_GOLDEN_QUESTIONS} questions per run`] });
  }
  return questions;
}

/** A URL compared without a trailing slash (and with the host case and default port WHATWG-normalised). */
export function normaliseUrl(url: string): string {
  const trimmed = url.trim();
  try {
    const parsed = new URL(trimmed);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}${parsed.hash}`;
  } catch {
    return trimmed.replace(/\/+$/, '');
  }
}

/** Text compared case-insensitively with whitespace runs collapsed (NFKC, so ligatures and wide forms match). */
export function normaliseText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** What scoring needs of a hit. */
export type RankedHit = { url: string | null; content: string; document_id?: string };

/** Where a question's answer was found. */
export type QuestionScore = {
  rank: number | null;
  hit_at_1: boolean;
  hit_at_5: boolean;
  reciprocal_rank: number;
};

/** Whether a hit is what the question expects. */
export function isExpectedHit(question: TGoldenQuestion, hit: RankedHit): boolean {
  if (question.expected_url !== undefined) {
    return hit.url !== null && normaliseUrl(hit.url) === normaliseUrl(question.expected_url);
  }
  if (question.expected_text !== undefined) {
    return normaliseText(hit.content).includes(normaliseText(question.expected_text));
  }
  const url = hit.url === null ? null : normaliseUrl(hit.url);
  return (
    (url !== null && (question.expected_urls ?? []).some((expected) => normaliseUrl(expected) === url)) ||
    (hit.document_id !== undefined && (question.expected_document_ids ?? []).includes(hit.document_id))
  );
}

/**
 * Scores one ranking: the 1-based rank of the first expected hit (null: none), whether it is
 * in the top 1 and top 5, and its reciprocal rank (0 past MRR_DEPTH).
 */
export function scoreRanking(question: TGoldenQuestion, hits: readonly RankedHit[]): QuestionScore {
  const index = hits.findIndex((hit) => isExpectedHit(question, hit));
  const rank = index === -1 ? null : index + 1;
  return {
    rank,
    hit_at_1: rank === 1,
    hit_at_5: rank !== null && rank <= 5,
    reciprocal_rank: rank !== null && rank <= MRR_DEPTH ? 1 / rank : 0,
  };
}

/** The aggregate metrics of a run. */
export type EvalSummary = { questions: number; recall_at_1: number; recall_at_5: number; mrr: number };

/** Averages the scores (all 0 for no questions), rounded to 4 decimals for stable output. */
export function summarise(scores: readonly QuestionScore[]): EvalSummary {
  const n = scores.length;
  const mean = (pick: (score: QuestionScore) => number) =>
    n === 0 ? 0 : round(scores.reduce((sum, score) => sum + pick(score), 0) / n);
  return {
    questions: n,
    recall_at_1: mean((score) => (score.hit_at_1 ? 1 : 0)),
    recall_at_5: mean((score) => (score.hit_at_5 ? 1 : 0)),
    mrr: mean((score) => score.reciprocal_rank),
  };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** A question whose answer is not in the top 5, with what was found instead. */
export type EvalMiss = {
  id?: string | number;
  question: string;
  expected: { url: string } | { text: string } | { urls: string[]; document_ids: string[] };
  /** Rank past 5 within the retrieved hits, or null when not retrieved at all. */
  rank: number | null;
  top: Array<{ title: string; url: string | null }>;
};

/** The result of `evaluateAgent`: the metrics, each question's rank and the misses. */
export type EvalReport = EvalSummary & {
  agent_id: string;
  workspace_id: string;
  limit: number;
  /** Whether the vector retriever took part (pgvector and an embedding provider). */
  vector: boolean;
  /** Questions whose query could not be embedded (searched without vectors). */
  vector_errors: number;
  results: Array<{ id?: string | number; question: string; rank: number | null }>;
  misses: EvalMiss[];
};

/** What `evaluateAgent` needs. */
export type EvaluateInput = {
  db: Kysely<DB>;
  features: DatabaseFeatures;
  agentId: string;
  questions: readonly TGoldenQuestion[];
  limit?: number;
  embeddings: EmbeddingProvider | null;
  onVectorError?: (error: unknown) => void;
};

/**
 * Runs every golden question through the chat's hybrid search for one agent and scores the
 * rankings. The agent is found by id in any workspace: this is an operator tool (the CLI), and
 * no tenant-facing route calls it. An unknown agent is a 404 naming the id.
 */
export async function evaluateAgent(input: EvaluateInput): Promise<EvalReport> {
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.trunc(input.limit ?? EVAL_DEFAULT_LIMIT)));
  const agent = await input.db
    .selectFrom('agents')
    .select(['id', 'workspace_id'])
    .where('id', '=', input.agentId)
    .executeTakeFirst();
  if (!agent) throw new AppError('not_found', { message: `No agent with id ${input.agentId}.` });

  const vector = input.features.vector && input.embeddings !== null;
  let vectorErrors = 0;
  const scores: QuestionScore[] = [];
  const results: EvalReport['results'] = [];
  const misses: EvalMiss[] = [];
  // One question at a time: the embedded store has one connection, and ranks must not depend on timing.
  for (const question of input.questions) {
    const hits = await searchChunks({
      db: input.db,
      workspaceId: agent.workspace_id,
      agentId: agent.id,
      query: question.question,
      limit,
      features: input.features,
      embeddings: input.embeddings,
      onVectorError: (error) => {
        vectorErrors += 1;
        input.onVectorError?.(error);
      },
    });
    const score = scoreRanking(question, hits);
    scores.push(score);
    const id = question.id === undefined ? {} : { id: question.id };
    results.push({ ...id, question: question.question, rank: score.rank });
    if (!score.hit_at_5) {
      misses.push({
        ...id,
        question: question.question,
        expected: expectationOf(question),
        rank: score.rank,
        top: hits.slice(0, MISS_TOP).map((hit) => ({ title: hit.title, url: hit.url })),
      });
    }
  }
  return {
    agent_id: agent.id,
    workspace_id: agent.workspace_id,
    limit,
    vector,
    vector_errors: vectorErrors,
    ...summarise(scores),
    results,
    misses,
  };
}

/** What a miss says was expected. */
function expectationOf(question: TGoldenQuestion): EvalMiss['expected'] {
  if (question.expected_url !== undefined) return { url: question.expected_url };
  if (question.expected_text !== undefined) return { text: question.expected_text };
  return { urls: question.expected_urls ?? [], document_ids: question.expected_document_ids ?? [] };
}
