import { z } from 'zod';
import {
  INBOX_SEARCH_MAX,
  ZConversationLead,
  ZConversationNote,
  ZInboxFilter,
  ZTimelineEntry,
} from './inbox.js';
import { zStorableJson, zText } from './text.js';

/** Conversation states: open (the bot answers), waiting (a human was asked for), claimed (an operator answers), closed. */
export const CONVERSATION_STATUSES = ['open', 'waiting', 'claimed', 'closed'] as const;
/** One of {@link CONVERSATION_STATUSES}. */
export const ZConversationStatus = z.enum(CONVERSATION_STATUSES);
export type TConversationStatus = z.infer<typeof ZConversationStatus>;

/** Message authors: the visitor, the bot, a human operator, or the service itself. */
export const MESSAGE_ROLES = ['visitor', 'assistant', 'operator', 'system'] as const;

/** Longest operator reply, in characters (after trimming). */
export const OPERATOR_REPLY_MAX = 4000;
/** Largest page of `GET /conversations`. */
export const CONVERSATION_PAGE_MAX = 100;
/** Largest batch of messages one poll returns. */
export const MESSAGES_AFTER_MAX = 100;
/** Longest `last_message.preview`, in characters. */
export const MESSAGE_PREVIEW_MAX = 200;
/** A visitor counts as typing for this long after their last typing signal. */
export const VISITOR_TYPING_WINDOW_SECONDS = 5;

/** Query of `GET /api/v1/admin/conversations`; `cursor` is `meta.next_cursor` of the previous page. */
export const ZConversationListQuery = z.object({
  agent_id: zText().min(1).max(64).optional(),
  status: ZConversationStatus.optional(),
  filter: ZInboxFilter.optional().describe('An inbox filter; combined with status when both are sent'),
  q: zText()
    .trim()
    .max(INBOX_SEARCH_MAX)
    .optional()
    .describe('Search over the visitor messages (words, or a part of one)'),
  cursor: zText().min(1).max(200).optional().describe('Opaque: meta.next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(CONVERSATION_PAGE_MAX).default(25),
});
export type TConversationListQuery = z.infer<typeof ZConversationListQuery>;

/** The newest message of a conversation, cut to {@link MESSAGE_PREVIEW_MAX} characters. */
export const ZMessagePreview = z.object({
  id: zText(),
  role: z.enum(MESSAGE_ROLES),
  preview: zText(),
  created_at: zText(),
});
export type TMessagePreview = z.infer<typeof ZMessagePreview>;

/** The visitor's rating of the conversation; both are null until they rate. */
export const ZConversationSatisfaction = z.object({
  rating: z.enum(['up', 'down']).nullable(),
  comment: zText().nullable(),
});

/** One conversation in the operator inbox. */
export const ZConversationSummary = z.object({
  id: zText(),
  agent_id: zText(),
  visitor_id: zText(),
  status: ZConversationStatus,
  human_requested_at: zText().nullable(),
  claimed_by_user_id: zText().nullable(),
  claimed_at: zText().nullable(),
  last_message_at: zText().nullable(),
  created_at: zText(),
  message_count: z.number().int().min(0),
  last_message: ZMessagePreview.nullable(),
  satisfaction: ZConversationSatisfaction,
  /** The visitor signalled typing within the last {@link VISITOR_TYPING_WINDOW_SECONDS} seconds. */
  visitor_typing: z.boolean(),
  shopper_verified: z.boolean(),
});
export type TConversationSummary = z.infer<typeof ZConversationSummary>;

/** One row of the inbox list: the summary and whether the caller has unread visitor messages in it. */
export const ZInboxConversation = ZConversationSummary.extend({ unread: z.boolean() });
export type TInboxConversation = z.infer<typeof ZInboxConversation>;

/** A page of the inbox: newest conversations first. */
export const ZConversationPage = z.object({
  data: z.array(ZInboxConversation),
  meta: z.object({ next_cursor: zText().nullable() }),
});

/** One stored message; `author_user_id` is set on operator replies. */
export const ZConversationMessage = z.object({
  id: zText(),
  role: z.enum(MESSAGE_ROLES),
  content: zText(),
  citations: z.array(z.object({ id: z.number(), url: zText().nullable(), title: zText() })),
  blocks: z.array(z.object({ type: zText(), payload: z.record(zText(), zStorableJson()) })),
  author_user_id: zText().nullable(),
  created_at: zText(),
});
export type TConversationMessage = z.infer<typeof ZConversationMessage>;

/** One answered question: what retrieval found, how it ended, which model, how long it took. */
export const ZAnswerTurn = z.object({
  id: zText(),
  question_message_id: zText().nullable(),
  answer_message_id: zText().nullable(),
  question: zText(),
  outcome: zText(),
  provider: zText(),
  latency_ms: z.number().int(),
  first_token_ms: z.number().int().nullable(),
  retrieved: z.array(z.object({ chunk_id: zText(), score: z.number() })),
  created_at: zText(),
});
export type TAnswerTurn = z.infer<typeof ZAnswerTurn>;

/** `GET /api/v1/admin/conversations/{id}`: the summary, the page it started on, every message and answer turn. */
export const ZConversationDetail = ZConversationSummary.extend({
  page_url: zText().nullable(),
  page_title: zText().nullable(),
  referrer: zText().nullable(),
  /** The visitor's language as the widget reported it. */
  visitor_locale: zText().nullable(),
  messages: z.array(ZConversationMessage),
  answer_turns: z.array(ZAnswerTurn),
  /** Names of the operators who wrote messages or notes here, by user id. */
  operators: z.record(zText(), zText()),
  notes: z.array(ZConversationNote),
  leads: z.array(ZConversationLead),
  timeline: z.array(ZTimelineEntry),
});
export type TConversationDetail = z.infer<typeof ZConversationDetail>;

/** Body of `POST /api/v1/admin/conversations/{id}/messages` (an operator reply). */
export const ZOperatorReply = z.strictObject({
  content: zText().trim().min(1).max(OPERATOR_REPLY_MAX),
});
export type TOperatorReply = z.infer<typeof ZOperatorReply>;
