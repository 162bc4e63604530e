import {
  MESSAGE_PREVIEW_MAX,
  MESSAGES_AFTER_MAX,
  type TAnswerTurn,
  type TConversationDetail,
  type TConversationMessage,
  type TConversationStatus,
  type TConversationSummary,
  type TInboxConversation,
  type TInboxFilter,
  type TMessagePreview,
  VISITOR_TYPING_WINDOW_SECONDS,
} from '@service/contract';
import { type RawBuilder, type Selectable, sql } from 'kysely';
import { z } from 'zod';
import type { Queryable } from '../../db/queryable.js';
import type { AnswerTurnsTable, MessageRow } from '../../db/schema-conversations.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { isId } from '../../security/ids.js';
import { iso, type TenantScope } from '../context.js';
import { readConversationContext } from './conversation-context.js';

/** A read scope; its clock is what `visitor_typing` is computed against (the clock that wrote `visitor_typing_at`). */
type ReadScope = Pick<TenantScope, 'db' | 'workspaceId' | 'clock'>;
/** What the inbox list takes: filters, a search over visitor messages, and the keyset page. */
export type ConversationListOptions = ReadScope & {
  /** The calling user: `mine` and the unread flags are theirs (null: a token acting for no user). */
  userId: string | null;
  agentId?: string | undefined;
  status?: TConversationStatus | undefined;
  filter?: TInboxFilter | undefined;
  search?: string | undefined;
  cursor?: string | undefined;
  limit: number;
};

/**
 * The inbox, newest conversations first, with keyset paging through an opaque cursor. The one
 * query behind `GET /conversations` (bench/ measures it as is): walks
 * `conversations_workspace_status_idx` / `conversations_workspace_idx` newest first and stops at the page.
 */
export async function listConversations(
  options: ConversationListOptions,
): Promise<{ items: TInboxConversation[]; nextCursor: string | null }> {
  let query = summaryQuery(options.db, options.workspaceId, options.clock.now())
    .select(unreadFlag(options.userId).as('unread'))
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(options.limit + 1);
  if (options.agentId !== undefined) query = query.where('c.agent_id', '=', options.agentId);
  if (options.status !== undefined) query = query.where('c.status', '=', options.status);
  if (options.filter !== undefined) query = query.where(filterCondition(options.filter, options.userId));
  const search = options.search?.trim();
  if (search) query = query.where(visitorSaid(search));
  if (options.cursor !== undefined) {
    const [createdAt, id] = decodeCursor(options.cursor);
    // Compared as text at microsecond precision: a JS Date would round to milliseconds and skip rows.
    query = query.where(
      sql<boolean>`(c.created_at, c.id) < (${createdAt}::timestamp at time zone 'UTC', ${id})`,
    );
  }
  const rows = await query.execute();
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  const nextCursor = rows.length > options.limit && last ? encodeCursor(last.cursor_key, last.id) : null;
  return { items: page.map((row) => ({ ...toSummary(row), unread: row.unread })), nextCursor };
}

/** The SQL condition of an inbox filter over `conversations as c`. */
export function filterCondition(filter: TInboxFilter, userId: string | null): RawBuilder<boolean> {
  switch (filter) {
    case 'waiting':
      return sql<boolean>`c.status = 'waiting'`;
    case 'open':
      return sql<boolean>`c.status in ('open', 'waiting', 'claimed')`;
    case 'closed':
      return sql<boolean>`c.status = 'closed'`;
    case 'mine':
      // A token acting for no user holds no conversation.
      return userId === null
        ? sql<boolean>`false`
        : sql<boolean>`c.status = 'claimed' and c.claimed_by_user_id = ${userId}`;
    case 'all':
      return sql<boolean>`true`;
  }
}

/**
 * True when the conversation's newest visitor message is newer than the user's read mark (any
 * visitor message counts when they never opened it): one probe of `conversation_reads`' key.
 */
