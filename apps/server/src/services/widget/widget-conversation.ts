import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ChatMessage } from '../../llm/llm-provider.js';
import { newId } from '../../security/ids.js';
import type { WidgetCaller } from './widget-caller.js';

/** Earlier messages a model sees with a new question. */
const HISTORY_MESSAGES = 12;
/** Characters of each earlier message a model sees. */
export const HISTORY_MESSAGE_CHARS = 2000;

/** Stores a visitor's message and returns its id. */
export async function recordVisitorMessage(
  db: Kysely<DB>,
  caller: WidgetCaller,
  content: string,
  now: Date,
): Promise<string> {
  const id = newId();
  // One statement: the message and the conversation's activity move together.
  await sql`
    with message as (
      insert into messages (id, workspace_id, conversation_id, role, content, created_at)
      values (${id}, ${caller.workspaceId}, ${caller.conversation.id}, 'visitor', ${content}, ${now})
      returning conversation_id
    )
    update conversations set last_message_at = ${now}, updated_at = ${now}, visitor_typing_at = null
    where id = (select conversation_id from message)`.execute(db);
  return id;
}

/** The conversation before `beforeMessageId`, as model turns (operator replies count as the assistant's). */
export async function modelHistory(
  db: Kysely<DB>,
  caller: WidgetCaller,
  beforeMessageId: string,
): Promise<ChatMessage[]> {
  const rows = await db
    .selectFrom('messages')
    .select(['role', 'content'])
    .where('conversation_id', '=', caller.conversation.id)
    .where('id', '<', beforeMessageId)
    .where('role', 'in', ['visitor', 'assistant', 'operator'])
    .orderBy('id', 'desc')
    .limit(HISTORY_MESSAGES)
    .execute();
  return rows.reverse().map((row): ChatMessage => {
    const content = row.content.slice(0, HISTORY_MESSAGE_CHARS);
    return row.role === 'visitor' ? { role: 'user', content } : { role: 'assistant', content };
  });
}
