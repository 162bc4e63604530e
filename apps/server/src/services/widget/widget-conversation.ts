import { type Kysely, type RawBuilder, sql } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { DB } from '../../db/schema.js';
import type { ChatMessage } from '../../llm/llm-provider.js';
import { newId } from '../../security/ids.js';
import { messageLimitSql, usagePeriod } from '../billing/plan-limits.js';
import { eventInsertSql, eventPreview } from '../events/admin-events.js';
import type { WidgetCaller } from './widget-caller.js';

/** Earlier messages a model sees with a new question. */
const HISTORY_MESSAGES = 12;
/** Characters of each earlier message a model sees. */
export const HISTORY_MESSAGE_CHARS = 2000;

/**
 * A visitor's stored message, the conversation before it, and what the caller asked to read with
 * them; `accepted` false: the workspace is at its monthly message limit and nothing was stored.
 */
export type RecordedQuestion<Extra> = { id: string; accepted: boolean; history: ChatMessage[]; extra: Extra };

/**
 * Stores a visitor's message and moves the conversation's activity with it, and reads the
 * conversation before it as model turns (operator replies count as the assistant's), plus the
 * `extra` values (scalar subqueries, such as the workspace's model key or the agent's coupons):
 * one statement, one round trip to the store. The reads see the store as it was before the
 * insert, so the history never holds the new message.
 *
 * The same statement counts the message against the workspace's plan: this month's counter goes
 * up only while it is below the limit (the upsert's `where` is evaluated on the locked row, so
 * concurrent messages never overshoot), and the message is stored only when it was counted.
 */
export async function recordVisitorQuestion<Extra extends Record<string, unknown>>(
  db: Kysely<DB>,
  caller: WidgetCaller,
  content: string,
  now: Date,
  extra: { [K in keyof Extra]: RawBuilder<Extra[K]> },
): Promise<RecordedQuestion<Extra>> {
  const id = newId();
  const names = Object.keys(extra);
  const extras = names.map((name) => sql`${extra[name]} as ${sql.id(name)}`);
  const limit = messageLimitSql(caller.workspaceId);
  const statement = prepared(sql<{ history: { role: string; content: string }[]; accepted: boolean } & Extra>`
    with counted as (
      insert into workspace_usage (workspace_id, period, visitor_messages)
      select ${caller.workspaceId}, ${usagePeriod(now)}, 1
      where coalesce(${limit} > 0, true)
      on conflict (workspace_id, period) do update
        set visitor_messages = workspace_usage.visitor_messages + 1
        where coalesce(workspace_usage.visitor_messages < ${limit}, true)
      returning 1
    ), message as (
      insert into messages (id, workspace_id, conversation_id, role, content, created_at)
      select ${id}, ${caller.workspaceId}, ${caller.conversation.id}, 'visitor', ${content}, ${now}
      from counted
      returning conversation_id
    ), activity as (
      -- greatest(): the newest visitor message's time even when instances' clocks disagree.
      update conversations set last_message_at = ${now},
        last_visitor_message_at = greatest(last_visitor_message_at, ${now}), updated_at = ${now},
        visitor_typing_at = null
      where id = (select conversation_id from message)
      returning id
    ), admin_event as (
      ${eventInsertSql(
        caller.workspaceId,
        {
          type: 'message.created',
          at: now.toISOString(),
          conversation_id: caller.conversation.id,
          agent_id: caller.agent.id,
          message_id: id,
          role: 'visitor',
          preview: eventPreview(content),
          author_user_id: null,
        },
        'message',
      )}
    )
    select coalesce((
        select jsonb_agg(jsonb_build_object('role', h.role, 'content', h.content) order by h.id)
        from (
          select m.id, m.role, m.content from messages m
          where m.conversation_id = ${caller.conversation.id} and m.id < ${id}
            and m.role in ('visitor', 'assistant', 'operator')
          order by m.id desc
          limit ${HISTORY_MESSAGES}
        ) as h), '[]'::jsonb) as history,
      exists (select 1 from counted) as accepted
      ${extras.length > 0 ? sql`, ${sql.join(extras)}` : sql``}`);
  const { rows } = await statement.execute(db);
  const row = rows[0];
  if (!row) throw new Error('recording the question returned no row');
  const history = row.history.map((message): ChatMessage => {
    const text = message.content.slice(0, HISTORY_MESSAGE_CHARS);
    return message.role === 'visitor'
      ? { role: 'user', content: text }
      : { role: 'assistant', content: text };
  });
  const values = Object.fromEntries(names.map((name) => [name, row[name]])) as Extra;
  return { id, accepted: row.accepted, history, extra: values };
}
