import type { TConversationNote, TTimelineEntry } from '@service/contract';
import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import { iso } from '../context.js';

/** Audit actions of a conversation that show on its timeline, and the entry each becomes. */
const TIMELINE_ACTIONS = {
  'conversation.claimed': 'claimed',
  'conversation.released': 'released',
  'conversation.closed': 'closed',
} as const;

/** A user's name, or their email when they gave none (over `users as u`). */
const displayName = sql<string | null>`coalesce(nullif(u.name, ''), u.email)`;

/** What the conversation screen shows beside the messages, all derived from stored rows. */
export type ConversationContext = {
  visitor_locale: string | null;
  operators: Record<string, string>;
  notes: TConversationNote[];
  leads: Array<{ id: string; email: string; name: string; phone: string; created_at: string }>;
  timeline: TTimelineEntry[];
};

/**
 * The visitor's language, the notes, the leads and the timeline of one conversation (which the
 * caller has already found in its workspace). The timeline is read from the conversation's
 * columns (created, handoff asked, rated), its audit rows (claimed, released, closed) and its notes:
 * no separate log is kept. `human_requested_at` holds the latest request only.
 */
export async function readConversationContext(options: {
  db: Queryable;
  workspaceId: string;
  conversationId: string;
  messageAuthorIds: string[];
}): Promise<ConversationContext> {
  const { db, workspaceId, conversationId } = options;
  const [conversation, notes, leads, audits] = await Promise.all([
    db
      .selectFrom('conversations as c')
      .innerJoin('visitors as v', 'v.id', 'c.visitor_id')
      .select(['v.locale', 'c.created_at', 'c.human_requested_at', 'c.satisfaction_at'])
      .where('c.workspace_id', '=', workspaceId)
      .where('c.id', '=', conversationId)
      .executeTakeFirstOrThrow(),
    listNotes({ db, workspaceId, conversationId }),
    db
      .selectFrom('leads')
      .select(['id', 'email', 'name', 'phone', 'created_at'])
      .where('workspace_id', '=', workspaceId)
      .where('conversation_id', '=', conversationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('audit_logs as a')
      .leftJoin('users as u', (join) =>
        join.on(
          'u.id',
          '=',
          // The user acted for: the member viewed as, the signed-in user, or the token's maker.
          sql<string>`coalesce(a.on_behalf_of_user_id, case a.actor_type when 'user' then a.actor_id
            when 'token' then (select t.created_by_user_id from api_tokens t where t.id = a.actor_id) end)`,
        ),
      )
      .select(['a.action', 'a.created_at', 'u.id as user_id', displayName.as('user_name')])
      .where('a.workspace_id', '=', workspaceId)
      .where('a.target_type', '=', 'conversation')
      .where('a.target_id', '=', conversationId)
      .where('a.action', 'in', Object.keys(TIMELINE_ACTIONS))
      .orderBy('a.created_at')
      .orderBy('a.id')
      .execute(),
  ]);
  const operators = await operatorNames(db, [
    ...options.messageAuthorIds,
    ...notes.flatMap((note) => (note.author_user_id ? [note.author_user_id] : [])),
  ]);
  const timeline: TTimelineEntry[] = [
    { kind: 'created', at: iso(conversation.created_at), user_id: null, user_name: null },
  ];
  const at = (kind: 'handoff_requested' | 'rated', value: Date | null) => {
    if (value) timeline.push({ kind, at: iso(value), user_id: null, user_name: null });
  };
  at('handoff_requested', conversation.human_requested_at);
  at('rated', conversation.satisfaction_at);
  for (const row of audits) {
    const kind = TIMELINE_ACTIONS[row.action as keyof typeof TIMELINE_ACTIONS];
    timeline.push({ kind, at: iso(row.created_at), user_id: row.user_id, user_name: row.user_name });
  }
  for (const note of notes) {
    timeline.push({
      kind: 'note',
      at: note.created_at,
      user_id: note.author_user_id,
      user_name: note.author_name,
    });
  }
  // ISO strings of one format sort as their instants; the sort is stable for equal instants.
  timeline.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return {
    visitor_locale: conversation.locale,
    operators,
    notes,
    leads: leads.map((lead) => ({ ...lead, created_at: iso(lead.created_at) })),
    timeline,
  };
}

/** The internal notes of a conversation, oldest first, with their authors' names. */
export async function listNotes(options: {
  db: Queryable;
  workspaceId: string;
  conversationId: string;
}): Promise<TConversationNote[]> {
  const rows = await options.db
    .selectFrom('conversation_notes as n')
    .leftJoin('users as u', 'u.id', 'n.author_user_id')
    .select(['n.id', 'n.body', 'n.author_user_id', 'n.created_at', displayName.as('author_name')])
    .where('n.workspace_id', '=', options.workspaceId)
    .where('n.conversation_id', '=', options.conversationId)
    .orderBy('n.created_at')
    .orderBy('n.id')
    .execute();
  return rows.map((row) => ({
    ...row,
    author_name: row.author_name ?? null,
    created_at: iso(row.created_at),
  }));
}

async function operatorNames(db: Queryable, ids: string[]): Promise<Record<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return {};
  const rows = await db
    .selectFrom('users as u')
    .select(['u.id', displayName.as('name')])
    .where('u.id', 'in', unique)
    .execute();
  return Object.fromEntries(rows.map((row) => [row.id, row.name ?? '']));
}
