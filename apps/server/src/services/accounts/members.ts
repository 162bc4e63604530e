import type { TMember, TMembershipRole } from '@service/contract';
import { assignableRoles, ZMembershipRole } from '@service/contract';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { AppError, notFound } from '../../errors/app-error.js';
import { recordAudit } from '../audit.js';
import { iso, type TenantScope } from '../context.js';

/** A member change: the scope of the request and the role the caller acts with. */
export type MemberScope = TenantScope & { callerRole: TMembershipRole };

/** The 409 of a change that would leave the workspace without an owner. */
function lastOwner(): AppError {
  return new AppError('conflict', {
    message: 'The workspace needs at least one owner: make another member owner first.',
  });
}

/** The 403 of a caller touching what only an owner may (an owner, or the owner role). */
function ownersOnly(): AppError {
  return new AppError('forbidden', { message: 'Only an owner can change, remove or add owners.' });
}

/** The workspace's members, oldest first, with their email and name. */
export async function listMembers(scope: TenantScope): Promise<TMember[]> {
  const rows = await scope.db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.email', 'u.name', 'm.role', 'm.created_at'])
    .where('m.workspace_id', '=', scope.workspaceId)
    .orderBy('m.created_at')
    .orderBy('m.user_id')
    .execute();
  return rows.map(toMember);
}

function toMember(row: {
  user_id: string;
  email: string;
  name: string;
  role: string;
  created_at: Date;
}): TMember {
  return {
    user_id: row.user_id,
    email: row.email,
    name: row.name,
    role: ZMembershipRole.parse(row.role),
    joined_at: iso(row.created_at),
  };
}

/**
 * The member `userId` with the workspace's owners locked (`for update`), so two changes at once
 * cannot both take away the last owner. A user who is no member is a 404.
 */
async function lockedMember(trx: Transaction<DB>, workspaceId: string, userId: string) {
  const owners = await trx
    .selectFrom('memberships')
    .select('user_id')
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .forUpdate()
    .execute();
  const member = await trx
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.email', 'u.name', 'm.role', 'm.created_at'])
    .where('m.workspace_id', '=', workspaceId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
  if (!member) throw notFound();
  return { member: toMember(member), ownerCount: owners.length };
}

/**
 * Changes a member's role. Only an owner makes owners or changes an owner's role (403 otherwise);
 * the last owner keeps the role (409). A member demoted below admin loses the API tokens they
 * made in the workspace (a token acts as admin). The same role changes nothing. Audited as
 * `member.role_changed` with the old and new role.
 */
export async function changeMemberRole(
  scope: MemberScope,
  userId: string,
  role: TMembershipRole,
): Promise<TMember> {
  return scope.db.transaction().execute(async (trx) => {
    const { member, ownerCount } = await lockedMember(trx, scope.workspaceId, userId);
    if (member.role === 'owner' && scope.callerRole !== 'owner') throw ownersOnly();
    if (!assignableRoles(scope.callerRole).includes(role)) throw ownersOnly();
    if (member.role === role) return member;
    if (member.role === 'owner' && ownerCount <= 1) throw lastOwner();
    await trx
      .updateTable('memberships')
      .set({ role })
      .where('workspace_id', '=', scope.workspaceId)
      .where('user_id', '=', userId)
      .execute();
    const revoked = role === 'owner' || role === 'admin' ? [] : await revokeTokensOf(trx, scope, userId);
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'member.role_changed',
      target: { type: 'user', id: userId },
      metadata: { old_role: member.role, new_role: role, revoked_token_ids: revoked },
      requestId: scope.requestId,
    });
    return { ...member, role };
  });
}

/**
 * Removes a member from the workspace: their sessions in it end, the API tokens they made in it
 * are revoked, and a default workspace pointing at it moves to another of theirs (or none).
 * Removing an owner takes an owner (403 otherwise); the last owner stays (409). `leaving` marks
 * the caller removing themselves (audited as `member.left` rather than `member.removed`).
 */
export async function removeMember(
  scope: MemberScope,
  userId: string,
  options: { leaving: boolean },
): Promise<TMember> {
  return scope.db.transaction().execute(async (trx) => {
    const { member, ownerCount } = await lockedMember(trx, scope.workspaceId, userId);
    if (!options.leaving && member.role === 'owner' && scope.callerRole !== 'owner') throw ownersOnly();
    if (member.role === 'owner' && ownerCount <= 1) throw lastOwner();
    await trx
      .deleteFrom('memberships')
      .where('workspace_id', '=', scope.workspaceId)
      .where('user_id', '=', userId)
      .execute();
    const sessions = await trx
      .deleteFrom('admin_sessions')
      .where('workspace_id', '=', scope.workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    const revoked = await revokeTokensOf(trx, scope, userId);
    await moveDefaultWorkspace(trx, scope, userId);
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: options.leaving ? 'member.left' : 'member.removed',
      target: { type: 'user', id: userId },
      metadata: {
        old_role: member.role,
        ended_sessions: Number(sessions.numDeletedRows),
        revoked_token_ids: revoked,
      },
      requestId: scope.requestId,
    });
    return member;
  });
}

/** Revokes the unrevoked API tokens `userId` made in the workspace; their ids. */
async function revokeTokensOf(trx: Kysely<DB>, scope: TenantScope, userId: string): Promise<string[]> {
  const rows = await trx
    .updateTable('api_tokens')
    .set({ revoked_at: scope.clock.now() })
    .where('workspace_id', '=', scope.workspaceId)
    .where('created_by_user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => row.id).sort();
}

/** A user's default workspace, when it is the one they left, becomes their oldest other one (or none). */
async function moveDefaultWorkspace(trx: Kysely<DB>, scope: TenantScope, userId: string): Promise<void> {
  const user = await trx
    .selectFrom('users')
    .select('default_workspace_id')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  if (user.default_workspace_id !== scope.workspaceId) return;
  const other = await trx
    .selectFrom('memberships')
    .select('workspace_id')
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('workspace_id')
    .executeTakeFirst();
  await trx
    .updateTable('users')
    .set({ default_workspace_id: other?.workspace_id ?? null, updated_at: scope.clock.now() })
    .where('id', '=', userId)
    .execute();
}
