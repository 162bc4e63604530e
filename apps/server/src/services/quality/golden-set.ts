import {
  GOLDEN_EXPECTED_MAX,
  GOLDEN_ITEMS_PER_AGENT_MAX,
  type TGoldenItem,
  type TGoldenItemCreate,
  type TGoldenItemUpdate,
} from '@service/contract';
import type { Queryable } from '../../db/queryable.js';
import type { GoldenItemRow } from '../../db/schema-quality.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { iso, type TenantScope } from '../context.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';
import { requireAgent } from '../require-agent.js';

/** A new golden item as services write it (whatever its origin). */
export type GoldenItemInput = {
  question: string;
  expected_urls: string[];
  expected_document_ids: string[];
  note: string | null;
  origin: TGoldenItem['origin'];
  origin_id: string | null;
};

/**
 * A page of an agent's golden items, oldest first by default; keyset on the id. Another
 * workspace's agent is a 404; the cursor is bound to the agent.
 */
export async function listGoldenItems(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  agentId: string,
  page: PageRequest,
): Promise<Page<TGoldenItem>> {
  await requireAgent(scope.db, scope.workspaceId, agentId);
  const binding = { list: `golden:${page.order}`, workspaceId: scope.workspaceId, parentId: agentId };
  const after = pageStart(page, binding);
  let query = scope.db
    .selectFrom('golden_items')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('agent_id', '=', agentId)
    .orderBy('id', page.order)
    .limit(page.limit + 1);
  if (after !== undefined) query = query.where('id', afterOperator(page), after);
  return pageOf(await query.execute(), page, binding, toGoldenItem);
}

/** Adds a manual golden item to an agent (at most GOLDEN_ITEMS_PER_AGENT_MAX). Audited. */
export async function createGoldenItem(
  scope: TenantScope,
  agentId: string,
  input: TGoldenItemCreate,
): Promise<TGoldenItem> {
  return scope.db.transaction().execute((trx) =>
    insertGoldenItem(trx, scope, agentId, {
      question: input.question,
      expected_urls: input.expected_urls,
      expected_document_ids: input.expected_document_ids,
      note: input.note ?? null,
      origin: 'manual',
      origin_id: null,
    }),
  );
}

/**
 * Inserts a golden item inside the caller's transaction: locks the agent (so concurrent adds
 * cannot pass the cap together), checks the cap and records `golden.created`. An item of the
 * same origin record already in the set is 422 on `origin_id`.
 */
export async function insertGoldenItem(
  trx: Queryable,
  scope: Omit<TenantScope, 'db'>,
  agentId: string,
  input: GoldenItemInput,
): Promise<TGoldenItem> {
  await requireAgent(trx, scope.workspaceId, agentId, { forUpdate: true });
  const count = await trx
    .selectFrom('golden_items')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
  if (Number(count?.n ?? 0) >= GOLDEN_ITEMS_PER_AGENT_MAX) {
    throw validationError({
      question: [`An agent's golden set may hold at most ${GOLDEN_ITEMS_PER_AGENT_MAX} items.`],
    });
  }
  if (input.origin_id !== null) {
    const taken = await trx
      .selectFrom('golden_items')
      .select('id')
      .where('agent_id', '=', agentId)
      .where('origin', '=', input.origin)
      .where('origin_id', '=', input.origin_id)
      .executeTakeFirst();
    if (taken)
      throw validationError({ origin_id: [`This ${input.origin} is already golden item ${taken.id}.`] });
  }
  const now = scope.clock.now();
  const row = await trx
    .insertInto('golden_items')
    .values({
      id: newId(),
      workspace_id: scope.workspaceId,
      agent_id: agentId,
      question: input.question,
      expected_urls: input.expected_urls,
      expected_document_ids: input.expected_document_ids,
      note: input.note,
      origin: input.origin,
      origin_id: input.origin_id,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordAudit(trx, {
    workspaceId: scope.workspaceId,
    actor: scope.actor,
    action: 'golden.created',
    target: { type: 'golden_item', id: row.id },
    metadata: { agent_id: agentId, origin: row.origin, origin_id: row.origin_id },
    requestId: scope.requestId,
  });
  return toGoldenItem(row);
}

/**
 * Changes a golden item's question, expected pages or note; the item must still expect at least
 * one page. 404 for another agent's or workspace's item. Audited with the changed fields.
 */
export async function updateGoldenItem(
  scope: TenantScope,
  agentId: string,
  goldenId: string,
  input: TGoldenItemUpdate,
): Promise<TGoldenItem> {
  return scope.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('golden_items')
      .selectAll()
      .where('workspace_id', '=', scope.workspaceId)
      .where('agent_id', '=', agentId)
      .where('id', '=', goldenId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw notFound();
    const urls = input.expected_urls ?? current.expected_urls;
    const documentIds = input.expected_document_ids ?? current.expected_document_ids;
    const expected = urls.length + documentIds.length;
    if (expected < 1 || expected > GOLDEN_EXPECTED_MAX) {
      throw validationError({
        expected_urls: [`Give 1 to ${GOLDEN_EXPECTED_MAX} expected pages (URLs and document ids together).`],
      });
    }
    const row = await trx
      .updateTable('golden_items')
      .set({
        question: input.question ?? current.question,
        expected_urls: urls,
        expected_document_ids: documentIds,
        note: input.note === undefined ? current.note : input.note,
        updated_at: scope.clock.now(),
      })
      .where('id', '=', goldenId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'golden.updated',
      target: { type: 'golden_item', id: goldenId },
      metadata: { agent_id: agentId, fields: Object.keys(input).sort() },
      requestId: scope.requestId,
    });
    return toGoldenItem(row);
  });
}

/** Deletes a golden item (earlier runs keep their results). 404 for another agent's item. Audited. */
export async function deleteGoldenItem(scope: TenantScope, agentId: string, goldenId: string): Promise<void> {
  await scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('golden_items')
      .where('workspace_id', '=', scope.workspaceId)
      .where('agent_id', '=', agentId)
      .where('id', '=', goldenId)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'golden.deleted',
      target: { type: 'golden_item', id: goldenId },
      metadata: { agent_id: agentId },
      requestId: scope.requestId,
    });
  });
}

/** Every golden item of an agent, in id order (what a run evaluates). */
export async function goldenItemsOf(db: Queryable, agentId: string): Promise<GoldenItemRow[]> {
  return db.selectFrom('golden_items').selectAll().where('agent_id', '=', agentId).orderBy('id').execute();
}

/** The wire form of a golden item. */
export function toGoldenItem(row: GoldenItemRow): TGoldenItem {
  return {
    id: row.id,
    agent_id: row.agent_id,
    question: row.question,
    expected_urls: row.expected_urls,
    expected_document_ids: row.expected_document_ids,
    note: row.note,
    origin: row.origin,
    origin_id: row.origin_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
