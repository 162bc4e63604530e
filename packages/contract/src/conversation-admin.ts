import { z } from 'zod';

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
  agent_id: z.string().min(1).max(64).optional(),
  status: ZConversationStatus.optional(),
  cursor: z.string().min(1).max(200).optional().describe('Opaque: meta.next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(CONVERSATION_PAGE_MAX).default(25),
});
export type TConversationListQuery = z.infer<typeof ZConversationListQuery>;

/** The newest message of a conversation, cut to {@link MESSAGE_PREVIEW_MAX} characters. */
export const ZMessagePreview = z.object({
  id: z.string(),
  role: z.enum(MESSAGE_ROLES),
  preview: z.string(),
  created_at: z.string(),
});
export type TMessagePreview = z.infer<typeof ZMessagePreview>;

/** The visitor's rating of the conversation; both are null until they rate. */
export const ZConversationSatisfaction = z.object({
  rating: z.enum(['up', 'down']).nullable(),
  comment: z.string().nullable(),
});

/** One conversation in the operator inbox. */
export const ZConversationSummary = z.object({
  id: z.string(),
  agent_id: z.string(),
  visitor_id: z.string(),
  status: ZConversationStatus,
  human_requested_at: z.string().nullable(),
  claimed_by_user_id: z.string().nullable(),
  claimed_at: z.string().nullable(),
  last_message_at: z.string().nullable(),
  created_at: z.string(),
  message_count: z.number().int().min(0),
  last_message: ZMessagePreview.nullable(),
  satisfaction: ZConversationSatisfaction,
  /** The visitor signalled typing within the last {@link VISITOR_TYPING_WINDOW_SECONDS} seconds. */
  visitor_typing: z.boolean(),
  shopper_verified: z.boolean(),
});
export type TConversationSummary = z.infer<typeof ZConversationSummary>;

/** A page of the inbox: newest conversations first. */
export const ZConversationPage = z.object({
  data: z.array(ZConversationSummary),
  meta: z.object({ next_cursor: z.string().nullable() }),
});

/** One stored message; `author_user_id` is set on operator replies. */
export const ZConversationMessage = z.object({
  id: z.string(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  citations: z.array(z.object({ id: z.number(), url: z.string().nullable(), title: z.string() })),
  blocks: z.array(z.object({ type: z.string(), payload: z.record(z.string(), z.unknown()) })),
  author_user_id: z.string().nullable(),
  created_at: z.string(),
});
export type TConversationMessage = z.infer<typeof ZConversationMessage>;

/** One answered question: what retrieval found, how it ended, which model, how long it took. */
export const ZAnswerTurn = z.object({
  id: z.string(),
  question_message_id: z.string().nullable(),
  answer_message_id: z.string().nullable(),
  question: z.string(),
  outcome: z.string(),
  provider: z.string(),
  latency_ms: z.number().int(),
  first_token_ms: z.number().int().nullable(),
  retrieved: z.array(z.object({ chunk_id: z.string(), score: z.number() })),
  created_at: z.string(),
});
export type TAnswerTurn = z.infer<typeof ZAnswerTurn>;

/** `GET /api/v1/admin/conversations/{id}`: the summary, the page it started on, every message and answer turn. */
export const ZConversationDetail = ZConversationSummary.extend({
  page_url: z.string().nullable(),
  page_title: z.string().nullable(),
  referrer: z.string().nullable(),
  messages: z.array(ZConversationMessage),
  answer_turns: z.array(ZAnswerTurn),
});
export type TConversationDetail = z.infer<typeof ZConversationDetail>;

/** Body of `POST /api/v1/admin/conversations/{id}/messages` (an operator reply). */
export const ZOperatorReply = z.strictObject({
  content: z.string().trim().min(1).max(OPERATOR_REPLY_MAX),
});
export type TOperatorReply = z.infer<typeof ZOperatorReply>;
