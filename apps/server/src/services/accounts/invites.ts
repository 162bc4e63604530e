import {
  assignableRoles,
  type TInvite,
  type TInviteAccept,
  type TInviteAccepted,
  type TInviteCreate,
  type TInviteView,
  type TMembershipRole,
} from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { DB, WorkspaceInvitesTable } from '../../db/schema.js';
import { AppError, notFound, validationError } from '../../errors/app-error.js';
import { type MailLanguage, renderInviteMail } from '../../mail/mail-templates.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { sha256Hex } from '../../security/hashing.js';
import { newId } from '../../security/ids.js';
import {
  INVITE_TOKEN_TTL_SECONDS,
  inviteTokenKey,
  signInviteToken,
  verifyInviteToken,
} from '../../security/invite-token.js';
import type { SecretKeyring } from '../../security/secret-keyring.js';
import { recordAudit } from '../audit.js';
import { iso, type TenantScope } from '../context.js';
import { queueMail } from '../mail/queue-mail.js';
import { createUser, findUserByEmail } from './accounts.js';

/** At most this many invites a workspace sends in one hour (the mails go to strangers). */
export const INVITES_PER_HOUR = 20;

/** The one refusal of an invite token, whatever is wrong with it (expired, used, revoked, tampered). */
function invalidToken(): AppError {
  return validationError({
    token: ['This invite link is invalid, has expired, was revoked or was already used. Ask for a new one.'],
  });
}

type InviteRow = {
  id: string;
  email: string;
  role: TMembershipRole;
  invited_by_user_id: string | null;
  created_at: Date;
  expires_at: Date;
};

function toInvite(row: InviteRow): TInvite {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invited_by_user_id: row.invited_by_user_id,
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
  };
}

