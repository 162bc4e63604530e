import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { MessageRole } from '../../db/schema-conversations.js';
import { eventPreview } from './admin-events.js';

/*
 * The conversation events, stored (and notified by the insert's trigger) in the caller's
 * transaction, each in one statement that reads the conversation as it is now: call them after
 * the change, inside its transaction. Exported for every writer of conversations (claim, release,
 * close, request-human, messages).
 */

/** `conversation.updated`: the conversation's status and claim as they are now in `trx`. */
export async function publishConversationUpdated(
  trx: Queryable,
  workspaceId: string,
  conversationId: string,
  now: Date,
): Promise<void> {
  await sql`
    insert into admin_events (workspace_id, type, payload, created_at)
    select c.workspace_id, 'conversation.updated', jsonb_build_object(
      'type', 'conversation.updated', 'at', ${now.toISOString()}::text,
      'conversation_id', c.id, 'agent_id', c.agent_id,
      'status', c.status, 'claimed_by_user_id', c.claimed_by_user_id
    ), ${now}::timestamptz
    from conversations c where c.workspace_id = ${workspaceId} and c.id = ${conversationId}`.execute(trx);
}

/**
 * `conversation.handoff_requested` (with the visitor's last message as preview) and the
 * `conversation.updated` to `waiting` it goes with.
 */
export async function publishHandoffRequested(
  trx: Queryable,
  workspaceId: string,
  conversationId: string,
  now: Date,
): Promise<void> {
  await publishConversationUpdated(trx, workspaceId, conversationId, now);
  await sql`
    insert into admin_events (workspace_id, type, payload, created_at)
    select c.workspace_id, 'conversation.handoff_requested', jsonb_build_object(
      'type', 'conversation.handoff_requested', 'at', ${now.toISOString()}::text,
      'conversation_id', c.id, 'agent_id', c.agent_id,
      'preview', (select left(m.content, 200) from messages m
        where m.conversation_id = c.id and m.role = 'visitor' order by m.id desc limit 1)
    ), ${now}::timestamptz
    from conversations c where c.workspace_id = ${workspaceId} and c.id = ${conversationId}`.execute(trx);
}

/** `message.created` for a stored message of the conversation. */
export async function publishMessageCreated(
  trx: Queryable,
  workspaceId: string,
  message: {
    id: string;
    conversationId: string;
    role: MessageRole;
    content: string;
    authorUserId: string | null;
  },
  now: Date,
): Promise<void> {
  await sql`
    insert into admin_events (workspace_id, type, payload, created_at)
    select c.workspace_id, 'message.created', jsonb_build_object(
      'type', 'message.created', 'at', ${now.toISOString()}::text,
      'conversation_id', c.id, 'agent_id', c.agent_id, 'message_id', ${message.id}::text,
      'role', ${message.role}::text, 'preview', ${eventPreview(message.content)}::text,
      'author_user_id', ${message.authorUserId}::text
    ), ${now}::timestamptz
    from conversations c where c.workspace_id = ${workspaceId} and c.id = ${message.conversationId}`.execute(
    trx,
  );
}
