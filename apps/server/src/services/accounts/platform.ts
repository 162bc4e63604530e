import {
  type TPlatformMember,
  type TPlatformWorkspace,
  type TPlatformWorkspaceQuery,
  ZMembershipRole,
} from '@service/contract';
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import { AppError } from '../../errors/app-error.js';
import { recordAudit } from '../audit.js';
import { countedSourcesSql, uploadBytesSql, usagePeriod } from '../billing/plan-limits.js';
import { type Actor, iso } from '../context.js';
import { findUserByEmail } from './accounts.js';

/**
 * Every workspace of the installation, newest first, a page at a time (keyset on the id): name,
 * plan, a usage summary (agents, counted sources, upload bytes, visitor messages this month) and
 * the member count. For platform operators only; the caller checks that.
 */
export async function listPlatformWorkspaces(options: {
  db: Queryable;
  clock: Clock;
  query: TPlatformWorkspaceQuery;
}): Promise<{ items: TPlatformWorkspace[]; nextCursor: string | null }> {
  const { limit, cursor } = options.query;
  const period = usagePeriod(options.clock.now());
  const wid = sql.ref('w.id');
  const { rows } = await sql<{
    id: string;
    name: string;
    slug: string;
    plan_key: string;
    plan_name: string;
    created_at: Date;
    members: string;
    agents: string;
    sources: string;
    upload_bytes: string;
    messages: number | null;
  }>`select w.id, w.name, w.slug, w.plan_key, p.name as plan_name, w.created_at,
      (select count(*)::text from memberships m where m.workspace_id = w.id) as members,
      (select count(*)::text from agents a where a.workspace_id = w.id) as agents,
      ${countedSourcesSql(wid)} as sources,
      ${uploadBytesSql(wid)} as upload_bytes,
      u.visitor_messages as messages
    from workspaces w
    join plans p on p.key = w.plan_key
    left join workspace_usage u on u.workspace_id = w.id and u.period = ${period}
    where ${cursor === undefined ? sql`true` : sql`w.id < ${cursor}`}
    order by w.id desc
    limit ${limit + 1}`.execute(options.db);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      id: row.id,
      name: row.name,
      slug: row.slug,
      plan: { key: row.plan_key, name: row.plan_name },
      usage: {
        agents: Number(row.agents),
        sources: Number(row.sources),
        messages_this_month: row.messages ?? 0,
        upload_bytes: Number(row.upload_bytes),
      },
      member_count: Number(row.members),
      created_at: iso(row.created_at),
    })),
    nextCursor: rows.length > limit && last ? last.id : null,
  };
}

/** The members of a workspace (for choosing whom to view as), by email; 404 for an unknown workspace. */
export async function listWorkspaceMembers(db: Queryable, workspaceId: string): Promise<TPlatformMember[]> {
  const workspace = await db
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  if (!workspace) throw new AppError('not_found');
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'u.name', 'm.role'])
    .where('m.workspace_id', '=', workspaceId)
    .orderBy(sql`lower(u.email)`)
    .execute();
  return rows.map((row) => ({ ...row, role: ZMembershipRole.parse(row.role) }));
}

/** A user's privilege flag the CLI sets: `byok_enabled`, or the platform operator role. */
export type UserFlag = 'byok' | 'platform_admin';

/**
 * Turns a user's flag on or off (the CLI's `user:byok` and `user:platform-admin`; no HTTP route
 * reaches these fields). Writes one audit record in each workspace the user is a member of
 * (`user.byok_changed` / `user.platform_admin_changed`, target the user, metadata old and new),
 * even when nothing changed, so every run of the command is on record. 404 for an unknown email.
 */
export async function setUserFlag(options: {
  db: Queryable;
  clock: Clock;
  email: string;
  flag: UserFlag;
  on: boolean;
  actor: Actor;
}): Promise<{
  user_id: string;
  email: string;
  flag: UserFlag;
  old: boolean;
  new: boolean;
  audited_in: number;
}> {
  const { db, flag, on } = options;
  const found = await findUserByEmail(db, options.email);
  if (!found) throw new AppError('not_found', { message: `No user with email ${options.email}.` });
  const user = await db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'byok_enabled'])
    .where('id', '=', found.id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const old = flag === 'byok' ? user.byok_enabled : user.role === 'admin';
  await db
    .updateTable('users')
    .set(flag === 'byok' ? { byok_enabled: on } : { role: on ? 'admin' : 'user' })
    .set({ updated_at: options.clock.now() })
    .where('id', '=', user.id)
    .execute();
  const memberships = await db
    .selectFrom('memberships')
    .select('workspace_id')
    .where('user_id', '=', user.id)
    .orderBy('workspace_id')
    .execute();
  for (const { workspace_id: workspaceId } of memberships) {
    await recordAudit(db, {
      workspaceId,
      actor: options.actor,
      action: flag === 'byok' ? 'user.byok_changed' : 'user.platform_admin_changed',
      target: { type: 'user', id: user.id },
      metadata: { old, new: on },
    });
  }
  return { user_id: user.id, email: user.email, flag, old, new: on, audited_in: memberships.length };
}
