import type { ZSatisfaction, ZWidgetEvent } from '@service/contract';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { DB } from '../../db/schema.js';
import type { ConversationStatus } from '../../db/schema-conversations.js';
import { notFound } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { issueWidgetToken, type WidgetTokenKey } from '../../security/widget-token.js';
import { recordAudit } from '../audit.js';
import { type HandoffNotify, notifyHandoffRequested } from '../conversations/handoff-notify.js';
import { eraseVisitorLeads } from '../conversations/leads.js';
import { publishEvent, publishTyping } from '../events/admin-events.js';
import { publishConversationUpdated, publishHandoffRequested } from '../events/conversation-events.js';
import { recordTurnQuestion } from './turn-questions.js';
import type { WidgetCaller } from './widget-caller.js';

/**
 * The visitor asks for a human: an open conversation becomes `waiting` (operators see it in
 * their queue), and its last answered question is kept for the operators (`handoff`).
 * With `notify`, the team is told in the same transaction (handoff webhooks, the delayed mail).
 * Idempotent: asking again, or while an operator already holds it, changes nothing.
 */
export async function requestHuman(
  db: Kysely<DB>,
  caller: WidgetCaller,
  now: Date,
  notify?: HandoffNotify,
): Promise<ConversationStatus> {
  const updated = await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('conversations')
      .set({ status: 'waiting', human_requested_at: now, updated_at: now })
      .where('id', '=', caller.conversation.id)
      .where('status', '=', 'open')
      .returning('status')
      .executeTakeFirst();
    if (row) {
      await recordTurnQuestion(trx, {
        id: newId(),
        workspaceId: caller.workspaceId,
        conversationId: caller.conversation.id,
        reason: 'handoff',
        now,
      });
      await publishHandoffRequested(trx, caller.workspaceId, caller.conversation.id, now);
      if (notify) {
        await notifyHandoffRequested(trx, notify, {
          workspaceId: caller.workspaceId,
          conversationId: caller.conversation.id,
          now,
        });
      }
    }
    return row;
  });
  if (updated) return updated.status;
  const current = await db
    .selectFrom('conversations')
    .select('status')
    .where('id', '=', caller.conversation.id)
    .executeTakeFirstOrThrow();
  return current.status;
}

/** Stores one behaviour event of the conversation. */
export async function recordWidgetEvent(
  db: Kysely<DB>,
  caller: WidgetCaller,
  event: z.output<typeof ZWidgetEvent>,
): Promise<void> {
  await db
    .insertInto('widget_events')
    .values({
      id: newId(),
      workspace_id: caller.workspaceId,
      agent_id: caller.agent.id,
      conversation_id: caller.conversation.id,
      kind: event.kind,
      data: JSON.stringify(event.data),
    })
    .execute();
}

/** Records that the visitor is (or stopped) typing; operators see it for a few seconds. */
export async function recordTyping(
  db: Kysely<DB>,
  caller: WidgetCaller,
  typing: boolean,
  now: Date,
): Promise<void> {
  await db
    .updateTable('conversations')
    .set({ visitor_typing_at: typing ? now : null })
    .where('id', '=', caller.conversation.id)
    .execute();
  // Operators' streams see it at once (not stored); the column stays for the polling inbox.
  await publishTyping(db, caller.workspaceId, {
    type: 'typing',
    at: now.toISOString(),
    conversation_id: caller.conversation.id,
    agent_id: caller.agent.id,
    who: 'visitor',
    user_id: null,
    typing,
  });
}

/** The stored rating of a conversation. */
export type SatisfactionState = { rating: 'up' | 'down'; comment: string | null };

/**
 * Records satisfaction: the first rating sticks; a later call may only add or change the comment.
 * A rating down keeps the rated answer (`message_id`, else the conversation's last answer) for
 * the operators with its chunks (`rated_down`); a `message_id` that is not an answer of this
 * conversation is 404 and stores nothing.
 */
