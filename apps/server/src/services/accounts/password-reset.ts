import type { TPasswordResetConfirm } from '@service/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { validationError } from '../../errors/app-error.js';
import { type MailLanguage, renderPasswordResetMail } from '../../mail/mail-templates.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { newId } from '../../security/ids.js';
import { hashPassword } from '../../security/passwords.js';
import {
  RESET_TOKEN_TTL_SECONDS,
  resetTokenKey,
  signResetToken,
  verifyResetToken,
} from '../../security/reset-token.js';
import type { SecretKeyring } from '../../security/secret-keyring.js';
import { recordAudit } from '../audit.js';
import { queueMail } from '../mail/queue-mail.js';
import { findUserByEmail } from './accounts.js';

/** What a reset request answers, whether or not the address has an account. */
export const RESET_REQUESTED_MESSAGE =
  'If an account uses this address, a mail with a link to choose a new password is on its way. The link works once, within 60 minutes.';

/** The one refusal of a reset token, whatever is wrong with it (expired, used, tampered, unknown). */
function invalidToken() {
  return validationError({
    token: ['This reset link is invalid, has expired or was already used. Ask for a new one.'],
  });
}

/**
 * Asks for a password reset. When `email` belongs to a user: a signed token valid 60 minutes
 * (its `jti` a new row, which makes it single-use) and the mail with its link are stored and
 * queued in one transaction, and audited. An unknown address does nothing; the caller answers
 * the same either way.
 */
export async function requestPasswordReset(options: {
  db: Kysely<DB>;
  queue: JobQueue;
  keys: SecretKeyring;
  appKey: Buffer;
  clock: Clock;
  email: string;
  ip: string;
  language: MailLanguage;
  /** The console's reset page for a token (built from PUBLIC_BASE_URL, never from the request). */
  linkFor: (token: string) => string;
  requestId?: string | undefined;
}): Promise<void> {
  const user = await findUserByEmail(options.db, options.email);
  if (!user) return;
  const now = options.clock.now();
  const tokenId = newId();
  const { token, expiresAt } = await signResetToken(
    resetTokenKey(options.appKey),
    { userId: user.id, tokenId },
    now,
  );
  await options.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('password_reset_tokens')
      .values({
        id: tokenId,
        user_id: user.id,
        requested_ip: options.ip.slice(0, 64),
        created_at: now,
        expires_at: expiresAt,
      })
      .execute();
    const mail = renderPasswordResetMail({
      language: options.language,
      email: user.email,
      link: options.linkFor(token),
      minutes: RESET_TOKEN_TTL_SECONDS / 60,
    });
    const mailId = await queueMail({
      db: trx,
      queue: options.queue,
      keys: options.keys,
      clock: options.clock,
      kind: 'password_reset',
      to: user.email,
      language: options.language,
      userId: user.id,
      workspaceId: user.default_workspace_id,
      mail,
    });
    if (user.default_workspace_id) {
      await recordAudit(trx, {
        workspaceId: user.default_workspace_id,
        actor: { type: 'system', id: null },
        action: 'user.password_reset_requested',
        target: { type: 'user', id: user.id },
        metadata: { ip: options.ip, mail_id: mailId, token_id: tokenId },
        requestId: options.requestId,
      });
    }
  });
}

/**
 * Sets a new password with a reset token: the token must verify (signature, issuer, audience,
 * not expired at the clock's now) and its row must exist, belong to the token's user and be
 * unused. Then, in one transaction: the password changes, every unused reset token of the user
 * is spent, every admin session of the user ends, and each of the user's workspaces gets an
 * audit record. Any problem with the token is one 422 on `token`, and nothing changes.
 */
export async function confirmPasswordReset(options: {
  db: Kysely<DB>;
  appKey: Buffer;
  clock: Clock;
  input: TPasswordResetConfirm;
  bcryptCost: number;
  ip: string;
  requestId?: string | undefined;
}): Promise<{ userId: string; sessionsEnded: number }> {
  const now = options.clock.now();
  const claims = await verifyResetToken(resetTokenKey(options.appKey), options.input.token, now);
  if (!claims) throw invalidToken();
  // Hashed before the transaction: bcrypt is slow, and the row lock below is held only briefly.
  const passwordHash = await hashPassword(options.input.password, options.bcryptCost);
  return options.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('password_reset_tokens')
      .select(['id', 'user_id', 'expires_at', 'used_at'])
      .where('id', '=', claims.tokenId)
      .forUpdate()
      .executeTakeFirst();
    if (!row || row.user_id !== claims.userId || row.used_at !== null || row.expires_at <= now)
      throw invalidToken();
    const updated = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: now })
      .where('id', '=', row.user_id)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) throw invalidToken();
    await trx
      .updateTable('password_reset_tokens')
      .set({ used_at: now })
      .where('user_id', '=', row.user_id)
      .where('used_at', 'is', null)
      .execute();
    const ended = await trx
      .deleteFrom('admin_sessions')
      .where('user_id', '=', row.user_id)
      .executeTakeFirst();
    const sessionsEnded = Number(ended.numDeletedRows);
    const memberships = await trx
      .selectFrom('memberships')
      .select('workspace_id')
      .where('user_id', '=', row.user_id)
      .execute();
    for (const { workspace_id } of memberships) {
      await recordAudit(trx, {
        workspaceId: workspace_id,
        actor: { type: 'user', id: row.user_id },
        action: 'user.password_reset',
        target: { type: 'user', id: row.user_id },
        metadata: { ip: options.ip, token_id: row.id, sessions_ended: sessionsEnded },
        requestId: options.requestId,
      });
    }
    return { userId: row.user_id, sessionsEnded };
  });
}
