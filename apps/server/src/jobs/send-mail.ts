import { z } from 'zod';
import { defineJob, type JobContextOf } from '../queue/job-queue.js';
import { SEND_MAIL_RETRY_LIMIT, sendMailSpec } from '../queue/job-specs.js';
import { createSecretKeyring } from '../security/secret-keyring.js';
import { MAIL_BODY_PURPOSE } from '../services/mail/queue-mail.js';

/** What a send uses of its job context. */
type SendContext = JobContextOf<'mailer' | 'appKey' | 'appKeyPrevious' | 'clock'>;

const ZBodies = z.object({ text: z.string(), html: z.string() });

/** URLs in a plain-text body (what the outbox log line names, so a newcomer can follow them). */
function linksOf(text: string): string[] {
  return [...text.matchAll(/https?:\/\/\S+/g)].map((match) => match[0]);
}

/**
 * Sends one stored mail through the process's mailer: over SMTP, or into DATA_DIR/outbox/ with
 * the file and the mail's links logged. Success marks it `sent` and drops its sealed bodies. A
 * failure records `attempts` and `last_error` and is retried with backoff; the last failing
 * attempt marks it `failed`, logged at error level. A mail already sent, failed or gone is left
 * alone, so a second run changes nothing.
 */
export const sendMailJob = defineJob({
  ...sendMailSpec,
  async handle({ mailId }, context: SendContext) {
    const row = await context.db
      .selectFrom('mail_messages')
      .select(['id', 'kind', 'to_address', 'subject', 'body_sealed', 'status'])
      .where('id', '=', mailId)
      .executeTakeFirst();
    if (row?.status !== 'pending' || row.body_sealed === null) return;
    const isLast = context.attempt > SEND_MAIL_RETRY_LIMIT;
    const mailer = context.mailer;
    if (!mailer) throw new Error('this worker has no mailer: the mail waits for one that has');
    const keys = createSecretKeyring(context.appKey, context.appKeyPrevious);
    let bodies: z.infer<typeof ZBodies>;
    try {
      bodies = ZBodies.parse(JSON.parse(keys.open(row.body_sealed, MAIL_BODY_PURPOSE, row.id)));
    } catch {
      // Sealed by a key this process no longer has (APP_KEY rotated away): no retry can help.
      await recordFailure(context, mailId, 'the stored mail cannot be opened with APP_KEY', true);
      context.log.error({ mailId, kind: row.kind }, 'mail failed: its body cannot be opened');
      return;
    }
    try {
      const sent = await mailer.send({
        id: row.id,
        to: row.to_address,
        subject: row.subject,
        text: bodies.text,
        html: bodies.html,
      });
      const now = context.clock.now();
      await context.db
        .updateTable('mail_messages')
        .set((eb) => ({
          status: 'sent',
          attempts: eb('attempts', '+', 1),
          body_sealed: null,
          last_error: null,
          transport: sent.transport,
          outbox_file: sent.transport === 'outbox' ? sent.file : null,
          sent_at: now,
          updated_at: now,
        }))
        .where('id', '=', mailId)
        .execute();
      if (sent.transport === 'outbox') {
        // No SMTP_URL: the outbox file is where the mail is; its links are what a newcomer needs.
        context.log.warn(
          { mailId, kind: row.kind, to: row.to_address, outboxFile: sent.file, links: linksOf(bodies.text) },
          `mail written to the outbox (no SMTP_URL): ${sent.file}; links: ${linksOf(bodies.text).join(' ')}`,
        );
      } else {
        context.log.info({ mailId, kind: row.kind }, 'mail sent');
      }
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
      await recordFailure(context, mailId, reason, isLast);
      if (isLast) {
        context.log.error({ mailId, kind: row.kind, attempt: context.attempt, error: reason }, 'mail failed');
        return;
      }
      context.log.warn(
        { mailId, kind: row.kind, attempt: context.attempt, error: reason },
        'mail not sent; retrying',
      );
      throw new Error(`mail ${mailId} not sent: ${reason}`);
    }
  },
  async giveUp({ mailId }, { db, clock }, reason) {
    // The last attempt ran out of time or was interrupted: the mail would stay `pending`.
    const failed = await db
      .updateTable('mail_messages')
      .set({ status: 'failed', last_error: `the send ${reason}`, updated_at: clock.now() })
      .where('id', '=', mailId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(failed.numUpdatedRows) > 0;
  },
});

async function recordFailure(context: SendContext, mailId: string, error: string, isFinal: boolean) {
  await context.db
    .updateTable('mail_messages')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      last_error: error,
      updated_at: context.clock.now(),
      ...(isFinal ? { status: 'failed' as const, body_sealed: null } : {}),
    }))
    .where('id', '=', mailId)
    .where('status', '=', 'pending')
    .execute();
}
