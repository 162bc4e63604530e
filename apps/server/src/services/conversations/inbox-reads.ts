import { INBOX_FILTERS, type TInboxCounts } from '@service/contract';
import { sql } from 'kysely';
import { notFound } from '../../errors/app-error.js';
import { actingUserId, type TenantScope } from '../context.js';
import { filterCondition, unreadAgainst } from './conversation-inbox.js';

/**
 * Every inbox filter's total and the caller's unread count, in one pass over the workspace's
 * conversations (optionally one agent's). A token acting for no user has nothing unread.
 */
export async function countInbox(
  options: Pick<TenantScope, 'db' | 'workspaceId' | 'actor'> & { agentId?: string | undefined },
): Promise<TInboxCounts> {
  const userId = actingUserId(options.actor);
  // The caller's read marks joined once (not probed per conversation and filter).
  const unread = userId === null ? sql<boolean>`false` : unreadAgainst(sql`r.last_read_message_at`);
  let query = options.db
    .selectFrom('conversations as c')
    .$if(userId !== null, (q) =>
      q.leftJoin('conversation_reads as r', (join) =>
        join.onRef('r.conversation_id', '=', 'c.id').on('r.user_id', '=', userId ?? ''),
      ),
    )
    .select(
      INBOX_FILTERS.flatMap((filter) => {
        const condition = filterCondition(filter, userId);
        return [
          sql<number>`count(*) filter (where ${condition})::int`.as(`${filter}_total`),
          sql<number>`count(*) filter (where ${condition} and ${unread})::int`.as(`${filter}_unread`),
        ];
      }),
    )
    .where('c.workspace_id', '=', options.workspaceId);
  if (options.agentId !== undefined) query = query.where('c.agent_id', '=', options.agentId);
  const row: Record<string, number> = await query.executeTakeFirstOrThrow();
  const count = (filter: string) => ({
    total: row[`${filter}_total`] ?? 0,
    unread: row[`${filter}_unread`] ?? 0,
  });
  return {
    waiting: count('waiting'),
    open: count('open'),
    mine: count('mine'),
    closed: count('closed'),
    all: count('all'),
  };
}

/**
 * Marks a conversation read by the calling user up to its newest message (a read mark only
 * moves forward). Another workspace's conversation is a 404; a token acting for no user has no
 * read marks, so nothing is stored for it.
 */
export async function markConversationRead(
  options: Pick<TenantScope, 'db' | 'workspaceId' | 'actor'> & { conversationId: string },
): Promise<void> {
  const found = await options.db
    .selectFrom('conversations as c')
    .select([
      'c.id',
      sql<Date>`coalesce((select max(m.created_at) from messages m where m.conversation_id = c.id), c.created_at)`.as(
        'newest',
      ),
    ])
    .where('c.workspace_id', '=', options.workspaceId)
    .where('c.id', '=', options.conversationId)
    .executeTakeFirst();
  if (!found) throw notFound();
  const userId = actingUserId(options.actor);
  if (userId === null) return;
  await options.db
    .insertInto('conversation_reads')
    .values({
      user_id: userId,
      conversation_id: found.id,
      workspace_id: options.workspaceId,
      last_read_message_at: found.newest,
    })
    .onConflict((conflict) =>
      conflict.columns(['user_id', 'conversation_id']).doUpdateSet({
        last_read_message_at: sql`greatest(conversation_reads.last_read_message_at, excluded.last_read_message_at)`,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}
