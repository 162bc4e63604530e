import { randomBytes } from 'node:crypto';
import { IMPERSONATION_MINUTES, type TImpersonation, type TImpersonationStart } from '@service/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import { sha256Hex } from '../../security/hashing.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { iso } from '../context.js';

/** An operator's own session, as the platform routes see it. */
export type OperatorSession = { id: string; userId: string };

/** What starting or ending an impersonation gives the browser: the cookie secret to hold now. */
export type SessionSwitch = {
  secret: string;
  session: { id: string; userId: string; workspaceId: string; expiresAt: Date };
};

/** A new session cookie secret (`sas_` + 256 random bits), as sign-in makes them. */
function newSessionSecret(): string {
  return `sas_${randomBytes(32).toString('base64url')}`;
}

/**
 * Starts an impersonation: a session of `user_id` in `workspace_id`, opened by the operator's
 * own session, for {@link IMPERSONATION_MINUTES} (never extended, and never past the operator's
 * session). The member must belong to the workspace (404 otherwise, the same for an unknown
 * workspace or user); an operator does not impersonate themself or another operator (403).
 * Audited in the workspace (`impersonation.started`, actor the operator, on behalf of the member,
 * the reason in metadata). The member's own sessions are untouched.
 */
export async function startImpersonation(options: {
  db: Kysely<DB>;
  clock: Clock;
  operator: OperatorSession;
  input: TImpersonationStart;
  ip: string;
  userAgent: string | undefined;
  requestId?: string;
}): Promise<SessionSwitch> {
  const { db, input, operator } = options;
  const now = options.clock.now();
  const member = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.role'])
    .where('m.workspace_id', '=', input.workspace_id)
    .where('m.user_id', '=', input.user_id)
    .executeTakeFirst();
  if (!member) throw new AppError('not_found', { message: 'No such member in that workspace.' });
  if (member.id === operator.userId || member.role === 'admin') {
    throw new AppError('forbidden', { message: 'A platform operator cannot be viewed as.' });
  }
  const parent = await db
    .selectFrom('admin_sessions')
    .select('expires_at')
    .where('id', '=', operator.id)
    .executeTakeFirstOrThrow();
  const end = Math.min(now.getTime() + IMPERSONATION_MINUTES * 60_000, parent.expires_at.getTime());
  const secret = newSessionSecret();
  const id = newId();
  const expiresAt = new Date(end);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('admin_sessions')
      .values({
        id,
        user_id: member.id,
        workspace_id: input.workspace_id,
        secret_hash: sha256Hex(secret),
        ip: options.ip.slice(0, 64),
        user_agent: options.userAgent?.slice(0, 300) ?? null,
        created_at: now,
        last_seen_at: now,
        expires_at: expiresAt,
        impersonator_user_id: operator.userId,
        parent_session_id: operator.id,
        impersonation_reason: input.reason,
      })
      .execute();
    await recordAudit(trx, {
      workspaceId: input.workspace_id,
      actor: { type: 'user', id: member.id, impersonatorId: operator.userId },
      action: 'impersonation.started',
      target: { type: 'user', id: member.id },
      metadata: { reason: input.reason, session_id: id, expires_at: iso(expiresAt) },
      requestId: options.requestId,
    });
  });
  return { secret, session: { id, userId: member.id, workspaceId: input.workspace_id, expiresAt } };
}

/**
 * Ends the impersonation a cookie secret names, expired or not, and gives the operator their
 * own session back under a new secret (the old one left the browser when the impersonation
 * started). Null when the secret names no impersonation; `restored` null when the operator's
 * own session has ended meanwhile (they sign in again). Audited (`impersonation.ended`).
 */
export async function endImpersonation(options: {
  db: Kysely<DB>;
  clock: Clock;
  secret: string;
  requestId?: string;
}): Promise<{ restored: SessionSwitch | null } | null> {
  const now = options.clock.now();
  return options.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('admin_sessions')
      .where('secret_hash', '=', sha256Hex(options.secret))
      .where('impersonator_user_id', 'is not', null)
      .returning(['id', 'user_id', 'workspace_id', 'impersonator_user_id', 'parent_session_id'])
      .executeTakeFirst();
    if (!row?.impersonator_user_id || !row.parent_session_id) return null;
    await recordAudit(trx, {
      workspaceId: row.workspace_id,
      actor: { type: 'user', id: row.user_id, impersonatorId: row.impersonator_user_id },
      action: 'impersonation.ended',
      target: { type: 'user', id: row.user_id },
      metadata: { session_id: row.id },
      requestId: options.requestId,
    });
    const secret = newSessionSecret();
    const parent = await trx
      .updateTable('admin_sessions')
      .set({ secret_hash: sha256Hex(secret), last_seen_at: now })
      .where('id', '=', row.parent_session_id)
      .where('expires_at', '>', now)
      .returning(['id', 'user_id', 'workspace_id', 'expires_at'])
      .executeTakeFirst();
    if (!parent) return { restored: null };
    return {
      restored: {
        secret,
        session: {
          id: parent.id,
          userId: parent.user_id,
          workspaceId: parent.workspace_id,
          expiresAt: parent.expires_at,
        },
      },
    };
  });
}

/**
 * Whether an impersonation session may still be used: its operator is still a platform operator
 * and the operator's own session (which opened it) has not ended.
 */
export async function isImpersonationLive(
  db: Queryable,
  session: { impersonatorUserId: string; parentSessionId: string },
  now: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom('admin_sessions as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select('p.id')
    .where('p.id', '=', session.parentSessionId)
    .where('p.user_id', '=', session.impersonatorUserId)
    .where('p.expires_at', '>', now)
    .where('u.role', '=', 'admin')
    .executeTakeFirst();
  return row !== undefined;
}

/** The impersonation a session is (for the console's banner), or null for an ordinary session. */
export async function impersonationOf(db: Queryable, secret: string): Promise<TImpersonation | null> {
  const row = await db
    .selectFrom('admin_sessions as s')
    .innerJoin('users as o', 'o.id', 's.impersonator_user_id')
    .select(['o.id', 'o.email', 'o.name', 's.impersonation_reason', 's.created_at', 's.expires_at'])
    .where('s.secret_hash', '=', sha256Hex(secret))
    .executeTakeFirst();
  if (!row) return null;
  return {
    operator: { id: row.id, email: row.email, name: row.name },
    reason: row.impersonation_reason ?? '',
    started_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
  };
}
