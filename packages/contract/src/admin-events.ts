import { z } from 'zod';
import { MESSAGE_ROLES, ZConversationStatus } from './conversation-admin.js';
import { zText } from './text.js';

/**
 * The admin event stream, `GET /api/v1/admin/stream` (Server-Sent Events, session cookie or
 * admin token, the caller's workspace only). Each frame is
 * `id: <event id>\nevent: <type>\ndata: <one-line JSON of the event>\n\n`. Stored events carry an
 * id and are resumable with `Last-Event-ID`; typing signals are not stored and carry no id.
 * When the id asked for is older than the events kept, the stream sends `stream.reset` first:
 * the client reloads what it shows instead of replaying.
 */
export const ADMIN_EVENT_TYPES = [
  /** The stream is open: sent first on every connection. */
  'stream.ready',
  /** Events were missed (the `Last-Event-ID` is older than the events kept): reload lists. */
  'stream.reset',
  /** A visitor started a conversation. */
  'conversation.created',
  /** A conversation's status or claim changed (waiting, claimed, released, closed). */
  'conversation.updated',
  /** A visitor asked for a human (also a `conversation.updated` to `waiting`). */
  'conversation.handoff_requested',
  /** A message was stored: visitor, bot answer, operator reply or service note to the visitor. */
  'message.created',
  /** An internal note was added to a conversation (never shown to the visitor). */
  'note.created',
  /** The visitor or an operator started or stopped typing (not stored, no id). */
  'typing',
  /** A lead was captured. */
  'lead.created',
  /** A knowledge source's status or counts changed. */
  'source.progress',
] as const;
export const ZAdminEventType = z.enum(ADMIN_EVENT_TYPES);
export type TAdminEventType = z.infer<typeof ZAdminEventType>;

/** Longest `preview` an event carries, in characters. */
export const ADMIN_EVENT_PREVIEW_MAX = 200;

const base = {
  /** Stored events: the stream position, as a decimal string; null for typing and stream frames. */
  id: zText().nullable(),
  /** When it happened (ISO 8601). */
  at: zText(),
};

const conversationRef = {
  conversation_id: zText(),
  agent_id: zText(),
};

export const ZAdminEvent = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('stream.ready'),
    /** Users of the workspace who may reply and have a stream open now (any instance). */
    operators_online: z.number().int().min(0),
  }),
  z.object({ ...base, type: z.literal('stream.reset') }),
  z.object({ ...base, type: z.literal('conversation.created'), ...conversationRef }),
  z.object({
    ...base,
    type: z.literal('conversation.updated'),
    ...conversationRef,
    status: ZConversationStatus,
    claimed_by_user_id: zText().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal('conversation.handoff_requested'),
    ...conversationRef,
    /** The visitor's last message before asking, cut to {@link ADMIN_EVENT_PREVIEW_MAX}; null when none. */
    preview: zText().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal('message.created'),
    ...conversationRef,
    message_id: zText(),
    role: z.enum(MESSAGE_ROLES),
    /** The message cut to {@link ADMIN_EVENT_PREVIEW_MAX} characters. */
    preview: zText(),
    author_user_id: zText().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal('note.created'),
    ...conversationRef,
    note_id: zText(),
    author_user_id: zText().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal('typing'),
    ...conversationRef,
    who: z.enum(['visitor', 'operator']),
    /** The operator typing; null for the visitor. */
    user_id: zText().nullable(),
    typing: z.boolean(),
  }),
  z.object({
    ...base,
    type: z.literal('lead.created'),
    agent_id: zText(),
    lead_id: zText(),
    conversation_id: zText().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal('source.progress'),
    agent_id: zText(),
    source_id: zText(),
    status: zText(),
  }),
]);
export type TAdminEvent = z.infer<typeof ZAdminEvent>;
/** One kind of event, by its `type`. */
export type TAdminEventOf<K extends TAdminEventType> = Extract<TAdminEvent, { type: K }>;
