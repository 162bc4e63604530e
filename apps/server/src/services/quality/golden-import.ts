import type { TGoldenItem, TGoldenItemImport } from '@service/contract';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Queryable } from '../../db/queryable.js';
import { AppError, notFound, validationError } from '../../errors/app-error.js';
import type { TenantScope } from '../context.js';
import { requireAgent } from '../require-agent.js';
import { type GoldenItemInput, insertGoldenItem } from './golden-set.js';

// Golden items made from the answer-quality records: a resolved agent question
// (`agent_questions`) or an answer correction (`answer_corrections`). Those tables come with
// the corrections feature (its own migration); until it is installed, this answers 409 and
// nothing else depends on it. Their rows are read with plain SQL and parsed here, so this file
// compiles whether or not the Kysely schema declares them.

// The document kind of published knowledge-base articles (services/knowledge/kb-index.ts).
const KB_DOCUMENT_KIND = 'kb_article';

const ZQuestionRecord = z.object({
  id: z.string(),
  question: z.string(),
  status: z.string(),
  resolution: z.string().nullable(),
  resolution_id: z.string().nullable(),
});
const ZCorrectionRecord = z.object({ id: z.string(), question: z.string() });

/**
 * Adds a golden item made from a resolved question or a correction of the agent: its question
 * is the record's question, its expected pages the caller's or, for a question resolved by a
 * knowledge-base article, that article's document. One record makes at most one item (422 on
 * `origin_id` for a repeat). 404 when the record is not the agent's; 422 when the question is
 * not resolved or no expected page can be named; 409 while the records' tables are not
 * installed. Audited as `golden.created` with the origin.
 */
export async function importGoldenItem(
  scope: TenantScope,
  agentId: string,
  input: TGoldenItemImport,
): Promise<TGoldenItem> {
  return scope.db.transaction().execute(async (trx) => {
    await requireAgent(trx, scope.workspaceId, agentId);
    const table = input.origin === 'question' ? 'agent_questions' : 'answer_corrections';
    await requireTable(trx, table);
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

/** 409 unless the table exists (the corrections feature is installed). */
async function requireTable(db: Queryable, table: 'agent_questions' | 'answer_corrections'): Promise<void> {
  const found = await sql<{
    name: string | null;
  }>`select to_regclass(${`public.${table}`})::text as name`.execute(db);
  if (!found.rows[0]?.name) {
    throw new AppError('conflict', {
      message: `This service has no ${table.replace('_', ' ')} to import from.`,
    });
  }
}

/** A resolved question of the agent, with the document of the article that resolved it (if any). */
async function questionOrigin(
  db: Queryable,
  workspaceId: string,
  agentId: string,
  questionId: string,
): Promise<{ question: string; documentIds: string[] }> {
  const result = await sql<unknown>`
    select id, question, status, resolution, resolution_id from agent_questions
    where id = ${questionId} and workspace_id = ${workspaceId} and agent_id = ${agentId}`.execute(db);
  if (result.rows.length === 0) throw notFound();
  const record = ZQuestionRecord.parse(result.rows[0]);
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
  const result = await sql<unknown>`
    select id, question from answer_corrections
    where id = ${correctionId} and workspace_id = ${workspaceId} and agent_id = ${agentId}`.execute(db);
  if (result.rows.length === 0) throw notFound();
  return { question: ZCorrectionRecord.parse(result.rows[0]).question, documentIds: [] };
}
