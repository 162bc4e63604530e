import { type RawBuilder, sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import { AppError } from '../../errors/app-error.js';

/** What a write adds that a plan limits: agents, sources (uploads are sources too), upload bytes. */
export type PlannedAddition = { agents?: number; sources?: number; uploadBytes?: number };

/** The calendar month (UTC) usage is counted in, `YYYY-MM`. */
export function usagePeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/**
 * The workspace's monthly visitor-message limit as a scalar subquery (null: no limit), for the
 * statement that stores a visitor's message and counts it (`services/widget/widget-conversation.ts`).
 */
export function messageLimitSql(workspaceId: string): RawBuilder<number | null> {
  return sql<number | null>`(select p.max_messages_per_month from workspaces w
    join plans p on p.key = w.plan_key where w.id = ${workspaceId})`;
}

/**
 * Sources a plan counts: the ones people add (URLs, crawls, sitemaps, texts, SQL, uploads). The
 * service's own (the knowledge base's, a synced site's, pages indexed as visitors browse them)
 * are not counted: the operator's customers do not choose them.
 */
export function countedSourcesSql(workspaceId: string | RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(select count(*)::text from sources s where s.workspace_id = ${workspaceId}
    and s.type in ('url', 'crawl', 'sitemap', 'text', 'sql', 'upload')
    and coalesce(s.config->>'visitor_page', 'false') <> 'true')`;
}

/** Upload storage of a workspace: the bytes of every uploaded file its sources still hold. */
export function uploadBytesSql(workspaceId: string | RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(select coalesce(sum((s.config->>'size_bytes')::bigint), 0)::text from sources s
    where s.workspace_id = ${workspaceId} and s.type = 'upload')`;
}

/**
 * Refuses a write that would take the workspace past its plan (403 `plan_limit_reached`, the
 * limit named in `errors`). Call it inside the transaction of the write, before the write: it
 * locks the workspace's row, so two concurrent writes of one workspace take turns and the
 * second counts what the first committed (PostgreSQL re-reads after the lock; the embedded
 * store has one connection). A plan change waits for the lock too.
 */
export async function assertPlanAllows(
  trx: Queryable,
  workspaceId: string,
  adding: PlannedAddition,
): Promise<void> {
  const row = await trx
    .selectFrom('workspaces')
    .innerJoin('plans', 'plans.key', 'workspaces.plan_key')
    .select(['plans.max_agents', 'plans.max_sources', 'plans.max_upload_bytes'])
    .where('workspaces.id', '=', workspaceId)
    .forUpdate('workspaces')
    .executeTakeFirst();
  if (!row) return;
  const addAgents = adding.agents ?? 0;
  const addSources = adding.sources ?? 0;
  const addBytes = adding.uploadBytes ?? 0;
  if (addAgents > 0 && row.max_agents !== null) {
    const used = await countOf(trx, 'agents', workspaceId);
    if (used + addAgents > row.max_agents) {
      throw limitReached(
        'agents',
        `The plan allows ${row.max_agents} ${plural(row.max_agents, 'agent')}; this workspace has ${used}.`,
      );
    }
  }
  if (addSources > 0 && row.max_sources !== null) {
    const { rows } = await sql<{ n: string }>`select ${countedSourcesSql(workspaceId)} as n`.execute(trx);
    const used = Number(rows[0]?.n ?? 0);
    if (used + addSources > row.max_sources) {
      throw limitReached(
        'sources',
        `The plan allows ${row.max_sources} ${plural(row.max_sources, 'source')}; this workspace has ${used}` +
          (addSources > 1 ? ` and this adds ${addSources}.` : '.'),
      );
    }
  }
  if (addBytes > 0 && row.max_upload_bytes !== null) {
    const limit = Number(row.max_upload_bytes);
    const { rows } = await sql<{ bytes: string }>`select ${uploadBytesSql(workspaceId)} as bytes`.execute(
      trx,
    );
    const used = Number(rows[0]?.bytes ?? 0);
    if (used + addBytes > limit) {
      throw limitReached(
        'upload_bytes',
        `The plan allows ${formatBytes(limit)} of uploads; this workspace uses ${formatBytes(used)} and these files add ${formatBytes(addBytes)}.`,
      );
    }
  }
}

async function countOf(trx: Queryable, table: 'agents', workspaceId: string): Promise<number> {
  const row = await trx
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

function limitReached(field: string, message: string): AppError {
  return new AppError('plan_limit_reached', { message, errors: { [field]: [message] } });
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

/** Bytes for people: whole bytes below 1 KB, else KB/MB/GB with one decimal where it helps. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
