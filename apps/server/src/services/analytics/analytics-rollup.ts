import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import { conversationsOnDays, dailyCounts, questionCounts, sourceCounts } from './analytics-sql.js';

/**
 * Recomputes the workspace's dirty days (marked by the triggers of migration 0028 in the same
 * transaction as each change) in one transaction: each day's roll-up rows are replaced by the
 * counts of that day's conversations. Returns the recomputed days. A change committed while
 * this runs marks its day again, so the next read recomputes it.
 */
export async function refreshAnalytics(db: Kysely<DB>, workspaceId: string): Promise<string[]> {
  // The common case (nothing changed since the last read) costs one index probe, no write.
  const dirty = await db
    .selectFrom('analytics_dirty_days')
    .select('workspace_id')
    .where('workspace_id', '=', workspaceId)
    .limit(1)
    .executeTakeFirst();
  if (!dirty) return [];
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ day: string }>`
      delete from analytics_dirty_days where workspace_id = ${workspaceId}
      returning to_char(day, 'YYYY-MM-DD') as day`.execute(trx);
    const days = rows.map((row) => row.day).sort();
    if (days.length === 0) return days;
    const filter = conversationsOnDays(workspaceId, days);
    for (const table of ['analytics_daily', 'analytics_source_daily', 'analytics_question_daily'] as const) {
      await sql`delete from ${sql.table(table)}
        where workspace_id = ${workspaceId} and day = any(${days}::date[])`.execute(trx);
    }
    await sql`insert into analytics_daily (workspace_id, agent_id, day, conversations, visitor_messages,
        questions, bot_only, handed_off, unanswered, rated_up, rated_down)
      select ${workspaceId}, d.* from (${dailyCounts(filter)}) d`.execute(trx);
    await sql`insert into analytics_source_daily (workspace_id, agent_id, day, source_key, title, url,
        cited, rated_up, rated_down)
      select ${workspaceId}, s.* from (${sourceCounts(filter)}) s`.execute(trx);
    await sql`insert into analytics_question_daily (workspace_id, agent_id, day, question_key, question,
        asks, unanswered)
      select ${workspaceId}, q.* from (${questionCounts(filter)}) q`.execute(trx);
    return days;
  });
}
