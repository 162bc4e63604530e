import type { TPlanLimits, TWorkspacePlan } from '@service/contract';
import { ZBillingStatus } from '@service/contract';
import type { Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { PlansTable } from '../../db/schema-billing.js';
import { AppError, notFound } from '../../errors/app-error.js';
import { recordAudit } from '../audit.js';
import type { Actor, TenantScope } from '../context.js';
import { countedSourcesSql, uploadBytesSql, usagePeriod } from './plan-limits.js';

/** The plan every workspace starts on and returns to when its subscription ends. */
export const DEFAULT_PLAN_KEY = 'default';

/** A plan as the CLI shows it. */
export type PlanView = {
  key: string;
  name: string;
  limits: TPlanLimits;
  stripe_price_ids: string[];
  paypal_plan_ids: string[];
  paddle_price_ids: string[];
};

/** What `plan:set` may change; an absent field keeps its value, null removes a limit. */
export type PlanInput = {
  key: string;
  name?: string | undefined;
  limits?: Partial<TPlanLimits>;
  stripe_price_ids?: string[] | undefined;
  paypal_plan_ids?: string[] | undefined;
  paddle_price_ids?: string[] | undefined;
};

type PlanRow = {
  key: string;
  name: string;
  max_agents: number | null;
  max_messages_per_month: number | null;
  max_sources: number | null;
  max_upload_bytes: string | null;
  stripe_price_ids: string[];
  paypal_plan_ids: string[];
  paddle_price_ids: string[];
};

function toPlanView(row: PlanRow): PlanView {
  return {
    key: row.key,
    name: row.name,
    limits: limitsOf(row),
    stripe_price_ids: row.stripe_price_ids,
    paypal_plan_ids: row.paypal_plan_ids,
    paddle_price_ids: row.paddle_price_ids,
  };
}

function limitsOf(row: Omit<PlanRow, 'key' | 'name' | `${string}_ids`>): TPlanLimits {
  return {
    agents: row.max_agents,
    messages_per_month: row.max_messages_per_month,
    sources: row.max_sources,
    upload_bytes: row.max_upload_bytes === null ? null : Number(row.max_upload_bytes),
  };
}

/** Every plan, the default first. */
export async function listPlans(db: Queryable): Promise<PlanView[]> {
  const rows = await db
    .selectFrom('plans')
    .selectAll()
    .orderBy(sql`key = ${DEFAULT_PLAN_KEY}`, 'desc')
    .orderBy('key')
    .execute();
  return rows.map(toPlanView);
}

/**
 * Creates or changes a plan (the operator's `plan:set`). A provider price id belongs to one plan
 * at most, so a subscription maps onto exactly one (422 otherwise); nothing is changed then.
 */
export async function setPlan(db: Queryable, input: PlanInput): Promise<PlanView> {
  const columns: Updateable<PlansTable> = {};
  if (input.name !== undefined) columns.name = input.name;
  const limits = input.limits ?? {};
  if (limits.agents !== undefined) columns.max_agents = limits.agents;
  if (limits.messages_per_month !== undefined) columns.max_messages_per_month = limits.messages_per_month;
  if (limits.sources !== undefined) columns.max_sources = limits.sources;
  if (limits.upload_bytes !== undefined) columns.max_upload_bytes = limits.upload_bytes;
  for (const field of ['stripe_price_ids', 'paypal_plan_ids', 'paddle_price_ids'] as const) {
    const ids = input[field];
    if (ids === undefined) continue;
    columns[field] = ids;
    if (ids.length === 0) continue;
    const taken = await db
      .selectFrom('plans')
      .select(['key'])
      .where('key', '!=', input.key)
      .where(sql<boolean>`${sql.ref(field)} && ${sql.val(ids)}::text[]`)
      .executeTakeFirst();
    if (taken) {
      const message = `A price id is already mapped to the plan ${taken.key}; one id maps to one plan.`;
      throw new AppError('validation_failed', { message, errors: { [field]: [message] } });
    }
  }
  const row = await db
    .insertInto('plans')
    .values({
      key: input.key,
      name: input.name ?? input.key,
      max_agents: limits.agents ?? null,
      max_messages_per_month: limits.messages_per_month ?? null,
      max_sources: limits.sources ?? null,
      max_upload_bytes: limits.upload_bytes ?? null,
      stripe_price_ids: input.stripe_price_ids ?? [],
      paypal_plan_ids: input.paypal_plan_ids ?? [],
      paddle_price_ids: input.paddle_price_ids ?? [],
    })
    .onConflict((oc) => oc.column('key').doUpdateSet({ ...columns, updated_at: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
  return toPlanView(row);
}

/** Puts a workspace on a plan (the operator's `plan:assign`), audited; 404 for an unknown one. */
export async function assignPlan(options: {
  db: Queryable;
  clock: Clock;
  workspaceId: string;
  planKey: string;
  actor: Actor;
}): Promise<{ workspace_id: string; plan: string; previous_plan: string }> {
  const { db } = options;
  const plan = await db
    .selectFrom('plans')
    .select(['key'])
    .where('key', '=', options.planKey)
    .executeTakeFirst();
  if (!plan) {
    throw new AppError('not_found', {
      message: `No plan with key ${options.planKey}; create it with plan:set.`,
    });
  }
  const current = await db
    .selectFrom('workspaces')
    .select(['plan_key'])
    .where('id', '=', options.workspaceId)
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw new AppError('not_found', { message: `No workspace with id ${options.workspaceId}.` });
  await db
    .updateTable('workspaces')
    .set({ plan_key: plan.key, updated_at: options.clock.now() })
    .where('id', '=', options.workspaceId)
    .execute();
  await recordAudit(db, {
    workspaceId: options.workspaceId,
    actor: options.actor,
    action: 'plan.changed',
    target: { type: 'workspace', id: options.workspaceId },
    metadata: { from: current.plan_key, to: plan.key, by: 'operator' },
  });
  return { workspace_id: options.workspaceId, plan: plan.key, previous_plan: current.plan_key };
}

/** The workspace's plan, its limits, this month's usage and the limits reached (one statement). */
export async function getWorkspacePlan(
  scope: Pick<TenantScope, 'db' | 'workspaceId' | 'clock'>,
): Promise<TWorkspacePlan> {
  const period = usagePeriod(scope.clock.now());
  const ws = scope.workspaceId;
  const { rows } = await sql<
    PlanRow & {
      billing_status: string;
      agents: string;
      sources: string;
      upload_bytes: string;
      messages: number | null;
      refused: number | null;
    }
  >`select p.*, w.billing_status,
      (select count(*) from agents a where a.workspace_id = w.id)::text as agents,
      ${countedSourcesSql(ws)} as sources,
      ${uploadBytesSql(ws)} as upload_bytes,
      u.visitor_messages as messages, u.refused_messages as refused
    from workspaces w
    join plans p on p.key = w.plan_key
    left join workspace_usage u on u.workspace_id = w.id and u.period = ${period}
    where w.id = ${ws}`.execute(scope.db);
  const row = rows[0];
  if (!row) throw notFound();
  const limits = limitsOf(row);
  const usage = {
    agents: Number(row.agents),
    messages_this_month: row.messages ?? 0,
    refused_messages_this_month: row.refused ?? 0,
    sources: Number(row.sources),
    upload_bytes: Number(row.upload_bytes),
  };
  const reached = (limit: number | null, used: number) => limit !== null && used >= limit;
  const atLimit: TWorkspacePlan['at_limit'] = [];
  if (reached(limits.agents, usage.agents)) atLimit.push('agents');
  if (reached(limits.messages_per_month, usage.messages_this_month)) atLimit.push('messages_per_month');
  if (reached(limits.sources, usage.sources)) atLimit.push('sources');
  if (reached(limits.upload_bytes, usage.upload_bytes)) atLimit.push('upload_bytes');
  const status = ZBillingStatus.safeParse(row.billing_status);
  return {
    plan: { key: row.key, name: row.name },
    billing_status: status.success ? status.data : 'none',
    period,
    limits,
    usage,
    at_limit: atLimit,
  };
}

/**
 * Counts a visitor message refused over the monthly limit (for the console's banner and the
 * operator's `usage`); the message itself was not stored.
 */
export async function countRefusedMessage(db: Queryable, workspaceId: string, now: Date): Promise<void> {
  await db
    .insertInto('workspace_usage')
    .values({ workspace_id: workspaceId, period: usagePeriod(now), refused_messages: 1 })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'period']).doUpdateSet((eb) => ({
        refused_messages: eb('workspace_usage.refused_messages', '+', 1),
      })),
    )
    .execute();
}
