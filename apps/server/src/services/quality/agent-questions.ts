import {
  QUESTION_REASONS,
  QUESTION_STATUSES,
  type TAgentQuestion,
  type TCorrection,
  type TKbArticle,
} from '@service/contract';
import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { AgentQuestionRow } from '../../db/schema-conversations.js';
import { AppError, notFound } from '../../errors/app-error.js';
import { recordAudit } from '../audit.js';
import { iso } from '../context.js';
import { createKbArticle } from '../knowledge/kb-articles.js';
import type { KbIndexing } from '../knowledge/kb-index.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';
import { requireAgent } from '../require-agent.js';
import { type AgentScope, insertCorrection } from './corrections.js';

type Reason = (typeof QUESTION_REASONS)[number];
type Status = (typeof QUESTION_STATUSES)[number];

/** Counts of the agent's recorded questions: per status (all), per reason (within the status filter). */
export type QuestionCounts = { status: Record<Status, number>; reason: Record<Reason, number> };

/**
 * A page of the agent's recorded questions, newest first by default, filtered by status and
 * reason, with the counts beside it.
 */
export async function listAgentQuestions(
  scope: AgentScope,
  page: PageRequest,
  filter: { status?: Status | undefined; reason?: Reason | undefined },
): Promise<Page<TAgentQuestion> & { counts: QuestionCounts }> {
  await requireAgent(scope.db, scope.workspaceId, scope.agentId);
  const binding = {
    list: `agent_questions:${page.order}:${filter.status ?? ''}:${filter.reason ?? ''}`,
    workspaceId: scope.workspaceId,
    parentId: scope.agentId,
  };
  const after = pageStart(page, binding);
  let query = scope.db
    .selectFrom('agent_questions')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('agent_id', '=', scope.agentId)
    .orderBy('id', page.order)
    .limit(page.limit + 1);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.reason) query = query.where(sql<boolean>`${filter.reason} = any(reasons)`);
  if (after !== undefined) query = query.where('id', afterOperator(page), after);
  const [rows, counts] = await Promise.all([query.execute(), questionCounts(scope, filter.status)]);
  const pages = await chunkPagesOf(scope.db, scope, rows.slice(0, page.limit));
  return { ...pageOf(rows, page, binding, (row) => toAgentQuestion(row, pages)), counts };
}

/** Where a chunk behind an answer came from: its document's title and URL. */
type ChunkPage = { title: string; url: string | null };

/**
 * The document title and URL of every chunk behind the questions' answers, in one statement
 * (scoped to the workspace and agent like every read). A chunk removed since (its source was
 * re-indexed or deleted) is absent: the question shows it without a page.
 */
async function chunkPagesOf(
  db: Queryable,
  scope: Pick<AgentScope, 'workspaceId' | 'agentId'>,
  rows: readonly AgentQuestionRow[],
): Promise<Map<string, ChunkPage>> {
  const ids = [...new Set(rows.flatMap((row) => row.retrieved.map((chunk) => chunk.chunk_id)))];
  if (ids.length === 0) return new Map();
  const found = await db
    .selectFrom('chunks')
    .innerJoin('documents', 'documents.id', 'chunks.document_id')
    .select(['chunks.id as id', 'documents.title as title', 'documents.url as url'])
    .where('chunks.workspace_id', '=', scope.workspaceId)
    .where('chunks.agent_id', '=', scope.agentId)
    .where('documents.workspace_id', '=', scope.workspaceId)
    .where('chunks.id', 'in', ids)
    .execute();
  return new Map(found.map((row) => [row.id, { title: row.title, url: row.url }]));
}

async function questionCounts(scope: AgentScope, status: Status | undefined): Promise<QuestionCounts> {
  const { rows } = await sql<{ kind: 'status' | 'reason'; key: string; n: string }>`
    select 'status' as kind, q.status as key, count(*) as n from agent_questions q
    where q.workspace_id = ${scope.workspaceId} and q.agent_id = ${scope.agentId}
    group by q.status
    union all
    select 'reason', r.reason, count(*) from agent_questions q cross join unnest(q.reasons) as r(reason)
    where q.workspace_id = ${scope.workspaceId} and q.agent_id = ${scope.agentId}
      ${status ? sql`and q.status = ${status}` : sql``}
    group by r.reason`.execute(scope.db);
  const counts: QuestionCounts = {
    status: { open: 0, resolved: 0 },
    reason: { no_match: 0, fallback: 0, handoff: 0, rated_down: 0 },
  };
  for (const row of rows) {
    if (row.kind === 'status' && isStatus(row.key)) counts.status[row.key] = Number(row.n);
    if (row.kind === 'reason' && isReason(row.key)) counts.reason[row.key] = Number(row.n);
  }
  return counts;
}