export function unreadFlag(userId: string | null): RawBuilder<boolean> {
  if (userId === null) return sql<boolean>`false`;
  return unreadAgainst(sql`(select r.last_read_message_at from conversation_reads r
    where r.user_id = ${userId} and r.conversation_id = c.id)`);
}

/** The unread condition of `conversations as c` against a read mark (null: never read). */
export function unreadAgainst(readMark: RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`coalesce(c.last_visitor_message_at > coalesce(${readMark}, '-infinity'), false)`;
}

/**
 * Some visitor message of the conversation holds every word of `search` (full text, the
 * `simple` configuration: no stemming, any language) or `search` itself as a substring (LIKE
 * wildcards taken literally). Bounded by INBOX_SEARCH_MAX and by the page's limit.
 */
function visitorSaid(search: string): RawBuilder<boolean> {
  const pattern = `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return sql<boolean>`exists (select 1 from messages sm where sm.conversation_id = c.id
    and sm.role = 'visitor' and (to_tsvector('simple', sm.content) @@ plainto_tsquery('simple', ${search})
      or sm.content ilike ${pattern}))`;
}

/** One conversation with every message and answer turn; another workspace's is a 404. */
export async function getConversation(
  options: ReadScope & { conversationId: string },
): Promise<TConversationDetail> {
  const row = await summaryQuery(options.db, options.workspaceId, options.clock.now())
    .where('c.id', '=', options.conversationId)
    .executeTakeFirst();
  if (!row) throw notFound();
  const [messages, turns] = await Promise.all([
    messagesOf(options.db, options.workspaceId, options.conversationId).execute(),
    options.db
      .selectFrom('answer_turns')
      .selectAll()
      .where('workspace_id', '=', options.workspaceId)
      .where('conversation_id', '=', options.conversationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ]);
  const context = await readConversationContext({
    db: options.db,
    workspaceId: options.workspaceId,
    conversationId: options.conversationId,
    messageAuthorIds: messages.flatMap((message) => (message.author_user_id ? [message.author_user_id] : [])),
  });
  return {
    ...toSummary(row),
    page_url: row.page_url,
    page_title: row.page_title,
    referrer: row.referrer,
    messages: messages.map(toMessage),
    answer_turns: turns.map(toAnswerTurn),
    ...context,
  };
}

/**
 * Messages of a conversation newer than `afterMessageId`, oldest first (by created_at, id);
 * without it, from the start. An id that is not a message of this conversation is a 422 on
 * `after` (the poller should re-init), never a silent replay; a missing conversation is a 404.
 */
export async function listMessagesAfter(options: {
  db: Queryable;
  workspaceId: string;
  conversationId: string;
  afterMessageId?: string | undefined;
  limit: number;
}): Promise<TConversationMessage[]> {
  const { db, workspaceId, conversationId, afterMessageId, limit } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > MESSAGES_AFTER_MAX) {
    throw validationError({ limit: [`Must be a whole number from 1 to ${MESSAGES_AFTER_MAX}.`] });
  }
  const found = await db
    .selectFrom('conversations as c')
    .select((eb) => [
      'c.id',
      eb
        .exists(messagesOf(db, workspaceId, conversationId).where('id', '=', afterMessageId ?? ''))
        .as('anchored'),
    ])
    .where('c.workspace_id', '=', workspaceId)
    .where('c.id', '=', conversationId)
    .executeTakeFirst();
  if (!found) throw notFound();
  let query = messagesOf(db, workspaceId, conversationId).limit(limit);
  if (afterMessageId !== undefined) {
    if (!found.anchored) throw validationError({ after: ['No such message in this conversation.'] });
    // The anchor's own timestamp, compared in the database at full precision.
    query = query.where(
      sql<boolean>`(created_at, id) > (select m.created_at, m.id from messages m where m.id = ${afterMessageId})`,
    );
  }
  return (await query.execute()).map(toMessage);
}

/** The inbox row of each conversation: its columns, message count, newest message and typing flag. */
export function summaryQuery(db: Queryable, workspaceId: string, now: Date) {
  const clock: RawBuilder<Date> = sql<Date>`${now.toISOString()}::timestamptz`;
  return db
    .selectFrom('conversations as c')
    .selectAll('c')
    .select([
      // left() counts characters, not bytes; the timestamp is formatted like Date#toISOString.
      sql<TMessagePreview | null>`(select json_build_object('id', m.id, 'role', m.role,
        'preview', left(m.content, ${sql.lit(MESSAGE_PREVIEW_MAX)}),
        'created_at', to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        from messages m where m.conversation_id = c.id order by m.created_at desc, m.id desc limit 1)`.as(
        'last_message',
      ),
      sql<number>`(select count(*)::int from messages mc where mc.conversation_id = c.id)`.as(
        'message_count',
      ),
      sql<boolean>`coalesce(c.visitor_typing_at >= ${clock} - make_interval(secs => ${sql.lit(
        VISITOR_TYPING_WINDOW_SECONDS,
      )}), false)`.as('visitor_typing'),
      sql<string>`to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`.as('cursor_key'),
    ])
    .where('c.workspace_id', '=', workspaceId);
}

type SummaryRow = Awaited<ReturnType<ReturnType<typeof summaryQuery>['executeTakeFirstOrThrow']>>;

/** Converts a summary row for the wire. */
export function toSummary(row: SummaryRow): TConversationSummary {
  const rating = row.satisfaction_rating;
  return {
    id: row.id,
    agent_id: row.agent_id,
    visitor_id: row.visitor_id,
    status: row.status,
    human_requested_at: iso(row.human_requested_at),
    claimed_by_user_id: row.claimed_by_user_id,
    claimed_at: iso(row.claimed_at),
    last_message_at: iso(row.last_message_at),
    created_at: iso(row.created_at),
    message_count: row.message_count,
    last_message: row.last_message,
    // Stored as a signed number (the widget writes 1 or -1): positive is a thumbs-up.
    satisfaction: {
      rating: rating === null ? null : rating > 0 ? 'up' : 'down',
      comment: row.satisfaction_comment,
    },
    visitor_typing: row.visitor_typing,
    shopper_verified: row.shopper_verified_at !== null,
  };
}

/** Converts a stored message for the admin wire. */
export function toMessage({
  workspace_id: _w,
  conversation_id: _c,
  created_at,
  ...rest
}: MessageRow): TConversationMessage {
  return { ...rest, created_at: iso(created_at) };
}

function toAnswerTurn(row: Selectable<AnswerTurnsTable>): TAnswerTurn {
  const { workspace_id: _w, agent_id: _a, conversation_id: _c, answer: _text, created_at, ...rest } = row;
  return { ...rest, created_at: iso(created_at) };
}

/** Messages of one conversation, oldest first; the id breaks timestamp ties (ULIDs grow). */
function messagesOf(db: Queryable, workspaceId: string, conversationId: string) {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('conversation_id', '=', conversationId)
    .orderBy('created_at')
    .orderBy('id');
}

// [created_at as UTC text with microseconds, id]: Dates would round to milliseconds and skip rows.
// The text goes into a ::timestamp cast, so it must name a real instant (no month 13, no
// year 0, no 24:00) and the id must be an id: otherwise PostgreSQL answers 22008 or 22021.
const ZCursor = z.tuple([
  z
    .string()
    .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/)
    .refine(isRealInstant),
  z.string().refine(isId),
]);

/** True when `YYYY-MM-DDTHH:MM:SS.ffffff` is a real UTC instant from year 1 on (Date would roll 02-30 over). */
function isRealInstant(text: string): boolean {
  const millis = Date.parse(`${text.slice(0, 23)}Z`);
  return (
    Number.isFinite(millis) &&
    new Date(millis).toISOString().slice(0, 23) === text.slice(0, 23) &&
    text >= '0001'
  );
}

function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const parsed = ZCursor.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // Not base64 JSON: fall through to the 422 below.
  }
  throw validationError({ cursor: ['The cursor is not valid; use meta.next_cursor of a previous page.'] });
}
