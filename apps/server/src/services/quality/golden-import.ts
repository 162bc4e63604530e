import type { TGoldenItem, TGoldenItemImport } from '@service/contract';
import type { Queryable } from '../../db/queryable.js';
import { notFound, validationError } from '../../errors/app-error.js';
import type { TenantScope } from '../context.js';
import { KB_DOCUMENT_KIND } from '../knowledge/kb-index.js';
import { requireAgent } from '../require-agent.js';
import { type GoldenItemInput, insertGoldenItem } from './golden-set.js';

// Golden items made from the answer-quality records: a resolved agent question
// (`agent_questions`) or an answer correction (`answer_corrections`).

/**
 * Adds a golden item made from a resolved question or a correction of the agent: its question
 * is the record's question, its expected pages the caller's or, for a question resolved by a
 * knowledge-base article, that article's document. One record makes at most one item (422 on
 * `origin_id` for a repeat). 404 when the record is not the agent's; 422 when the question is
 * not resolved or no expected page can be named. Audited as `golden.created` with the origin.
 */
export async function importGoldenItem(
  scope: TenantScope,
  agentId: string,
  input: TGoldenItemImport,
): Promise<TGoldenItem> {
  return scope.db.transaction().execute(async (trx) => {
    await requireAgent(trx, scope.workspaceId, agentId);
    const origin =
      input.origin === 'question'
        ? await questionOrigin(trx, scope.workspaceId, agentId, input.origin_id)
        : await correctionOrigin(trx, scope.workspaceId, agentId, input.origin_id);
    const urls = input.expected_urls ?? [];
    const documentIds = input.expected_document_ids ?? origin.documentIds;
    if (urls.length + documentIds.length === 0) {
      throw validationError({
        expected_urls: [
          `Name the page that answers this ${input.origin}: expected_urls or expected_document_ids.`,
        ],
      });
    }
    const item: GoldenItemInput = {
      question: origin.question,
      expected_urls: urls,
      expected_document_ids: documentIds,
      note: input.note ?? null,
      origin: input.origin,
      origin_id: input.origin_id,
    };
    return insertGoldenItem(trx, scope, agentId, item);
  });
}

/** A resolved question of the agent, with the document of the article that resolved it (if any). */
async function questionOrigin(
  db: Queryable,
  workspaceId: string,
  agentId: string,
  questionId: string,
): Promise<{ question: string; documentIds: string[] }> {
  const record = await db
    .selectFrom('agent_questions')
    .select(['question', 'status', 'resolution', 'resolution_id'])
    .where('id', '=', questionId)
    .where('workspace_id', '=', workspaceId)
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
  if (!record) throw notFound();
  if (record.status !== 'resolved') {
    throw validationError({ origin_id: ['Only a resolved question can join the golden set.'] });
  }
  if (record.resolution !== 'kb_article' || record.resolution_id === null) {
    return { question: record.question, documentIds: [] };
  }
  const documents = await db
    .selectFrom('documents')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('agent_id', '=', agentId)
    .where('kind', '=', KB_DOCUMENT_KIND)
    .where('external_id', '=', record.resolution_id)
    .orderBy('id')
    .execute();
  return { question: record.question, documentIds: documents.map((doc) => doc.id) };
}

/** A correction of the agent: its question (the pages come from the caller). */
async function correctionOrigin(
  db: Queryable,
  workspaceId: string,
  agentId: string,
  correctionId: string,
): Promise<{ question: string; documentIds: string[] }> {
  const record = await db
    .selectFrom('answer_corrections')
    .select('question')
    .where('id', '=', correctionId)
    .where('workspace_id', '=', workspaceId)
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
  if (!record) throw notFound();
  return { question: record.question, documentIds: [] };
}