/** The workspace's open invites (not accepted, revoked or expired), oldest first. */
export async function listInvites(scope: TenantScope): Promise<TInvite[]> {
  const rows = await scope.db
    .selectFrom('workspace_invites')
    .select(['id', 'email', 'role', 'invited_by_user_id', 'created_at', 'expires_at'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', scope.clock.now())
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toInvite);
}

/**
 * Invites an email to the workspace with a role: a signed token valid 7 days (its SHA-256 stored
 * on the invite row) and the mail with the accept link, stored and queued in one transaction.
 * Only an owner invites owners (403). An email that is already a member, or has an open invite,
 * is a 409. More than {@link INVITES_PER_HOUR} in an hour is a 429. Audited as `member.invited`.
 */
export async function createInvite(options: {
  scope: TenantScope & { callerRole: TMembershipRole };
  input: TInviteCreate;
  queue: JobQueue;
  keys: SecretKeyring;
  appKey: Buffer;
  language: MailLanguage;
  /** The console's accept page for a token (built from PUBLIC_BASE_URL, never from the request). */
  linkFor: (token: string) => string;
}): Promise<TInvite> {
  const { scope, input } = options;
  if (!assignableRoles(scope.callerRole).includes(input.role)) {
    throw new AppError('forbidden', { message: 'Only an owner can invite an owner.' });
  }
  const now = scope.clock.now();
  const email = input.email.trim();
  const id = newId();
  const { token, expiresAt } = await signInviteToken(inviteTokenKey(options.appKey), id, now);
  return scope.db.transaction().execute(async (trx) => {
    // The workspace row lock serialises this workspace's invites: the hourly count holds.
    const workspace = await trx
      .selectFrom('workspaces')
      .select(['id', 'name'])
      .where('id', '=', scope.workspaceId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const hourAgo = new Date(now.getTime() - 60 * 60 * 1000);
    const recent = await trx
      .selectFrom('workspace_invites')
      .select(['created_at'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('created_at', '>', hourAgo)
      .orderBy('created_at')
      .execute();
    if (recent.length >= INVITES_PER_HOUR) {
      const oldest = recent[0]?.created_at ?? now;
      const retryAfter = Math.max(1, Math.ceil((oldest.getTime() + 60 * 60 * 1000 - now.getTime()) / 1000));
      throw new AppError('rate_limited', {
        message: `At most ${INVITES_PER_HOUR} invites an hour; try again later.`,
        retryAfter,
      });
    }
    const member = await trx
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select('m.user_id')
      .where('m.workspace_id', '=', scope.workspaceId)
      .where(sql<string>`lower(u.email)`, '=', email.toLowerCase())
      .executeTakeFirst();
    if (member)
      throw new AppError('conflict', { message: 'This email is already a member of the workspace.' });
    const open = await trx
      .selectFrom('workspace_invites')
      .select('id')
      .where('workspace_id', '=', scope.workspaceId)
      .where(sql<string>`lower(email)`, '=', email.toLowerCase())
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (open) {
      throw new AppError('conflict', {
        message: 'This email has an open invite: revoke it to send a new one.',
      });
    }
    const invitedBy =
      scope.actor.type === 'user' ? scope.actor.id : scope.actor.type === 'token' ? scope.actor.userId : null;
    const row = await trx
      .insertInto('workspace_invites')
      .values({
        id,
        workspace_id: scope.workspaceId,
        email,
        role: input.role,
        token_hash: sha256Hex(token),
        invited_by_user_id: invitedBy,
        created_at: now,
        expires_at: expiresAt,
      })
      .returning(['id', 'email', 'role', 'invited_by_user_id', 'created_at', 'expires_at'])
      .executeTakeFirstOrThrow();
    const mailId = await queueMail({
      db: trx,
      queue: options.queue,
      keys: options.keys,
      clock: scope.clock,
      kind: 'workspace_invite',
      to: email,
      language: options.language,
      workspaceId: scope.workspaceId,
      mail: renderInviteMail({
        language: options.language,
        workspace: workspace.name,
        role: input.role,
        link: options.linkFor(token),
        days: INVITE_TOKEN_TTL_SECONDS / 86_400,
      }),
    });
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'member.invited',
      target: { type: 'invite', id },
      metadata: { email, role: input.role, mail_id: mailId },
      requestId: scope.requestId,
    });
    return toInvite(row);
  });
}

/**
 * Revokes an open invite: its link stops working. Only an owner revokes an owner's invite (403);
 * an invite that is no longer open (or of another workspace) is a 404. Audited as `member.invite_revoked`.
 */
export async function revokeInvite(
  scope: TenantScope & { callerRole: TMembershipRole },
  inviteId: string,
): Promise<TInvite> {
  return scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('workspace_invites')
      .select(['id', 'email', 'role', 'invited_by_user_id', 'created_at', 'expires_at'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', inviteId)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw notFound();
    if (!assignableRoles(scope.callerRole).includes(row.role)) {
      throw new AppError('forbidden', { message: 'Only an owner can revoke an invite to be owner.' });
    }
    await trx
      .updateTable('workspace_invites')
      .set({ revoked_at: scope.clock.now() })
      .where('id', '=', row.id)
      .execute();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'member.invite_revoked',
      target: { type: 'invite', id: row.id },
      metadata: { email: row.email, role: row.role },
      requestId: scope.requestId,
    });
    return toInvite(row);
  });
}

/**
 * The open invite a token names: the signature, issuer, audience and expiry must hold at the
 * clock's now, and the row must exist, carry the token's hash, and be neither accepted nor
 * revoked. Anything else is the one 422 on `token`.
 */
async function openInvite(
  db: Kysely<DB>,
  appKey: Buffer,
  token: string,
  now: Date,
  lock: boolean,
): Promise<Omit<WorkspaceInvitesTable, 'created_at'> & { created_at: Date; workspace_name: string }> {
  const inviteId = await verifyInviteToken(inviteTokenKey(appKey), token, now);
  if (!inviteId) throw invalidToken();
  let query = db
    .selectFrom('workspace_invites as i')
    .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
    .selectAll('i')
    .select('w.name as workspace_name')
    .where('i.id', '=', inviteId);
  if (lock) query = query.forUpdate('i');
  const row = await query.executeTakeFirst();
  if (
    !row ||
    row.token_hash !== sha256Hex(token) ||
    row.accepted_at !== null ||
    row.revoked_at !== null ||
    row.expires_at <= now
  ) {
    throw invalidToken();
  }
  return row;
}

