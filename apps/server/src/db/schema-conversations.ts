import type { ColumnType, Generated, Selectable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Jsonb<T> = ColumnType<T, string | undefined, string>;

/** Kysely types of the widget tables; they mirror `migrations/0007_conversations.sql`. */
export type VisitorsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  anon_id: string;
  locale: string | null;
  created_at: CreatedAt;
  last_seen_at: UpdatedAt;
};

/** open: the bot answers; waiting: a human was requested; claimed: an operator answers; closed. */
export type ConversationStatus = 'open' | 'waiting' | 'claimed' | 'closed';

export type ConversationsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  visitor_id: string;
  status: Generated<ConversationStatus>;
  human_requested_at: Date | null;
  /** When the unclaimed-handoff mail went out for the current request (0029). */
  handoff_mailed_at: Generated<Date | null>;
  claimed_by_user_id: string | null;
  claimed_at: Date | null;
  /** bigint: pg returns it as a string. */
  shopper_wp_user_id: ColumnType<string | null, number | string | null, number | string | null>;
  shopper_email_hash: string | null;
  shopper_verified_at: Date | null;
  page_url: string | null;
  page_title: string | null;
  referrer: string | null;
  satisfaction_rating: number | null;
  satisfaction_comment: string | null;
  satisfaction_at: Date | null;
  last_message_at: Date | null;
  /** The newest visitor message's time (0031, kept by a trigger on messages): the unread flag's input. */
  last_visitor_message_at: Generated<Date | null>;
  /** When the visitor last said they were typing (operators see it for a few seconds). */
  visitor_typing_at: Date | null;
  /** When the operator holding it last said they are typing (migration 0025). */
  operator_typing_at: Generated<Date | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type MessageRole = 'visitor' | 'assistant' | 'operator' | 'system';

/** A citation stored with an answer: `[N]` in the text maps to `id` N. */
export type StoredCitation = { id: number; url: string | null; title: string };
/** A block stored with an answer (product card, coupon card, suggestions, escalation). */
export type StoredBlock = { type: string; payload: Record<string, unknown> };

export type MessagesTable = {
  id: string;
  workspace_id: string;
  conversation_id: string;
  role: MessageRole;
  content: string;
  citations: Jsonb<StoredCitation[]>;
  blocks: Jsonb<StoredBlock[]>;
  author_user_id: string | null;
  /** An answer given verbatim from the team's saved correction. */
  from_team: Generated<boolean>;
  created_at: CreatedAt;
};

/** A retrieved chunk behind an answer, with its fused score. */
export type RetrievedChunk = { chunk_id: string; score: number };

export type AnswerTurnsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  conversation_id: string;
  question_message_id: string | null;
  answer_message_id: string | null;
  question: string;
  answer: string;
  retrieved: Jsonb<RetrievedChunk[]>;
  /** answered, no_answer, error, silent (an operator holds the conversation). */
  outcome: string;
  provider: string;
  latency_ms: number;
  first_token_ms: number | null;
  created_at: CreatedAt;
};

/** An operator's answer to a question, given first to a later question close enough to it. */
export type AnswerCorrectionsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  question: string;
  answer: string;
  /** typed, message (from a conversation's answer) or question (from a recorded agent question). */
  source: string;
  source_message_id: string | null;
  source_question_id: string | null;
  use_count: Generated<number>;
  last_used_at: Date | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

/** A visitor question that went wrong (reasons), with the chunks behind its answer. */
export type AgentQuestionsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  conversation_id: string | null;
  turn_id: string | null;
  question_message_id: string | null;
  answer_message_id: string | null;
  question: string;
  answer: Generated<string>;
  /** no_match, fallback, handoff, rated_down. */
  reasons: string[];
  retrieved: Jsonb<RetrievedChunk[]>;
  status: Generated<'open' | 'resolved'>;
  resolution: 'correction' | 'kb_article' | 'dismissed' | null;
  resolution_id: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type LeadsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  visitor_id: string | null;
  conversation_id: string | null;
  email: string;
  email_normalized: string;
  name: Generated<string>;
  phone: Generated<string>;
  site_user_id: ColumnType<string | null, number | string | null, number | string | null>;
  pushed_at: Date | null;
  push_error: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type WidgetEventsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  conversation_id: string;
  kind: string;
  data: Jsonb<Record<string, unknown>>;
  created_at: CreatedAt;
};

export type WebhooksTable = {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  secret_sealed: string;
  is_active: Generated<boolean>;
  /** json (the signed event) or slack (an incoming-webhook body); 0029. */
  format: Generated<WebhookFormat>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

/** How a webhook's deliveries are written (0029). */
export type WebhookFormat = 'json' | 'slack';

/** pending, delivered, failed (no retries left). */
export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export type WebhookDeliveriesTable = {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event: string;
  /** What the event is about (a lead id): erasing the subject erases its deliveries. */
  subject_id: string | null;
  payload: Jsonb<Record<string, unknown>>;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  /** The start of the last answer's body, at most 2,000 characters (0027). */
  last_response_excerpt: string | null;
  delivered_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type WorkspaceLlmKeysTable = {
  workspace_id: string;
  provider: 'openai' | 'anthropic';
  model: string | null;
  key_sealed: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

/** The widget tables as Kysely sees them (merged into `DB`). */
export type ConversationTables = {
  visitors: VisitorsTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  answer_turns: AnswerTurnsTable;
  answer_corrections: AnswerCorrectionsTable;
  agent_questions: AgentQuestionsTable;
  leads: LeadsTable;
  widget_events: WidgetEventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  workspace_llm_keys: WorkspaceLlmKeysTable;
};

export type VisitorRow = Selectable<VisitorsTable>;
export type ConversationRow = Selectable<ConversationsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type LeadRow = Selectable<LeadsTable>;
export type AnswerCorrectionRow = Selectable<AnswerCorrectionsTable>;
export type AgentQuestionRow = Selectable<AgentQuestionsTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
