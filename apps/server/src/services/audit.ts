import type { TAuditLog } from '@service/contract';
import type { Queryable } from '../db/queryable.js';
import type { AuditLogRow } from '../db/schema.js';
import { newId } from '../security/ids.js';
import { type Actor, iso } from './context.js';

/** One privileged action to record. */
export type AuditEntry = {
  workspaceId: string;
  actor: Actor;
  action: string;
  target?: { type: string; id: string };
  metadata?: Record<string, unknown>;
  requestId?: string | undefined;
};

/**
 * Writes an audit record; call it inside the transaction of the change it records. During an
 * impersonation the actor is the operator and `on_behalf_of_user_id` the member viewed as.
 */
export async function recordAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  const impersonatorId = entry.actor.type === 'user' ? entry.actor.impersonatorId : undefined;
  await db
    .insertInto('audit_logs')
    .values({
      id: newId(),
      workspace_id: entry.workspaceId,
      actor_type: entry.actor.type,
      actor_id: impersonatorId ?? entry.actor.id,
      action: entry.action,
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id ?? null,
      metadata: JSON.stringify(entry.metadata ?? {}),
      request_id: entry.requestId ?? null,
      on_behalf_of_user_id: impersonatorId ? entry.actor.id : null,
    })
    .execute();
}

/** Filters of the audit log (all optional, combined with AND); `from` inclusive, `to` exclusive. */
export type AuditLogFilters = {
  action?: string | undefined;
  actor_id?: string | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
};

/**
 * Lists a workspace's audit records, newest first, with keyset paging on the id. Each of the
 * actor, action and target filters has an index in id order (0027); the date range narrows it.
 */
export async function listAuditLogs(
  options: {
    db: Queryable;
    workspaceId: string;
    limit: number;
    before?: string | undefined;
  } & AuditLogFilters,
): Promise<{ items: TAuditLog[]; nextBefore: string | null }> {
  let query = options.db
    .selectFrom('audit_logs')
    .selectAll()
    .where('workspace_id', '=', options.workspaceId)
    .orderBy('id', 'desc')
    .limit(options.limit + 1);
  if (options.before) query = query.where('id', '<', options.before);
  if (options.action) query = query.where('action', '=', options.action);
  if (options.actor_id) query = query.where('actor_id', '=', options.actor_id);
  if (options.target_type) query = query.where('target_type', '=', options.target_type);
  if (options.target_id) query = query.where('target_id', '=', options.target_id);
  if (options.from) query = query.where('created_at', '>=', new Date(options.from));
  if (options.to) query = query.where('created_at', '<', new Date(options.to));
  const rows = await query.execute();
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return { items: page.map(toAuditLog), nextBefore: rows.length > options.limit && last ? last.id : null };
}

function toAuditLog(row: AuditLogRow): TAuditLog {
  return {
    id: row.id,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    metadata: row.metadata,
    request_id: row.request_id,
    on_behalf_of: row.on_behalf_of_user_id,
    created_at: iso(row.created_at),
  };
}