export async function recordSatisfaction(
  db: Kysely<DB>,
  caller: WidgetCaller,
  input: z.output<typeof ZSatisfaction>,
  now: Date,
): Promise<SatisfactionState> {
  if (input.rating === 'down') {
    const found = await recordTurnQuestion(db, {
      id: newId(),
      workspaceId: caller.workspaceId,
      conversationId: caller.conversation.id,
      reason: 'rated_down',
      messageId: input.message_id,
      now,
    });
    if (!found && input.message_id !== undefined) throw notFound();
  } else if (input.message_id !== undefined) {
    const answer = await db
      .selectFrom('messages')
      .select('id')
      .where('id', '=', input.message_id)
      .where('conversation_id', '=', caller.conversation.id)
      .where('role', '=', 'assistant')
      .executeTakeFirst();
    if (!answer) throw notFound();
  }
  const row = await db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('conversations')
      .select(['satisfaction_rating', 'satisfaction_comment'])
      .where('id', '=', caller.conversation.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const rating = current.satisfaction_rating ?? (input.rating === 'up' ? 1 : -1);
    const comment =
      input.comment !== undefined && input.comment !== '' ? input.comment : current.satisfaction_comment;
    return trx
      .updateTable('conversations')
      .set({
        satisfaction_rating: rating,
        satisfaction_comment: comment,
        ...(current.satisfaction_rating === null ? { satisfaction_at: now } : {}),
        updated_at: now,
      })
      .where('id', '=', caller.conversation.id)
      .returning(['satisfaction_rating', 'satisfaction_comment'])
      .executeTakeFirstOrThrow();
  });
  return { rating: (row.satisfaction_rating ?? 0) > 0 ? 'up' : 'down', comment: row.satisfaction_comment };
}

/** Closes the current conversation and starts a new one for the same visitor, with its own token. */
export async function clearConversation(
  db: Kysely<DB>,
  caller: WidgetCaller,
  key: WidgetTokenKey,
  now: Date,
): Promise<{ token: string; expires_at: string; conversation_id: string }> {
  const conversationId = newId();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('conversations')
      .set({ status: 'closed', updated_at: now, visitor_typing_at: null })
      .where('id', '=', caller.conversation.id)
      .execute();
    await trx
      .insertInto('conversations')
      .values({
        id: conversationId,
        workspace_id: caller.workspaceId,
        agent_id: caller.agent.id,
        visitor_id: caller.conversation.visitor_id,
        page_url: caller.conversation.page_url,
        page_title: caller.conversation.page_title,
        referrer: caller.conversation.referrer,
        shopper_wp_user_id: caller.conversation.shopper_wp_user_id,
        shopper_email_hash: caller.conversation.shopper_email_hash,
        shopper_verified_at: caller.conversation.shopper_verified_at,
      })
      .execute();
    await publishConversationUpdated(trx, caller.workspaceId, caller.conversation.id, now);
    await publishEvent(trx, caller.workspaceId, {
      type: 'conversation.created',
      at: now.toISOString(),
      conversation_id: conversationId,
      agent_id: caller.agent.id,
    });
  });
  const issued = await issueWidgetToken(
    key,
    {
      agent_id: caller.agent.id,
      visitor_id: caller.conversation.visitor_id,
      conversation_id: conversationId,
    },
    now,
  );
  return { token: issued.token, expires_at: issued.expiresAt.toISOString(), conversation_id: conversationId };
}

/**
 * Erases the visitor (`DELETE /v1/widget/me`): their leads and the webhook deliveries about
 * them, then the visitor, whose conversations, messages, answer turns and events go with it
 * (foreign-key cascades). The audit record names only the visitor id.
 */
export async function eraseVisitor(db: Kysely<DB>, caller: WidgetCaller): Promise<void> {
  const visitorId = caller.conversation.visitor_id;
  await db.transaction().execute(async (trx) => {
    await eraseVisitorLeads({ db: trx, workspaceId: caller.workspaceId, visitorId });
    await trx
      .deleteFrom('visitors')
      .where('id', '=', visitorId)
      .where('workspace_id', '=', caller.workspaceId)
      .execute();
    await recordAudit(trx, {
      workspaceId: caller.workspaceId,
      actor: { type: 'system', id: null },
      action: 'visitor.erased',
      target: { type: 'visitor', id: visitorId },
      metadata: { agent_id: caller.agent.id, requested_by: 'visitor' },
    });
  });
}