/** The question, locked for the caller's transaction; another agent's is 404, a resolved one 409. */
async function openQuestion(
  trx: Queryable,
  scope: AgentScope,
  questionId: string,
): Promise<AgentQuestionRow> {
  const row = await trx
    .selectFrom('agent_questions')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('agent_id', '=', scope.agentId)
    .where('id', '=', questionId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound();
  if (row.status === 'resolved')
    throw new AppError('conflict', { message: 'The question is already resolved.' });
  return row;
}

async function markResolved(
  trx: Queryable,
  scope: AgentScope,
  questionId: string,
  resolution: { kind: 'correction' | 'kb_article' | 'dismissed'; id: string | null },
): Promise<TAgentQuestion> {
  const now = scope.clock.now();
  const row = await trx
    .updateTable('agent_questions')
    .set({
      status: 'resolved',
      resolution: resolution.kind,
      resolution_id: resolution.id,
      resolved_by: scope.actor.id,
      resolved_at: now,
      updated_at: now,
    })
    .where('workspace_id', '=', scope.workspaceId)
    .where('id', '=', questionId)
    .returningAll()
    .executeTakeFirstOrThrow();
  const pages = await chunkPagesOf(trx, scope, [row]);
  await recordAudit(trx, {
    workspaceId: scope.workspaceId,
    actor: scope.actor,
    action: 'agent_question.resolved',
    target: { type: 'agent_question', id: questionId },
    metadata: { agent_id: scope.agentId, resolution: resolution.kind, resolution_id: resolution.id },
    requestId: scope.requestId,
  });
  return toAgentQuestion(row, pages);
}

/** Turns an open question into a correction (its question, the given answer) and resolves it. */
export async function questionToCorrection(
  scope: AgentScope,
  questionId: string,
  input: { answer: string; question?: string | undefined },
): Promise<{ question: TAgentQuestion; correction: TCorrection }> {
  return scope.db.transaction().execute(async (trx) => {
    await requireAgent(trx, scope.workspaceId, scope.agentId, { forUpdate: true });
    const asked = await openQuestion(trx, scope, questionId);
    const correction = await insertCorrection(
      trx,
      scope,
      { question: input.question ?? asked.question.slice(0, 500), answer: input.answer },
      { source: 'question', sourceQuestionId: asked.id, sourceMessageId: asked.answer_message_id },
    );
    const question = await markResolved(trx, scope, questionId, { kind: 'correction', id: correction.id });
    return { question, correction };
  });
}

/**
 * Turns an open question into a published KB article (indexed for the workspace's agents like
 * any article) and resolves it. The question is checked first; the article is created in its
 * own transaction, then the question resolved (a question resolved meanwhile is 409 then).
 */
export async function questionToKbArticle(
  scope: AgentScope & KbIndexing,
  questionId: string,
  input: { title: string; body: string },
): Promise<{ question: TAgentQuestion; kb_article: TKbArticle }> {
  await scope.db.transaction().execute((trx) => openQuestion(trx, scope, questionId));
  const article = await createKbArticle(scope, {
    title: input.title,
    body_markdown: input.body,
    is_published: true,
  });
  const question = await scope.db.transaction().execute(async (trx) => {
    await openQuestion(trx, scope, questionId);
    return markResolved(trx, scope, questionId, { kind: 'kb_article', id: article.id });
  });
  return { question, kb_article: article };
}

/** Resolves an open question with nothing made of it (dismissed). */
export async function resolveQuestion(scope: AgentScope, questionId: string): Promise<TAgentQuestion> {
  return scope.db.transaction().execute(async (trx) => {
    await openQuestion(trx, scope, questionId);
    return markResolved(trx, scope, questionId, { kind: 'dismissed', id: null });
  });
}

function isStatus(value: string): value is Status {
  return (QUESTION_STATUSES as readonly string[]).includes(value);
}

function isReason(value: string): value is Reason {
  return (QUESTION_REASONS as readonly string[]).includes(value);
}

/** A stored question as the admin API returns it, its chunks with their pages (from {@link chunkPagesOf}). */
export function toAgentQuestion(
  row: AgentQuestionRow,
  pages: ReadonlyMap<string, ChunkPage>,
): TAgentQuestion {
  return {
    id: row.id,
    agent_id: row.agent_id,
    conversation_id: row.conversation_id,
    turn_id: row.turn_id,
    question_message_id: row.question_message_id,
    answer_message_id: row.answer_message_id,
    question: row.question,
    answer: row.answer,
    reasons: row.reasons.filter(isReason),
    chunks: row.retrieved.map((chunk) => ({
      chunk_id: chunk.chunk_id,
      score: chunk.score,
      title: pages.get(chunk.chunk_id)?.title ?? null,
      url: pages.get(chunk.chunk_id)?.url ?? null,
    })),
    status: row.status,
    resolution: row.resolution,
    resolution_id: row.resolution_id,
    resolved_by: row.resolved_by,
    resolved_at: iso(row.resolved_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
