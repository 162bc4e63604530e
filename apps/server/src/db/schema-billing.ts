import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

/** A plan and its limits (null: no limit); the operator manages them with the CLI. */
export type PlansTable = {
  key: string;
  name: string;
  max_agents: number | null;
  max_messages_per_month: number | null;
  max_sources: number | null;
  /** bigint: pg returns it as a string (no precision lost). */
  max_upload_bytes: ColumnType<string | null, number | string | null, number | string | null>;
  stripe_price_ids: Generated<string[]>;
  paypal_plan_ids: Generated<string[]>;
  paddle_price_ids: Generated<string[]>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

/** Visitor messages of a workspace in one calendar month (UTC, `YYYY-MM`). */
export type WorkspaceUsageTable = {
  workspace_id: string;
  period: string;
  visitor_messages: Generated<number>;
  refused_messages: Generated<number>;
};

/** Which payment providers send billing webhooks. */
export type BillingProvider = 'stripe' | 'paypal' | 'paddle';

/** A provider's subscription and the workspace it pays for. */
export type BillingSubscriptionsTable = {
  provider: BillingProvider;
  subscription_id: string;
  workspace_id: string;
  plan_key: string | null;
  status: string;
  last_event_at: Date;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

/** Every verified billing event, once per provider and event id. */
export type BillingEventsTable = {
  provider: BillingProvider;
  event_id: string;
  event_type: string;
  workspace_id: string | null;
  outcome: string;
  received_at: CreatedAt;
};

/** The billing tables (merged into `DB` in schema.ts). */
export type BillingTables = {
  plans: PlansTable;
  workspace_usage: WorkspaceUsageTable;
  billing_subscriptions: BillingSubscriptionsTable;
  billing_events: BillingEventsTable;
};