/** What the accept page shows of the invite a token names (422 on `token` when it is not open). */
export async function inspectInvite(options: {
  db: Kysely<DB>;
  appKey: Buffer;
  clock: Clock;
  token: string;
}): Promise<TInviteView> {
  const row = await openInvite(options.db, options.appKey, options.token, options.clock.now(), false);
  return {
    workspace_name: row.workspace_name,
    email: row.email,
    role: row.role,
    account_exists: (await findUserByEmail(options.db, row.email)) !== undefined,
    expires_at: iso(row.expires_at),
  };
}

/**
 * Accepts an invite. When no user has the invited email, `name` and `password` make one (a plain
 * user whose default workspace is this one; nothing else of the body is taken). When one does,
 * the caller must be signed in as that user (`signedInUserId`), and sends no password (422). Either
 * way the user joins with the invited role, the invite is spent, and the workspace audits
 * `member.invite_accepted`. An email already a member is a 409, and the invite stays open.
 */
export async function acceptInvite(options: {
  db: Kysely<DB>;
  appKey: Buffer;
  clock: Clock;
  input: TInviteAccept;
  bcryptCost: number;
  /** The user of the request's session, if it has one (any workspace). */
  signedInUserId: string | null;
  requestId?: string | undefined;
}): Promise<TInviteAccepted> {
  const now = options.clock.now();
  const { input } = options;
  // Checked before any work, and again under the lock below.
  const peek = await openInvite(options.db, options.appKey, input.token, now, false);
  const existing = await findUserByEmail(options.db, peek.email);
  if (existing) {
    if (input.password !== undefined || input.name !== undefined) {
      throw validationError({
        password: ['An account with this email exists: sign in to it, then accept the invite.'],
      });
    }
    if (options.signedInUserId !== existing.id) {
      throw new AppError('forbidden', { message: `Sign in as ${existing.email} to accept this invite.` });
    }
  } else {
    const errors: Record<string, string[]> = {};
    if (input.name === undefined) errors.name = ['Enter your name.'];
    if (input.password === undefined) errors.password = ['Choose a password of at least 8 characters.'];
    if (Object.keys(errors).length > 0) throw validationError(errors);
  }
  return options.db.transaction().execute(async (trx) => {
    const row = await openInvite(trx, options.appKey, input.token, now, true);
    let userId: string;
    if (existing) {
      userId = existing.id;
      const already = await trx
        .selectFrom('memberships')
        .select('role')
        .where('workspace_id', '=', row.workspace_id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (already) throw new AppError('conflict', { message: 'You are already a member of this workspace.' });
    } else {
      const user = await createUser(
        trx,
        {
          email: row.email,
          password: input.password ?? '',
          name: input.name ?? '',
          bcryptCost: options.bcryptCost,
        },
        { role: 'user', defaultWorkspaceId: row.workspace_id },
      );
      userId = user.id;
    }
    await trx
      .insertInto('memberships')
      .values({ workspace_id: row.workspace_id, user_id: userId, role: row.role, created_at: now })
      .execute();
    await trx
      .updateTable('workspace_invites')
      .set({ accepted_at: now, accepted_user_id: userId })
      .where('id', '=', row.id)
      .execute();
    await recordAudit(trx, {
      workspaceId: row.workspace_id,
      actor: { type: 'user', id: userId },
      action: 'member.invite_accepted',
      target: { type: 'invite', id: row.id },
      metadata: { email: row.email, role: row.role, user_id: userId, created_account: !existing },
      requestId: options.requestId,
    });
    return {
      workspace_id: row.workspace_id,
      workspace_name: row.workspace_name,
      email: row.email,
      role: row.role,
      created_account: !existing,
    };
  });
}
