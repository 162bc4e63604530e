import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';

/** A source's progress event while its status stays the same: at most one per this many milliseconds. */
export const SOURCE_PROGRESS_THROTTLE_MS = 1_000;

/**
 * `source.progress` for each of `sourceIds` as it is now in `db`: always when its status changed
 * since its last event, else at most one per {@link SOURCE_PROGRESS_THROTTLE_MS} (run counts move
 * many times a second during a fetch). The throttle reads the stored events, so it holds across
 * instances. Call it with the change's transaction when there is one.
 */
export async function publishSourceProgress(
  db: Queryable,
  sourceIds: readonly string[],
  now: Date,
): Promise<void> {
  if (sourceIds.length === 0) return;
  const since = new Date(now.getTime() - SOURCE_PROGRESS_THROTTLE_MS);
  await sql`
    insert into admin_events (workspace_id, type, payload, created_at)
    select s.workspace_id, 'source.progress', jsonb_build_object(
      'type', 'source.progress', 'at', ${now.toISOString()}::text,
      'agent_id', s.agent_id, 'source_id', s.id, 'status', s.status
    ), ${now}::timestamptz
    from sources s
    where s.id in (${sql.join(sourceIds)})
      and not exists (
        select 1 from admin_events e
        where e.workspace_id = s.workspace_id and e.type = 'source.progress'
          and e.created_at > ${since}::timestamptz
          and e.payload->>'source_id' = s.id and e.payload->>'status' = s.status
      )`.execute(db);
}
