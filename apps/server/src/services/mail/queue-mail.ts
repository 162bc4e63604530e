import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { RenderedMail } from '../../mail/mail-templates.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { sendMailSpec } from '../../queue/job-specs.js';
import { newId } from '../../security/ids.js';
import type { SecretKeyring } from '../../security/secret-keyring.js';

/** The sealing purpose of a stored mail's bodies (context: the mail's id). */
export const MAIL_BODY_PURPOSE = 'mail-body';

/**
 * Stores a rendered mail (its bodies sealed with APP_KEY: a reset mail holds a live link) and
 * queues its `send-mail` job, both on `db`: inside the caller's transaction, the mail exists
 * exactly when the change it tells of commits. Returns the mail's id.
 */
export async function queueMail(options: {
  db: Queryable;
  queue: JobQueue;
  keys: SecretKeyring;
  clock: Clock;
  kind: string;
  to: string;
  language: string;
  userId?: string | null;
  workspaceId?: string | null;
  mail: RenderedMail;
}): Promise<string> {
  const id = newId();
  const now = options.clock.now();
  await options.db
    .insertInto('mail_messages')
    .values({
      id,
      kind: options.kind,
      user_id: options.userId ?? null,
      workspace_id: options.workspaceId ?? null,
      to_address: options.to,
      language: options.language,
      subject: options.mail.subject,
      body_sealed: options.keys.seal(
        JSON.stringify({ text: options.mail.text, html: options.mail.html }),
        MAIL_BODY_PURPOSE,
        id,
      ),
      created_at: now,
      updated_at: now,
    })
    .execute();
  await options.queue.send(sendMailSpec, { mailId: id }, { key: id, db: options.db });
  return id;
}
