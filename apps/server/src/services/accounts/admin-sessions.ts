import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TAdminSession, TMembershipRole, TSessionLogin } from '@service/contract';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { AppError, validationError } from '../../errors/app-error.js';
import { sha256Hex } from '../../security/hashing.js';
import { newId } from '../../security/ids.js';
import { hashPassword, verifyPassword } from '../../security/passwords.js';
import type { SecretKeyring } from '../../security/secret-keyring.js';
import { recordAudit } from '../audit.js';
import { iso } from '../context.js';
import { findUserByEmail, getUser, getWorkspace } from './accounts.js';
import { impersonationOf, isImpersonationLive } from './impersonation.js';
import { checkSecondFactor, type SecondFactor, userRow } from './two-factor.js';

/** The cookie that carries a session's secret (HttpOnly; the browser never shows it to scripts). */
export const SESSION_COOKIE = 'svc_admin_session';
/** A session lasts this long from sign-in; then the user signs in again. */
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;
/** Secrets look like `sas_` + 43 base64url characters (256 random bits). */
const SECRET_PATTERN = /^sas_[A-Za-z0-9_-]{43}$/;
/** `last_seen_at` is refreshed at most this often, so reads do not write on every request. */
const SEEN_EVERY_MS = 5 * 60 * 1000;
/** Membership roles whose sessions may use the admin API (the `admin` ability). */
const ADMIN_ROLES: readonly TMembershipRole[] = ['owner', 'admin'];

/** A verified session: who, in which workspace, with which abilities. */
export type VerifiedSession = {
  id: string;
  userId: string;
  workspaceId: string;
  /** The user's role in the workspace: it decides which admin routes the session may use. */
  role: TMembershipRole;
  abilities: string[];
  expiresAt: Date;
  /** The platform operator viewing as `userId` when this session is an impersonation; else null. */
  impersonatorId: string | null;
};

/** The CSRF token of a session: an HMAC of a fixed label keyed by the session's secret. */
export function csrfTokenFor(secret: string): string {
  return createHmac('sha256', secret).update('svc-admin-csrf').digest('base64url');
}

