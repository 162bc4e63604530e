import { MEMBERSHIP_ROLES, roleCan } from '@service/contract';
import type { Queryable } from '../../db/queryable.js';

/** How often an open admin stream refreshes its presence row, in milliseconds. */
export const PRESENCE_HEARTBEAT_MS = 15_000;

/** A presence row not refreshed for two heartbeats (and a margin) no longer counts: its instance is gone. */
export const PRESENCE_STALE_MS = 2 * PRESENCE_HEARTBEAT_MS + 5_000;

/** The roles whose members may reply: only their streams count as operators online. */
const REPLYING_ROLES = MEMBERSHIP_ROLES.filter((role) => roleCan(role, 'conversations.reply'));

/** Records (or refreshes) that `userId` holds the open stream `streamId` in the workspace. */
export async function touchPresence(
  db: Queryable,
  presence: { streamId: string; workspaceId: string; userId: string; now: Date },
): Promise<void> {
  await db
    .insertInto('operator_presence')
    .values({
      stream_id: presence.streamId,
      workspace_id: presence.workspaceId,
      user_id: presence.userId,
      seen_at: presence.now,
    })
    .onConflict((oc) => oc.column('stream_id').doUpdateSet({ seen_at: presence.now }))
    .execute();
}

/** The stream closed: it no longer counts. */
export async function removePresence(db: Queryable, streamId: string): Promise<void> {
  await db.deleteFrom('operator_presence').where('stream_id', '=', streamId).execute();
}

/**
 * How many users of the workspace who may reply (owner, admin, editor) hold an open admin stream
 * on any instance: a presence row refreshed within {@link PRESENCE_STALE_MS}.
 */
export async function operatorsOnline(db: Queryable, workspaceId: string, now: Date): Promise<number> {
  const since = new Date(now.getTime() - PRESENCE_STALE_MS);
  const row = await db
    .selectFrom('operator_presence as p')
    .innerJoin('memberships as m', (join) =>
      join.onRef('m.user_id', '=', 'p.user_id').onRef('m.workspace_id', '=', 'p.workspace_id'),
    )
    .select((eb) => eb.fn.count<string>('p.user_id').distinct().as('online'))
    .where('p.workspace_id', '=', workspaceId)
    .where('p.seen_at', '>', since)
    .where('m.role', 'in', REPLYING_ROLES)
    .executeTakeFirst();
  return Number(row?.online ?? 0);
}

/** Deletes presence rows that stopped counting (an instance that died without closing its streams). */
export async function prunePresence(db: Queryable, now: Date): Promise<void> {
  await db
    .deleteFrom('operator_presence')
    .where('seen_at', '<', new Date(now.getTime() - PRESENCE_STALE_MS))
    .execute();
}
