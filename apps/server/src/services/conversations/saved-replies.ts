import {
  SAVED_REPLIES_MAX,
  type TSavedReply,
  type TSavedReplyCreate,
  type TSavedReplyUpdate,
} from '@service/contract';
import { sql } from 'kysely';
import { isUniqueViolation } from '../../db/pg-errors.js';
import type { Queryable } from '../../db/queryable.js';
import type { SavedReplyRow } from '../../db/schema-inbox.js';
import { AppError, notFound, validationError } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { actingUserId, iso, type TenantScope } from '../context.js';

const TITLE_TAKEN = 'Another saved reply already has this title.';

/** The workspace's saved replies, by title (at most SAVED_REPLIES_MAX, so one page). */
export async function listSavedReplies(
  options: Pick<TenantScope, 'db' | 'workspaceId'>,
): Promise<TSavedReply[]> {
  const rows = await options.db
    .selectFrom('saved_replies')
    .selectAll()
    .where('workspace_id', '=', options.workspaceId)
    .orderBy(sql`lower(title)`)
    .orderBy('id')
    .execute();
  return rows.map(toSavedReply);
}

/** Saves a reply; a title taken (ignoring case) is a 422 on `title`, past the cap a 409. Audited. */
export async function createSavedReply(
  options: TenantScope & { input: TSavedReplyCreate },
): Promise<TSavedReply> {
  return withTitleCheck(
    options.db.transaction().execute(async (trx) => {
      // Counted under the workspace row's lock, so concurrent creates cannot pass the cap.
      await trx
        .selectFrom('workspaces')
        .select('id')
        .where('id', '=', options.workspaceId)
        .forUpdate()
        .execute();
      const { count } = await trx
        .selectFrom('saved_replies')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('workspace_id', '=', options.workspaceId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= SAVED_REPLIES_MAX) {
        throw new AppError('conflict', {
          message: `A workspace keeps at most ${SAVED_REPLIES_MAX} saved replies.`,
        });
      }
      const row = await trx
        .insertInto('saved_replies')
        .values({
          id: newId(),
          workspace_id: options.workspaceId,
          title: options.input.title,
          body: options.input.body,
          created_by_user_id: actingUserId(options.actor),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await audit(trx, options, 'saved_reply.created', row.id, { title: row.title });
      return toSavedReply(row);
    }),
  );
}

/** Changes a saved reply's title and/or body; another workspace's is a 404. Audited. */
export async function updateSavedReply(
  options: TenantScope & { savedReplyId: string; input: TSavedReplyUpdate },
): Promise<TSavedReply> {
  return withTitleCheck(
    options.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('saved_replies')
        .set({ ...options.input, updated_at: options.clock.now() })
        .where('workspace_id', '=', options.workspaceId)
        .where('id', '=', options.savedReplyId)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound();
      await audit(trx, options, 'saved_reply.updated', row.id, { fields: Object.keys(options.input).sort() });
      return toSavedReply(row);
    }),
  );
}

/** Deletes a saved reply; another workspace's (or a deleted one) is a 404. Audited. */
export async function deleteSavedReply(options: TenantScope & { savedReplyId: string }): Promise<void> {
  await options.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('saved_replies')
      .where('workspace_id', '=', options.workspaceId)
      .where('id', '=', options.savedReplyId)
      .returning(['id', 'title'])
      .executeTakeFirst();
    if (!row) throw notFound();
    await audit(trx, options, 'saved_reply.deleted', row.id, { title: row.title });
  });
}

async function withTitleCheck<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isUniqueViolation(error)) throw validationError({ title: [TITLE_TAKEN] });
    throw error;
  }
}

async function audit(
  trx: Queryable,
  options: TenantScope,
  action: string,
  id: string,
  metadata: Record<string, unknown>,
) {
  await recordAudit(trx, {
    workspaceId: options.workspaceId,
    actor: options.actor,
    action,
    target: { type: 'saved_reply', id },
    metadata,
    requestId: options.requestId,
  });
}

function toSavedReply(row: SavedReplyRow): TSavedReply {
  return {
    id: row.id,
    title: row.title,
    body: row.body,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
