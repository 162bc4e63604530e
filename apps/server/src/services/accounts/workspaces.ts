import { roleCan, type TWorkspaceMembership, ZMembershipRole } from '@service/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { AppError, notFound } from '../../errors/app-error.js';
import { recordAudit } from '../audit.js';

/** The workspaces a user is a member of, by name, marking the one the caller works in now. */
export async function listUserWorkspaces(options: {
  db: Kysely<DB>;
  userId: string;
  currentWorkspaceId: string;
}): Promise<TWorkspaceMembership[]> {
  const rows = await options.db
    .selectFrom('memberships as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['w.id', 'w.name', 'w.slug', 'm.role'])
    .where('m.user_id', '=', options.userId)
    .orderBy('w.name')
    .orderBy('w.id')
    .execute();
  return rows.map((row) => {
    const role = ZMembershipRole.parse(row.role);
    return {
      id: row.id,
      name: row.name,
      slug: row.slug,
      role,
      current: row.id === options.currentWorkspaceId,
      can_switch: roleCan(role, 'workspace.read'),
    };
  });
}

/**
 * Moves a signed-in session, and the user's default workspace (where the next sign-in lands),
 * to another workspace of the user. A workspace the user is no member of is a 404 (its
 * existence is not revealed); one where the role cannot use the console is a 403 (the session
 * would lock itself out). Switching to the current workspace changes nothing. Audited in both
 * workspaces, as `session.workspace_switched`.
 */
export async function switchSessionWorkspace(options: {
  db: Kysely<DB>;
  clock: Clock;
  sessionId: string;
  userId: string;
  fromWorkspaceId: string;
  toWorkspaceId: string;
  requestId?: string | undefined;
}): Promise<{ workspaceId: string; expiresAt: Date }> {
  const { db, sessionId, userId, fromWorkspaceId, toWorkspaceId } = options;
  return db.transaction().execute(async (trx) => {
    const membership = await trx
      .selectFrom('memberships')
      .select('role')
      .where('workspace_id', '=', toWorkspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!membership) throw notFound();
    const role = ZMembershipRole.parse(membership.role);
    if (!roleCan(role, 'workspace.read')) {
      throw new AppError('forbidden', {
        message: `Your role in that workspace (${role}) cannot use the console.`,
      });
    }
    const session = await trx
      .selectFrom('admin_sessions')
      .select('expires_at')
      .where('id', '=', sessionId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!session) throw new AppError('unauthenticated');
    if (toWorkspaceId === fromWorkspaceId)
      return { workspaceId: toWorkspaceId, expiresAt: session.expires_at };
    await trx
      .updateTable('admin_sessions')
      .set({ workspace_id: toWorkspaceId })
      .where('id', '=', sessionId)
      .execute();
    await trx
      .updateTable('users')
      .set({ default_workspace_id: toWorkspaceId, updated_at: options.clock.now() })
      .where('id', '=', userId)
      .execute();
    const actor = { type: 'user', id: userId } as const;
    const target = { type: 'admin_session', id: sessionId };
    const metadata = { from_workspace_id: fromWorkspaceId, to_workspace_id: toWorkspaceId };
    for (const workspaceId of [fromWorkspaceId, toWorkspaceId]) {
      await recordAudit(trx, {
        workspaceId,
        actor,
        action: 'session.workspace_switched',
        target,
        metadata,
        requestId: options.requestId,
      });
    }
    return { workspaceId: toWorkspaceId, expiresAt: session.expires_at };
  });
}