/** Whether `header` is the session's CSRF token (compared in constant time). */
export function csrfMatches(secret: string, header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(csrfTokenFor(secret));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

let unknownUserHash: Promise<string> | null = null;

/**
 * Checks an email and password and opens a session in the user's default workspace. An unknown
 * email still costs one bcrypt comparison, so timing does not tell which emails exist; every
 * failure is the same 401. Audited.
 */
export async function signIn(options: {
  db: Kysely<DB>;
  input: TSessionLogin;
  bcryptCost: number;
  /** APP_KEY's keyring: opens the TOTP secret of a user with two-factor on. */
  keys: SecretKeyring;
  now: Date;
  ip: string;
  userAgent: string | undefined;
  requestId?: string;
}): Promise<{ secret: string; session: TAdminSession }> {
  const { db, input, now } = options;
  const user = await findUserByEmail(db, input.email);
  if (!user) {
    unknownUserHash ??= hashPassword(randomBytes(18).toString('base64url'), options.bcryptCost);
    await verifyPassword(input.password, await unknownUserHash);
    throw new AppError('unauthenticated');
  }
  if (!(await verifyPassword(input.password, user.password_hash))) throw new AppError('unauthenticated');
  const workspaceId = user.default_workspace_id;
  const membership = workspaceId
    ? await db
        .selectFrom('memberships')
        .select('role')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', user.id)
        .executeTakeFirst()
    : undefined;
  if (!workspaceId || !membership) {
    throw new AppError('forbidden', { message: 'This account has no workspace to sign in to.' });
  }
  if (user.totp_enabled_at) await requireSecondFactor(db, options.keys, user.id, input, now);
  const secret = `sas_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000);
  await db.transaction().execute(async (trx) => {
    // The user's ended sessions go now; nothing else ever reads them.
    await trx
      .deleteFrom('admin_sessions')
      .where('user_id', '=', user.id)
      .where('expires_at', '<=', now)
      .execute();
    const id = newId();
    await trx
      .insertInto('admin_sessions')
      .values({
        id,
        user_id: user.id,
        workspace_id: workspaceId,
        secret_hash: sha256Hex(secret),
        ip: options.ip.slice(0, 64),
        user_agent: options.userAgent?.slice(0, 300) ?? null,
        created_at: now,
        last_seen_at: now,
        expires_at: expiresAt,
      })
      .execute();
    await recordAudit(trx, {
      workspaceId,
      actor: { type: 'user', id: user.id },
      action: 'session.created',
      target: { type: 'admin_session', id },
      metadata: { ip: options.ip },
      requestId: options.requestId,
    });
  });
  return {
    secret,
    session: await sessionView(db, { userId: user.id, workspaceId, expiresAt }, secret),
  };
}

/**
 * The session a cookie secret names, if it is well-formed, known, unexpired and its user is
 * still a member of its workspace; null otherwise (the caller answers 401, without detail).
 */
export async function verifySession(
  db: Kysely<DB>,
  secret: string,
  now: Date,
): Promise<VerifiedSession | null> {
  if (!SECRET_PATTERN.test(secret)) return null;
  const row = await db
    .selectFrom('admin_sessions as s')
    .innerJoin('memberships as m', (join) =>
      join.onRef('m.workspace_id', '=', 's.workspace_id').onRef('m.user_id', '=', 's.user_id'),
    )
    .select(['s.id', 's.user_id', 's.workspace_id', 's.expires_at', 's.last_seen_at', 'm.role'])
    .select(['s.impersonator_user_id', 's.parent_session_id'])
    .where('s.secret_hash', '=', sha256Hex(secret))
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return null;
  const impersonatorId = row.impersonator_user_id;
  if (impersonatorId !== null) {
    const parentSessionId = row.parent_session_id ?? '';
    if (!(await isImpersonationLive(db, { impersonatorUserId: impersonatorId, parentSessionId }, now))) {
      return null;
    }
  }
  if (now.getTime() - row.last_seen_at.getTime() > SEEN_EVERY_MS) {
    await db.updateTable('admin_sessions').set({ last_seen_at: now }).where('id', '=', row.id).execute();
  }
  return {
    id: row.id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    role: row.role,
    abilities: ADMIN_ROLES.includes(row.role) ? ['admin'] : [],
    expiresAt: row.expires_at,
    impersonatorId,
  };
}

/**
 * With two-factor on, sign-in also takes a code or a recovery code: none is a 422 naming
 * `code` (the password was right, so the page asks for it); a wrong or reused one is the same
 * bare 401 as a wrong password. Consumed under the user's row lock, so a code works once.
 */
async function requireSecondFactor(
  db: Kysely<DB>,
  keys: SecretKeyring,
  userId: string,
  factor: SecondFactor,
  now: Date,
): Promise<void> {
  if (factor.code === undefined && factor.recovery_code === undefined) {
    throw validationError({
      code: ['Two-factor sign-in is on: send the code from your authenticator app, or a recovery code.'],
    });
  }
  await db.transaction().execute(async (trx) => {
    const locked = await userRow(trx, userId, true);
    if (!(await checkSecondFactor(trx, keys, locked, factor, now))) throw new AppError('unauthenticated');
  });
}

/** What `GET /session` and sign-in answer: the user, the workspace, the CSRF token and the end. */
export async function sessionView(
  db: Kysely<DB>,
  session: { userId: string; workspaceId: string; expiresAt: Date },
  secret: string,
): Promise<TAdminSession> {
  const membership = await db
    .selectFrom('memberships')
    .select('role')
    .where('workspace_id', '=', session.workspaceId)
    .where('user_id', '=', session.userId)
    .executeTakeFirstOrThrow();
  return {
    user: await getUser(db, session.userId),
    workspace: await getWorkspace(db, session.workspaceId),
    role: membership.role,
    csrf_token: csrfTokenFor(secret),
    expires_at: iso(session.expiresAt),
    impersonation: await impersonationOf(db, secret),
  };
}

/** Ends a session (signing out twice is harmless). Audited. */
export async function signOut(
  db: Kysely<DB>,
  session: Pick<VerifiedSession, 'id' | 'userId' | 'workspaceId'>,
  requestId?: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom('admin_sessions').where('id', '=', session.id).executeTakeFirst();
    if (deleted.numDeletedRows === 0n) return;
    await recordAudit(trx, {
      workspaceId: session.workspaceId,
      actor: { type: 'user', id: session.userId },
      action: 'session.ended',
      target: { type: 'admin_session', id: session.id },
      requestId,
    });
  });
}
