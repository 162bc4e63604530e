import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { DB } from '../../db/schema.js';
import type { BillingProvider } from '../../db/schema-billing.js';
import type { BillingEvent } from '../../payments/billing-event.js';
import { recordAudit } from '../audit.js';
import { DEFAULT_PLAN_KEY } from './plans.js';

/** How an event was handled: applied, a repeat of one already received, or recorded without effect. */
export type BillingOutcome =
  | 'applied'
  | 'pending'
  | 'duplicate'
  | 'ignored'
  | 'no_workspace'
  | 'stale'
  | 'unknown_price';

// Provider status words that mean the subscription is paid up, in arrears, or over. Any other
// (Stripe's `incomplete`, PayPal's `APPROVAL_PENDING`/`APPROVED`: not paid yet) changes no plan.
const ACTIVE = new Set(['active', 'trialing']);
const IN_ARREARS = new Set(['past_due', 'unpaid', 'suspended', 'paused']);
const ENDED = new Set(['canceled', 'cancelled', 'expired', 'incomplete_expired']);

const PRICE_COLUMN = {
  stripe: 'stripe_price_ids',
  paypal: 'paypal_plan_ids',
  paddle: 'paddle_price_ids',
} as const;

/**
 * Applies a verified billing event once: the event id is recorded first (a repeat is answered
 * `duplicate` and changes nothing), then the subscription is tied to its workspace and the
 * workspace's plan and billing status follow it, with an audit record, all in one transaction.
 * Created/updated map the subscription's price onto the plan that lists it (active) or keep the
 * plan and mark it past due (in arrears); cancelled returns the workspace to the default plan;
 * a failed payment marks it past due and keeps the plan (the provider retries the payment, and
 * cancels the subscription when it gives up).
 */
export async function applyBillingEvent(options: {
  db: Kysely<DB>;
  clock: Clock;
  event: BillingEvent;
}): Promise<{ outcome: BillingOutcome; workspaceId: string | null }> {
  const { event } = options;
  return options.db.transaction().execute(async (trx) => {
    const fresh = await trx
      .insertInto('billing_events')
      .values({
        provider: event.provider,
        event_id: event.eventId,
        event_type: event.eventType,
        outcome: 'received',
        received_at: options.clock.now(),
      })
      .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
      .returning(['event_id'])
      .executeTakeFirst();
    if (!fresh) return { outcome: 'duplicate' as const, workspaceId: null };
    const result = await applyOnce(trx, options.clock, event);
    await trx
      .updateTable('billing_events')
      .set({ outcome: result.outcome, workspace_id: result.workspaceId })
      .where('provider', '=', event.provider)
      .where('event_id', '=', event.eventId)
      .execute();
    return result;
  });
}

async function applyOnce(
  trx: Queryable,
  clock: Clock,
  event: BillingEvent,
): Promise<{ outcome: BillingOutcome; workspaceId: string | null }> {
  if (event.change === null || event.subscriptionId === null)
    return { outcome: 'ignored', workspaceId: null };
  const known = await trx
    .selectFrom('billing_subscriptions')
    .selectAll()
    .where('provider', '=', event.provider)
    .where('subscription_id', '=', event.subscriptionId)
    .forUpdate()
    .executeTakeFirst();
  // A subscription stays with the workspace it was first tied to: later metadata cannot move it.
  const workspaceId = known?.workspace_id ?? event.workspaceId;
  if (workspaceId === null) return { outcome: 'no_workspace', workspaceId: null };
  const workspace = await trx
    .selectFrom('workspaces')
    .select(['id', 'plan_key', 'billing_status'])
    .where('id', '=', workspaceId)
    .forUpdate()
    .executeTakeFirst();
  if (!workspace) return { outcome: 'no_workspace', workspaceId: null };
  if (known && known.last_event_at.getTime() > event.occurredAt.getTime()) {
    return { outcome: 'stale', workspaceId };
  }

  let planKey = workspace.plan_key;
  let billingStatus = workspace.billing_status;
  let outcome: BillingOutcome = 'applied';
  const status = event.status?.toLowerCase() ?? null;
  if (event.change === 'cancelled' || (status !== null && ENDED.has(status))) {
    planKey = DEFAULT_PLAN_KEY;
    billingStatus = 'cancelled';
  } else if (event.change === 'payment_failed' || (status !== null && IN_ARREARS.has(status))) {
    billingStatus = 'past_due';
  } else if (status === null || ACTIVE.has(status)) {
    const mapped = await planForPrices(trx, event.provider, event.priceIds);
    if (mapped === null) {
      outcome = 'unknown_price';
    } else {
      planKey = mapped;
    }
    billingStatus = 'active';
  } else {
    // Not paid yet: the subscription is remembered (its workspace), the plan waits for "active".
    outcome = 'pending';
  }

  const now = clock.now();
  await trx
    .insertInto('billing_subscriptions')
    .values({
      provider: event.provider,
      subscription_id: event.subscriptionId,
      workspace_id: workspaceId,
      plan_key: outcome === 'applied' ? planKey : null,
      status: status ?? event.change,
      last_event_at: event.occurredAt,
    })
    .onConflict((oc) =>
      oc.columns(['provider', 'subscription_id']).doUpdateSet({
        ...(outcome === 'applied' ? { plan_key: planKey } : {}),
        status: status ?? event.change ?? 'unknown',
        last_event_at: event.occurredAt,
        updated_at: now,
      }),
    )
    .execute();
  await trx
    .updateTable('workspaces')
    .set({ plan_key: planKey, billing_status: billingStatus, updated_at: now })
    .where('id', '=', workspaceId)
    .execute();
  await recordAudit(trx, {
    workspaceId,
    actor: { type: 'system', id: null },
    action: `billing.subscription_${event.change}`,
    target: { type: 'workspace', id: workspaceId },
    metadata: {
      provider: event.provider,
      event_id: event.eventId,
      event_type: event.eventType,
      subscription_id: event.subscriptionId,
      plan_from: workspace.plan_key,
      plan_to: planKey,
      billing_status: billingStatus,
      ...(outcome === 'unknown_price' ? { unknown_price_ids: event.priceIds } : {}),
    },
  });
  return { outcome, workspaceId };
}

/** The plan that lists one of the provider's price ids, or null when none does. */
async function planForPrices(
  trx: Queryable,
  provider: BillingProvider,
  priceIds: string[],
): Promise<string | null> {
  if (priceIds.length === 0) return null;
  const row = await trx
    .selectFrom('plans')
    .select(['key'])
    .where(sql<boolean>`${sql.ref(PRICE_COLUMN[provider])} && ${sql.val(priceIds)}::text[]`)
    .orderBy('key')
    .executeTakeFirst();
  return row?.key ?? null;
}
