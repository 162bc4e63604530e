import {
  CORRECTIONS_PER_AGENT_MAX,
  type TCorrection,
  type TCorrectionCreate,
  type TCorrectionUpdate,
} from '@service/contract';
import type { Queryable } from '../../db/queryable.js';
import type { AnswerCorrectionRow } from '../../db/schema-conversations.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { iso, type TenantScope } from '../context.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';
import { requireAgent } from '../require-agent.js';

/** A tenant scope narrowed to one agent of it (checked by each call). */
export type AgentScope = TenantScope & { agentId: string };

/** A page of the agent's corrections, oldest first; keyset on the id. */
export async function listCorrections(scope: AgentScope, page: PageRequest): Promise<Page<TCorrection>> {
  await requireAgent(scope.db, scope.workspaceId, scope.agentId);
  const binding = {
    list: `answer_corrections:${page.order}`,
    workspaceId: scope.workspaceId,
    parentId: scope.agentId,
  };
  const after = pageStart(page, binding);
  let query = scope.db
    .selectFrom('answer_corrections')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('agent_id', '=', scope.agentId)
    .orderBy('id', page.order)
    .limit(page.limit + 1);
  if (after !== undefined) query = query.where('id', afterOperator(page), after);
  return pageOf(await query.execute(), page, binding, toCorrection);
}

/** What a new correction stores beside its question and answer. */
type CorrectionOrigin = {
  source: 'typed' | 'message' | 'question';
  sourceMessageId?: string | null;
  sourceQuestionId?: string | null;
};

/**
 * Creates a correction, typed or from an assistant answer of one of the agent's conversations
 * (its question is the visitor message before it); audited. Another agent's or workspace's
 * message is 404; an agent already holding the most corrections is 422.
 */
export async function createCorrection(scope: AgentScope, input: TCorrectionCreate): Promise<TCorrection> {
  return scope.db.transaction().execute(async (trx) => {
    await requireAgent(trx, scope.workspaceId, scope.agentId, { forUpdate: true });
    if ('message_id' in input) {
      const asked = await questionOfAnswer(trx, scope, input.message_id);
      return insertCorrection(
        trx,
        scope,
        { question: input.question ?? asked.question, answer: input.answer ?? asked.answer },
        { source: 'message', sourceMessageId: input.message_id },
      );
    }
    return insertCorrection(trx, scope, input, { source: 'typed' });
  });
}

/**
 * Inserts a correction within the caller's transaction (the agent row already locked, so the
 * per-agent limit holds under concurrent creates); audited.
 */
export async function insertCorrection(
  trx: Queryable,
  scope: AgentScope,
  input: { question: string; answer: string },
  origin: CorrectionOrigin,
): Promise<TCorrection> {
  const held = await trx
    .selectFrom('answer_corrections')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', scope.workspaceId)
    .where('agent_id', '=', scope.agentId)
    .executeTakeFirstOrThrow();
  if (Number(held.n) >= CORRECTIONS_PER_AGENT_MAX) {
    throw validationError({
      question: [`The agent already has ${CORRECTIONS_PER_AGENT_MAX} corrections; delete some first.`],
    });
  }
  const now = scope.clock.now();
  const row = await trx
    .insertInto('answer_corrections')
    .values({
      id: newId(),
      workspace_id: scope.workspaceId,
      agent_id: scope.agentId,
      question: input.question,
      answer: input.answer,
      source: origin.source,
      source_message_id: origin.sourceMessageId ?? null,
      source_question_id: origin.sourceQuestionId ?? null,
      created_by: scope.actor.id,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordAudit(trx, {
    workspaceId: scope.workspaceId,
    actor: scope.actor,
    action: 'correction.created',
    target: { type: 'answer_correction', id: row.id },
    metadata: { agent_id: scope.agentId, source: origin.source },
    requestId: scope.requestId,
  });
  return toCorrection(row);
}

/** The visitor question an assistant answer of the agent's conversations answered, and the answer. */
async function questionOfAnswer(
  trx: Queryable,
  scope: AgentScope,
  messageId: string,
): Promise<{ question: string; answer: string }> {
  const answer = await trx
    .selectFrom('messages as m')
    .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
    .select(['m.id', 'm.content', 'm.conversation_id'])
    .where('m.workspace_id', '=', scope.workspaceId)
    .where('c.agent_id', '=', scope.agentId)
    .where('m.id', '=', messageId)
    .where('m.role', 'in', ['assistant', 'operator'])
    .executeTakeFirst();
  if (!answer) throw notFound();
  const question = await trx
    .selectFrom('messages')
    .select('content')
    .where('conversation_id', '=', answer.conversation_id)
    .where('role', '=', 'visitor')
    .where('id', '<', answer.id)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!question) throw validationError({ message_id: ['No visitor question comes before this answer.'] });
  return { question: question.content.slice(0, 500), answer: answer.content.slice(0, 4000) };
}

/** Changes a correction's question and/or answer; audited. Another agent's correction is 404. */
export async function updateCorrection(
  scope: AgentScope,
  correctionId: string,
  input: TCorrectionUpdate,
): Promise<TCorrection> {
  return scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('answer_corrections')
      .set({
        ...(input.question !== undefined && { question: input.question }),
        ...(input.answer !== undefined && { answer: input.answer }),
        updated_at: scope.clock.now(),
      })
      .where('workspace_id', '=', scope.workspaceId)
      .where('agent_id', '=', scope.agentId)
      .where('id', '=', correctionId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'correction.updated',
      target: { type: 'answer_correction', id: row.id },
      metadata: { agent_id: scope.agentId, fields: Object.keys(input).sort() },
      requestId: scope.requestId,
    });
    return toCorrection(row);
  });
}

/** Deletes a correction; audited. Another agent's correction is 404. */
export async function deleteCorrection(scope: AgentScope, correctionId: string): Promise<void> {
  await scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('answer_corrections')
      .where('workspace_id', '=', scope.workspaceId)
      .where('agent_id', '=', scope.agentId)
      .where('id', '=', correctionId)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'correction.deleted',
      target: { type: 'answer_correction', id: row.id },
      metadata: { agent_id: scope.agentId },
      requestId: scope.requestId,
    });
  });
}

/** A stored correction as the admin API returns it. */
export function toCorrection(row: AnswerCorrectionRow): TCorrection {
  return {
    id: row.id,
    agent_id: row.agent_id,
    question: row.question,
    answer: row.answer,
    source: row.source === 'message' || row.source === 'question' ? row.source : 'typed',
    source_message_id: row.source_message_id,
    source_question_id: row.source_question_id,
    use_count: row.use_count,
    last_used_at: iso(row.last_used_at),
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
