import { z } from 'zod';
import { zText } from './text.js';

/**
 * Inbox filters: `waiting` (a human was asked for, nobody claimed it yet), `open` (not closed:
 * open, waiting or claimed), `mine` (claimed by the caller), `closed`, `all`.
 */
export const INBOX_FILTERS = ['waiting', 'open', 'mine', 'closed', 'all'] as const;
/** One of {@link INBOX_FILTERS}. */
export const ZInboxFilter = z.enum(INBOX_FILTERS);
export type TInboxFilter = z.infer<typeof ZInboxFilter>;

/** Longest inbox search, in characters (after trimming). */
export const INBOX_SEARCH_MAX = 100;
/** Longest internal note, in characters (after trimming). */
export const CONVERSATION_NOTE_MAX = 4000;
/** Most notes one conversation keeps. */
export const CONVERSATION_NOTES_MAX = 200;
/** Longest saved reply title and body, in characters (after trimming). */
export const SAVED_REPLY_TITLE_MAX = 80;
export const SAVED_REPLY_BODY_MAX = 4000;
/** Most saved replies a workspace keeps. */
export const SAVED_REPLIES_MAX = 200;

/** Count of conversations and of unread ones (for the caller) under one filter. */
export const ZInboxCount = z.object({ total: z.number().int().min(0), unread: z.number().int().min(0) });

/** `GET /api/v1/admin/conversations/counts`: every filter's total and unread count for the caller. */
export const ZInboxCounts = z.object({
  waiting: ZInboxCount,
  open: ZInboxCount,
  mine: ZInboxCount,
  closed: ZInboxCount,
  all: ZInboxCount,
});
export type TInboxCounts = z.infer<typeof ZInboxCounts>;

/** Query of the counts: optionally one agent's conversations only. */
export const ZInboxCountsQuery = z.object({ agent_id: zText().min(1).max(64).optional() });

/** An internal note on a conversation: only the team sees it, never the visitor. */
export const ZConversationNote = z.object({
  id: zText(),
  body: zText(),
  author_user_id: zText().nullable(),
  author_name: zText().nullable(),
  created_at: zText(),
});
export type TConversationNote = z.infer<typeof ZConversationNote>;

/** Body of `POST /api/v1/admin/conversations/{id}/notes`. */
export const ZConversationNoteCreate = z.strictObject({
  body: zText().trim().min(1).max(CONVERSATION_NOTE_MAX),
});

/** A reply saved for the workspace's operators. */
export const ZSavedReply = z.object({
  id: zText(),
  title: zText(),
  body: zText(),
  created_at: zText(),
  updated_at: zText(),
});
export type TSavedReply = z.infer<typeof ZSavedReply>;

/** Body of `POST /api/v1/admin/saved-replies`. */
export const ZSavedReplyCreate = z.strictObject({
  title: zText().trim().min(1).max(SAVED_REPLY_TITLE_MAX),
  body: zText().trim().min(1).max(SAVED_REPLY_BODY_MAX),
});
export type TSavedReplyCreate = z.infer<typeof ZSavedReplyCreate>;

/** Body of `PATCH /api/v1/admin/saved-replies/{id}`: one or more of the fields. */
export const ZSavedReplyUpdate = ZSavedReplyCreate.partial().refine(
  (body) => body.title !== undefined || body.body !== undefined,
  { message: 'Send a title, a body or both.' },
);
export type TSavedReplyUpdate = z.infer<typeof ZSavedReplyUpdate>;

/** Kinds of timeline entries, derived from stored rows (conversation columns, audit log, notes). */
export const TIMELINE_KINDS = [
  'created',
  'handoff_requested',
  'claimed',
  'released',
  'closed',
  'note',
  'rated',
] as const;

/** One entry of a conversation's timeline; `user_*` names the operator who acted, if any. */
export const ZTimelineEntry = z.object({
  kind: z.enum(TIMELINE_KINDS),
  at: zText(),
  user_id: zText().nullable(),
  user_name: zText().nullable(),
});
export type TTimelineEntry = z.infer<typeof ZTimelineEntry>;

/** A lead the visitor left in this conversation. */
export const ZConversationLead = z.object({
  id: zText(),
  email: zText(),
  name: zText(),
  phone: zText(),
  created_at: zText(),
});
