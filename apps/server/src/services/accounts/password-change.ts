import type { TPasswordChange } from '@service/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { type MailLanguage, renderPasswordChangedMail } from '../../mail/mail-templates.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { hashPassword, verifyPassword } from '../../security/passwords.js';
import type { SecretKeyring } from '../../security/secret-keyring.js';
import { recordAudit } from '../audit.js';
import type { Actor } from '../context.js';
import { queueMail } from '../mail/queue-mail.js';

/**
 * Changes a signed-in user's password. The current password must match (else 422 on
 * `current_password`, and nothing changes); the new one follows the setup/reset rules (the
 * contract's schema) and must differ from it. Then, in one transaction: the hash changes, every
 * other admin session of the user ends (`keepSessionId` stays; null ends them all), the user's
 * reset links are spent, the change is audited in the workspace, and a notice is mailed.
 */
export async function changePassword(options: {
  db: Kysely<DB>;
  queue: JobQueue;
  keys: SecretKeyring;
  clock: Clock;
  workspaceId: string;
  actor: Actor;
  userId: string;
  keepSessionId: string | null;
  input: TPasswordChange;
  bcryptCost: number;
  language: MailLanguage;
  /** The console's "forgot password" page, for a change the user did not make. */
  resetLink: string;
  requestId?: string | undefined;
}): Promise<{ sessionsEnded: number }> {
  const user = await options.db
    .selectFrom('users')
    .select(['id', 'email', 'password_hash'])
    .where('id', '=', options.userId)
    .executeTakeFirst();
  if (!user) throw notFound();
  if (!(await verifyPassword(options.input.current_password, user.password_hash))) {
    throw validationError({ current_password: ['The current password is not right.'] });
  }
  if (options.input.new_password === options.input.current_password) {
    throw validationError({ new_password: ['Choose a password different from the current one.'] });
  }
  // Hashed before the transaction: bcrypt is slow, and no lock waits on it.
  const passwordHash = await hashPassword(options.input.new_password, options.bcryptCost);
  const now = options.clock.now();
  return options.db.transaction().execute(async (trx) => {
    // The hash read above must still be the stored one: two changes at once, only one wins.
    const updated = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: now })
      .where('id', '=', user.id)
      .where('password_hash', '=', user.password_hash)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      throw validationError({ current_password: ['The current password is not right.'] });
    }
    let ended = trx.deleteFrom('admin_sessions').where('user_id', '=', user.id);
    if (options.keepSessionId) ended = ended.where('id', '<>', options.keepSessionId);
    const sessionsEnded = Number((await ended.executeTakeFirst()).numDeletedRows);
    await trx
      .updateTable('password_reset_tokens')
      .set({ used_at: now })
      .where('user_id', '=', user.id)
      .where('used_at', 'is', null)
      .execute();
    const mailId = await queueMail({
      db: trx,
      queue: options.queue,
      keys: options.keys,
      clock: options.clock,
      kind: 'password_changed',
      to: user.email,
      language: options.language,
      userId: user.id,
      workspaceId: options.workspaceId,
      mail: renderPasswordChangedMail({
        language: options.language,
        email: user.email,
        link: options.resetLink,
        changedAt: now,
      }),
    });
    await recordAudit(trx, {
      workspaceId: options.workspaceId,
      actor: options.actor,
      action: 'user.password_changed',
      target: { type: 'user', id: user.id },
      metadata: { sessions_ended: sessionsEnded, mail_id: mailId },
      requestId: options.requestId,
    });
    return { sessionsEnded };
  });
}
