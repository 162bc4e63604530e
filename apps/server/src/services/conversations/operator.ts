import type { TConversationMessage, TConversationSummary } from '@service/contract';
import { sql, type Updateable } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { ConversationRow, ConversationsTable } from '../../db/schema-conversations.js';
import { AppError, notFound } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { type Actor, actingUserId, type TenantScope } from '../context.js';
import { publishConversationUpdated, publishMessageCreated } from '../events/conversation-events.js';
import { summaryQuery, toMessage, toSummary } from './conversation-inbox.js';

/** A write scope: the caller acts as the user behind its token. */
type WriteScope = TenantScope & { conversationId: string };

/** The chat engine stays silent while an operator holds the conversation. */
export function isBotSilenced(conversation: Pick<ConversationRow, 'status'>): boolean {
  return conversation.status === 'claimed';
}

/**
 * Claims an open or waiting conversation for the caller's user (the bot falls silent). Claiming
 * one the caller already holds changes nothing; one held by another user, or closed, is a 409.
 */
export async function claimConversation(options: WriteScope): Promise<TConversationSummary> {
  const userId = operatorUserId(options.actor);
  return options.db.transaction().execute(async (trx) => {
    const current = await lockConversation(trx, options);
    if (current.status === 'claimed' && current.claimed_by_user_id === userId) {
      return readSummary(trx, options);
    }
    if (current.status === 'claimed') {
      throw new AppError('conflict', { message: 'Another operator has already claimed this conversation.' });
    }
    if (current.status === 'closed') {
      throw new AppError('conflict', { message: 'A closed conversation cannot be claimed.' });
    }
    const claimedAt = options.clock.now();
    await updateConversation(trx, options, {
      status: 'claimed',
      claimed_by_user_id: userId,
      claimed_at: claimedAt,
    });
    await audit(trx, options, 'conversation.claimed', { previous_status: current.status });
    await publishConversationUpdated(trx, options.workspaceId, options.conversationId, claimedAt);
    return readSummary(trx, options);
  });
}

/** Stores an operator reply; only the user holding the claim may send one (else 409). Audited. */
export async function sendOperatorMessage(
  options: WriteScope & { content: string },
): Promise<TConversationMessage> {
  const userId = operatorUserId(options.actor);
  return options.db.transaction().execute(async (trx) => {
    const current = await lockConversation(trx, options);
    if (current.status !== 'claimed' || current.claimed_by_user_id !== userId) {
      const message =
        current.status === 'claimed'
          ? 'Another operator holds this conversation; only they can reply.'
          : 'Claim this conversation before replying.';
      throw new AppError('conflict', { message });
    }
    const message = await trx
      .insertInto('messages')
      .values({
        id: newId(),
        workspace_id: options.workspaceId,
        conversation_id: options.conversationId,
        role: 'operator',
        content: options.content,
        author_user_id: userId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await updateConversation(trx, options, { last_message_at: message.created_at });
    await audit(trx, options, 'conversation.operator_replied', {
      message_id: message.id,
      length: message.content.length,
    });
    await publishMessageCreated(
      trx,
      options.workspaceId,
      {
        id: message.id,
        conversationId: options.conversationId,
        role: 'operator',
        content: message.content,
        authorUserId: userId,
      },
      options.clock.now(),
    );
    return toMessage(message);
  });
}

/**
 * Hands a claimed or waiting conversation back to the bot (status open, claim cleared). Any
 * admin of the workspace may release; releasing an open conversation changes nothing; a closed one is a 409.
 */
export async function releaseConversation(options: WriteScope): Promise<TConversationSummary> {
  return options.db.transaction().execute(async (trx) => {
    const current = await lockConversation(trx, options);
    if (current.status === 'open' && current.claimed_by_user_id === null) return readSummary(trx, options);
    if (current.status === 'closed') {
      throw new AppError('conflict', { message: 'A closed conversation cannot be released.' });
    }
    await updateConversation(trx, options, { status: 'open', claimed_by_user_id: null, claimed_at: null });
    await audit(trx, options, 'conversation.released', {
      previous_status: current.status,
      previous_claimed_by_user_id: current.claimed_by_user_id,
    });
    await publishConversationUpdated(trx, options.workspaceId, options.conversationId, options.clock.now());
    return readSummary(trx, options);
  });
}

/**
 * Closes a conversation in any other status (the claim is cleared; the bot stays silent because
 * the widget's token no longer resolves a closed conversation, and its next poll says so).
 * Closing a closed conversation changes nothing. Audited.
 */
export async function closeConversation(options: WriteScope): Promise<TConversationSummary> {
  return options.db.transaction().execute(async (trx) => {
    const current = await lockConversation(trx, options);
    if (current.status === 'closed') return readSummary(trx, options);
    await updateConversation(trx, options, {
      status: 'closed',
      claimed_by_user_id: null,
      claimed_at: null,
      visitor_typing_at: null,
    });
    await audit(trx, options, 'conversation.closed', {
      previous_status: current.status,
      previous_claimed_by_user_id: current.claimed_by_user_id,
    });
    return readSummary(trx, options);
  });
}

/** The user an admin token acts for; a token without one cannot take over conversations. */
function operatorUserId(actor: Actor): string {
  const userId = actingUserId(actor);
  if (!userId) throw new AppError('forbidden', { message: 'This token does not act for a user.' });
  return userId;
}

async function lockConversation(trx: Queryable, options: WriteScope) {
  const row = await trx
    .selectFrom('conversations')
    .select(['id', 'status', 'claimed_by_user_id'])
    .where('workspace_id', '=', options.workspaceId)
    .where('id', '=', options.conversationId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

async function updateConversation(
  trx: Queryable,
  options: WriteScope,
  values: Updateable<ConversationsTable>,
) {
  await trx
    .updateTable('conversations')
    .set({ ...values, updated_at: sql`now()` })
    .where('workspace_id', '=', options.workspaceId)
    .where('id', '=', options.conversationId)
    .execute();
}

async function readSummary(trx: Queryable, options: WriteScope): Promise<TConversationSummary> {
  const row = await summaryQuery(trx, options.workspaceId, options.clock.now())
    .where('c.id', '=', options.conversationId)
    .executeTakeFirstOrThrow();
  return toSummary(row);
}

async function audit(trx: Queryable, options: WriteScope, action: string, metadata: Record<string, unknown>) {
  await recordAudit(trx, {
    workspaceId: options.workspaceId,
    actor: options.actor,
    action,
    target: { type: 'conversation', id: options.conversationId },
    metadata,
    requestId: options.requestId,
  });
}
