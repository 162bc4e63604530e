import type { ColumnType, Selectable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

/** Kysely types of the inbox tables; they mirror `migrations/0026_inbox.sql`. */
export type ConversationReadsTable = {
  user_id: string;
  conversation_id: string;
  workspace_id: string;
  /** The newest message the user had seen when they last opened the conversation. */
  last_read_message_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: UpdatedAt;
};

/** A note operators leave on a conversation; never part of a widget answer. */
export type ConversationNotesTable = {
  id: string;
  workspace_id: string;
  conversation_id: string;
  author_user_id: string | null;
  body: string;
  created_at: CreatedAt;
};

/** A reply the workspace saved for operators to pick in the composer. */
export type SavedRepliesTable = {
  id: string;
  workspace_id: string;
  title: string;
  body: string;
  created_by_user_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

/** The inbox tables as Kysely sees them (merged into `DB`). */
export type InboxTables = {
  conversation_reads: ConversationReadsTable;
  conversation_notes: ConversationNotesTable;
  saved_replies: SavedRepliesTable;
};

export type ConversationNoteRow = Selectable<ConversationNotesTable>;
export type SavedReplyRow = Selectable<SavedRepliesTable>;
