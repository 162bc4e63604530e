import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { AnalyticsTables } from './schema-analytics.js';
import type { BillingTables } from './schema-billing.js';
import type { ConversationTables } from './schema-conversations.js';
import type { EventTables } from './schema-events.js';
import type { InboxTables } from './schema-inbox.js';
import type { EvaluationRunsTable, GoldenItemsTable } from './schema-quality.js';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

/** Kysely table types; they mirror `migrations/*.sql`. */
export type WorkspacesTable = {
  id: string;
  name: string;
  slug: string;
  /** The public KB's title; '' shows "<name> help centre". */
  kb_title: Generated<string>;
  kb_logo_url: string | null;
  /** `#rrggbb`, or null for the default colour. */
  kb_color: string | null;
  /** The agent whose widget the KB pages embed; null embeds none. */
  kb_widget_agent_id: string | null;
  /** The plan whose limits apply (`plans.key`); 'default' until a subscription or the operator changes it. */
  plan_key: Generated<string>;
  /** Where the workspace's subscription stands: none, active, past_due, cancelled. */
  billing_status: Generated<string>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type UsersTable = {
  id: string;
  email: string;
  name: Generated<string>;
  password_hash: string;
  role: Generated<'user' | 'admin'>;
  byok_enabled: Generated<boolean>;
  default_workspace_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Two-factor sign-in (migration 0010): sealed TOTP secret, a setup in progress, when it was enabled. */
  totp_secret_sealed: Generated<string | null>;
  totp_pending_sealed: Generated<string | null>;
  totp_enabled_at: Generated<Date | null>;
  /** The last accepted time step (bigint: read as a string). */
  totp_last_step: ColumnType<string | null, number | null | undefined, number | null>;
  recovery_codes_sealed: Generated<string | null>;
};

export type MembershipsTable = {
  workspace_id: string;
  user_id: string;
  role: 'owner' | 'admin' | 'editor' | 'viewer';
  created_at: CreatedAt;
};

export type StoredTheme = {
  position: 'bottom-right' | 'bottom-left';
  primary: string;
  accent: string;
  radius: number;
  launcher_label: string;
};

export type AgentsTable = {
  id: string;
  workspace_id: string;
  name: string;
  site_type: Generated<'generic' | 'ecommerce'>;
  language_default: string | null;
  is_published: Generated<boolean>;
  allowed_origins: Generated<string[]>;
  theme: Json<StoredTheme>;
  system_prompt: Generated<string>;
  behavior_rules: ColumnType<unknown[], string | undefined, string>;
  auto_index_pages: Generated<boolean>;
  widget_features: ColumnType<Record<string, boolean>, string | undefined, string>;
  /** The widget's greeting and starter questions (TWelcome); null: the site type's defaults. */
  welcome: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type ApiTokensTable = {
  id: string;
  workspace_id: string;
  name: string;
  token_hash: string;
  token_prefix: string;
  abilities: string[];
  shopper_signing_secret: string;
  created_by_user_id: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: CreatedAt;
};

export type AdminSessionsTable = {
  id: string;
  user_id: string;
  workspace_id: string;
  secret_hash: string;
  ip: string | null;
  user_agent: string | null;
  created_at: CreatedAt;
  last_seen_at: UpdatedAt;
  expires_at: Date;
  /** Set on an impersonation (0023): the platform operator viewing as `user_id`. */
  impersonator_user_id: string | null;
  /** The operator's own session, whose secret is re-issued when the impersonation ends (0023). */
  parent_session_id: string | null;
  impersonation_reason: string | null;
};

/** One mail: what it is, to whom, its sealed bodies until sent, and how sending went (0020). */
export type MailMessagesTable = {
  id: string;
  kind: string;
  user_id: string | null;
  workspace_id: string | null;
  to_address: string;
  language: Generated<string>;
  subject: string;
  /** `{text, html}` sealed with APP_KEY (purpose `mail-body`, context the id); null once sent. */
  body_sealed: string | null;
  status: Generated<'pending' | 'sent' | 'failed'>;
  attempts: Generated<number>;
  last_error: string | null;
  transport: string | null;
  outbox_file: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  sent_at: Date | null;
};

/** One issued password-reset token (its `jti`): used once, within its 60 minutes (0020). */
export type PasswordResetTokensTable = {
  id: string;
  user_id: string;
  requested_ip: string | null;
  created_at: CreatedAt;
  expires_at: Date;
  used_at: Date | null;
};

export type WorkspaceInvitesTable = {
  id: string;
  workspace_id: string;
  email: string;
  role: 'owner' | 'admin' | 'editor' | 'viewer';
  token_hash: string;
  invited_by_user_id: string | null;
  created_at: CreatedAt;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_user_id: string | null;
  revoked_at: Date | null;
};

export type AuditLogsTable = {
  id: string;
  workspace_id: string;
  actor_type: string;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  metadata: Json<Record<string, unknown>>;
  request_id: string | null;
  /** The member an impersonating operator acted for (0023); the operator is the actor. */
  on_behalf_of_user_id: string | null;
  created_at: CreatedAt;
};

export type SourcesTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  type: string;
  name: Generated<string>;
  status: Generated<string>;
  error: string | null;
  config: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** `{ last_run: …, run: … }`: what the last fetch of the source did, and the running one's counts. */
  progress: ColumnType<Record<string, unknown>, string | undefined, string>;
  site_url: string | null;
  plugin_version: string | null;
  plugin_base: string | null;
  api_token_id: string | null;
  last_synced_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type DocumentsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  source_id: string;
  external_id: string;
  kind: string;
  title: Generated<string>;
  url: string | null;
  language: string | null;
  content_text: Generated<string>;
  content_hash: string;
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>;
  modified_at: Date | string | null;
  index_status: Generated<'pending' | 'indexed' | 'failed'>;
  indexed_hash: string | null;
  indexed_at: Date | null;
  /** Why its index job gave up, when known (null otherwise, and while not `failed`). */
  index_error: string | null;
  /** Its title and URL path as a full-text vector, written when it is indexed (null before). */
  title_tsv: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last full sync run that listed it (site and products sources), and when. */
  full_sync_run_id: string | null;
  full_sync_listed_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

/** Open full sync runs of a site's posts or products source. */
export type FullSyncRunsTable = {
  source_id: string;
  run_id: string;
  started_at: Generated<Date>;
  last_batch_at: Generated<Date>;
  finished_at: Date | null;
};

export type ChunksTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  document_id: string;
  ordinal: number;
  content: string;
  /** SHA-256 hex of `content`: embeddings are keyed by it. */
  content_hash: string;
  tsv: ColumnType<string, string, string>;
  created_at: CreatedAt;
};

/**
 * BM25's term statistics: how many of the agent's chunks contain `term` (a lexeme of their
 * vectors); the row with term '' counts the agent's chunks. Kept by triggers on `chunks`.
 */
export type AgentTermsTable = {
  agent_id: string;
  term: string;
  df: number;
};

/** The distinct words of an agent's indexed text (typo tolerance matches query words against them). */
export type AgentWordsTable = {
  agent_id: string;
  word: string;
};

/** Exists only where pgvector does (db/optional-schema.ts); `embedding` is pgvector's text form. */
export type EmbeddingsTable = {
  agent_id: string;
  workspace_id: string;
  model: string;
  content_hash: string;
  dims: number;
  embedding: string;
  created_at: CreatedAt;
};

export type KbArticlesTable = {
  id: string;
  workspace_id: string;
  title: string;
  slug: string;
  body_markdown: Generated<string>;
  /** The article's section on the public KB home; '' is the general section. */
  category: Generated<string>;
  is_published: Generated<boolean>;
  published_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

/** A page a fetch of its source could not store, with the reason (migration 0017). */
export type SourceFailuresTable = {
  id: string;
  source_id: string;
  url: string;
  reason: string;
  at: CreatedAt;
};

export type SchemaMigrationsTable = {
  version: number;
  name: string;
  checksum: string;
  applied_at: CreatedAt;
};

/** The whole database as Kysely sees it. */
export type DB = ConversationTables &
  InboxTables &
  BillingTables &
  EventTables &
  AnalyticsTables & {
    workspaces: WorkspacesTable;
    users: UsersTable;
    memberships: MembershipsTable;
    agents: AgentsTable;
    api_tokens: ApiTokensTable;
    admin_sessions: AdminSessionsTable;
    audit_logs: AuditLogsTable;
    mail_messages: MailMessagesTable;
    password_reset_tokens: PasswordResetTokensTable;
    workspace_invites: WorkspaceInvitesTable;
    sources: SourcesTable;
    documents: DocumentsTable;
    full_sync_runs: FullSyncRunsTable;
    source_failures: SourceFailuresTable;
    chunks: ChunksTable;
    embeddings: EmbeddingsTable;
    agent_words: AgentWordsTable;
    agent_terms: AgentTermsTable;
    kb_articles: KbArticlesTable;
    schema_migrations: SchemaMigrationsTable;
    golden_items: GoldenItemsTable;
    evaluation_runs: EvaluationRunsTable;
  };

export type AgentRow = Selectable<AgentsTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type UserRow = Selectable<UsersTable>;
export type WorkspaceRow = Selectable<WorkspacesTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
export type NewAuditLog = Insertable<AuditLogsTable>;
export type SourceRow = Selectable<SourcesTable>;
export type DocumentRow = Selectable<DocumentsTable>;
export type KbArticleRow = Selectable<KbArticlesTable>;
