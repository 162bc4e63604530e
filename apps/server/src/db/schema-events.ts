import type { ColumnType } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

/** Kysely types of the admin event stream's tables; they mirror `migrations/0025_admin_events.sql`. */
export type AdminEventsTable = {
  /** bigserial: read as a decimal string (int8). */
  id: ColumnType<string, never, never>;
  workspace_id: string;
  type: string;
  payload: ColumnType<unknown, string, string>;
  created_at: CreatedAt;
};

/** One open admin stream of a user who may reply; stale rows are ignored, then pruned. */
export type OperatorPresenceTable = {
  stream_id: string;
  workspace_id: string;
  user_id: string;
  seen_at: ColumnType<Date, Date | string, Date | string>;
};

export type EventTables = {
  admin_events: AdminEventsTable;
  operator_presence: OperatorPresenceTable;
};
