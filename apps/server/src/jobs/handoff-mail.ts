import { MEMBERSHIP_ROLES, roleCan } from '@service/contract';
import { MAIL_LANGUAGES, type MailLanguage, renderHandoffMail } from '../mail/mail-templates.js';
import { defineJob, type JobContextOf } from '../queue/job-queue.js';
import { handoffMailSpec } from '../queue/job-specs.js';
import { createSecretKeyring } from '../security/secret-keyring.js';
import { lastVisitorMessage } from '../services/conversations/handoff-notify.js';
import { queueMail } from '../services/mail/queue-mail.js';

/** What the handoff mail uses of its job context. */
type HandoffMailContext = JobContextOf<'queue' | 'appKey' | 'appKeyPrevious' | 'clock'>;

/** The mail kind of the handoff mail (mail_messages.kind). */
export const HANDOFF_MAIL_KIND = 'handoff_waiting';

const REPLYING_ROLES = MEMBERSHIP_ROLES.filter((role) => roleCan(role, 'conversations.reply'));

/**
 * Runs HANDOFF_MAIL_AFTER_SECONDS after a visitor asked for a human. When the conversation is
 * still `waiting` from that same request (not claimed, closed or released and asked again),
 * mails every member of the workspace whose role may reply, in one transaction: the agent, the
 * visitor's last message (escaped by the layout) and a button to the console conversation.
 * Anything else (claimed, closed, gone) sends nothing. `handoff_mailed_at` is set with the
 * mails, so one request mails at most once whatever runs the job again.
 */
export const handoffMailJob = defineJob({
  ...handoffMailSpec,
  async handle({ conversationId, requestedAt, consoleUrl }, context: HandoffMailContext) {
    const keys = createSecretKeyring(context.appKey, context.appKeyPrevious);
    const sent = await context.db.transaction().execute(async (trx) => {
      // Claims the mail for this request: still waiting from the same request, not mailed yet.
      const claimed = await trx
        .updateTable('conversations')
        .set({ handoff_mailed_at: context.clock.now() })
        .where('id', '=', conversationId)
        .where('status', '=', 'waiting')
        .where('human_requested_at', '=', new Date(requestedAt))
        .where((eb) =>
          eb.or([
            eb('handoff_mailed_at', 'is', null),
            eb('handoff_mailed_at', '<', eb.ref('human_requested_at')),
          ]),
        )
        .returning('id')
        .executeTakeFirst();
      if (!claimed) return 0;
      const conversation = await trx
        .selectFrom('conversations as c')
        .innerJoin('agents as a', 'a.id', 'c.agent_id')
        .innerJoin('workspaces as w', 'w.id', 'c.workspace_id')
        .select(['c.id', 'c.workspace_id'])
        .select(['a.name as agent_name', 'a.language_default', 'w.name as workspace_name'])
        .where('c.id', '=', conversationId)
        .executeTakeFirstOrThrow();
      const members = await trx
        .selectFrom('memberships as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.email'])
        .where('m.workspace_id', '=', conversation.workspace_id)
        .where('m.role', 'in', REPLYING_ROLES)
        .orderBy('u.id')
        .execute();
      const message = await lastVisitorMessage(trx, conversation.id);
      const language = mailLanguage(conversation.language_default);
      const requested = new Date(requestedAt);
      const minutes = Math.max(1, Math.round((context.clock.now().getTime() - requested.getTime()) / 60_000));
      for (const member of members) {
        await queueMail({
          db: trx,
          queue: context.queue,
          keys,
          clock: context.clock,
          kind: HANDOFF_MAIL_KIND,
          to: member.email,
          language,
          userId: member.id,
          workspaceId: conversation.workspace_id,
          mail: renderHandoffMail({
            language,
            workspace: conversation.workspace_name,
            agent: conversation.agent_name,
            message,
            link: consoleUrl,
            requestedAt: requested,
            minutes,
          }),
        });
      }
      return members.length;
    });
    if (sent > 0) context.log.info({ conversationId, mails: sent }, 'handoff not claimed: operators mailed');
  },
});

function mailLanguage(language: string | null): MailLanguage {
  const base = (language ?? '').toLowerCase().split('-')[0];
  return MAIL_LANGUAGES.find((candidate) => candidate === base) ?? 'en';
}
