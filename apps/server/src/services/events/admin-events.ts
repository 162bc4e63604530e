import { ADMIN_EVENT_PREVIEW_MAX, type TAdminEvent, type TAdminEventOf } from '@service/contract';
import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';

/** The one NOTIFY channel of the admin event stream; the payload names the workspace. */
export const ADMIN_EVENTS_CHANNEL = 'admin_events';

/** How long stored events are kept for resuming streams (pruned by the maintain-store job): 24 h. */
export const ADMIN_EVENT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Stored events: everything but stream frames and typing signals (those are never stored). */
export type StoredEventType = Exclude<TAdminEvent['type'], 'stream.ready' | 'stream.reset' | 'typing'>;

/** An event to store: its id is assigned by the store. */
export type AdminEventInput = { [K in StoredEventType]: Omit<TAdminEventOf<K>, 'id'> }[StoredEventType];

/** A typing signal to send (never stored). */
export type TypingEventInput = Omit<TAdminEventOf<'typing'>, 'id'>;

/** What goes through NOTIFY: the workspace and the whole event (payloads stay far below 8000 bytes). */
export type AdminNotification = { workspace_id: string; event: TAdminEvent };

/** Cuts text to the events' preview length. */
export function eventPreview(text: string): string {
  return text.length <= ADMIN_EVENT_PREVIEW_MAX ? text : text.slice(0, ADMIN_EVENT_PREVIEW_MAX);
}

/**
 * Stores an event in `trx`; the insert's trigger (migration 0025) notifies it. Call it inside
 * the transaction of the change it reports, so the event is committed (and NOTIFY delivered)
 * with its data, never before, and a rolled-back change sends nothing. Returns its id.
 */
export async function publishEvent(
  trx: Queryable,
  workspaceId: string,
  input: AdminEventInput,
): Promise<string> {
  const row = await trx
    .insertInto('admin_events')
    .values(eventRow(workspaceId, input))
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

/** The `admin_events` row of an event, for writes that store it in their own statement (a CTE). */
export function eventRow(workspaceId: string, input: AdminEventInput) {
  return {
    workspace_id: workspaceId,
    type: input.type,
    payload: JSON.stringify(input),
    created_at: input.at,
  };
}

/**
 * A CTE body storing `input` once per row of the CTE `gate` (zero rows: no event), for
 * single-statement writes: `with x as (...), admin_event as (${eventInsertSql(...)})`.
 */
export function eventInsertSql(workspaceId: string, input: AdminEventInput, gate: string) {
  return sql`insert into admin_events (workspace_id, type, payload, created_at)
    select ${workspaceId}, ${input.type}, ${JSON.stringify(input)}::jsonb, ${input.at}::timestamptz
    from ${sql.table(gate)} limit 1`;
}

/** Sends a typing signal to the workspace's streams (NOTIFY only: nothing is stored). */
export async function publishTyping(
  db: Queryable,
  workspaceId: string,
  input: TypingEventInput,
): Promise<void> {
  const notification: AdminNotification = { workspace_id: workspaceId, event: { ...input, id: null } };
  await sql`select pg_notify(${ADMIN_EVENTS_CHANNEL}, ${JSON.stringify(notification)})`.execute(db);
}

/** Parses a NOTIFY payload of {@link ADMIN_EVENTS_CHANNEL}; null when it is not one. */
export function parseNotification(payload: string): AdminNotification | null {
  try {
    const value = JSON.parse(payload) as Partial<AdminNotification>;
    if (typeof value.workspace_id !== 'string' || typeof value.event?.type !== 'string') return null;
    return value as AdminNotification;
  } catch {
    return null;
  }
}

/** Stored events of a workspace after `afterId`, oldest first, at most `limit`. */
export async function eventsAfter(
  db: Queryable,
  workspaceId: string,
  afterId: string,
  limit: number,
): Promise<TAdminEvent[]> {
  const rows = await db
    .selectFrom('admin_events')
    .select(['id', 'payload'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '>', afterId as never)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...(row.payload as object), id: String(row.id) }) as TAdminEvent);
}

/**
 * How far back, in stored time, a replay looks for events committed late: ids come from a
 * sequence when the event is inserted, so a transaction that inserted its event first may commit
 * after another one's (a lower id shows up after a higher one). 10 s covers every transaction the
 * service runs around an event.
 */
export const LATE_COMMIT_WINDOW_MS = 10_000;

/**
 * Stored events of a workspace below `afterId` but stored at most
 * {@link LATE_COMMIT_WINDOW_MS} before the event `afterId` itself: the ones that may have been
 * committed after it. Oldest first; none when `afterId` is no longer stored.
 */
export async function eventsNear(
  db: Queryable,
  workspaceId: string,
  afterId: string,
): Promise<TAdminEvent[]> {
  const rows = await sql<{ id: string; payload: object }>`
    select e.id::text as id, e.payload from admin_events e
    where e.workspace_id = ${workspaceId} and e.id < ${afterId}::bigint
      and e.created_at >= (
        select m.created_at - make_interval(secs => ${LATE_COMMIT_WINDOW_MS / 1000})
        from admin_events m where m.id = ${afterId}::bigint)
    order by e.id`.execute(db);
  return rows.rows.map((row) => ({ ...row.payload, id: row.id }) as TAdminEvent);
}

/**
 * Whether every event after `afterId` is still kept: an event at or before it is still stored
 * (pruning removes the oldest first), or no event was ever written after it. Otherwise (the id
 * is older than what is kept, or unknown to this store) the client must reload: `stream.reset`.
 */
export async function canResumeAfter(db: Queryable, afterId: string): Promise<boolean> {
  const row = await sql<{ kept: boolean }>`
    select exists (select 1 from admin_events where id <= ${afterId}::bigint)
      or ${afterId}::bigint >= (select case when is_called then last_value else 0 end from admin_events_id_seq)
      as kept`.execute(db);
  return row.rows[0]?.kept === true;
}

/** The newest stored event id of a workspace, '0' when none: where a fresh stream starts. */
export async function latestEventId(db: Queryable, workspaceId: string): Promise<string> {
  const row = await sql<{ id: string | null }>`
    select max(id)::text as id from admin_events where workspace_id = ${workspaceId}`.execute(db);
  return row.rows[0]?.id ?? '0';
}

/** Deletes events older than the retention; returns how many. */
export async function pruneEvents(db: Queryable, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - ADMIN_EVENT_RETENTION_MS);
  const result = await db.deleteFrom('admin_events').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
