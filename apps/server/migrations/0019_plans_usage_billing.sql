-- Plans with limits, usage per workspace and month, and the billing webhooks' bookkeeping.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

-- A plan's limits; null means no limit. The operator manages plans with the CLI (`plan:set`);
-- the price ids map a payment provider's subscription onto the plan.
create table plans (
  key text primary key check (key ~ '^[a-z0-9][a-z0-9_-]{0,39}$'),
  name text not null,
  max_agents integer check (max_agents >= 0),
  max_messages_per_month integer check (max_messages_per_month >= 0),
  max_sources integer check (max_sources >= 0),
  max_upload_bytes bigint check (max_upload_bytes >= 0),
  stripe_price_ids text[] not null default '{}',
  paypal_plan_ids text[] not null default '{}',
  paddle_price_ids text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Every workspace starts on it, and returns to it when its subscription ends: no limits until
-- the operator sets some.
insert into plans (key, name) values ('default', 'Default');

alter table workspaces add column plan_key text not null default 'default' references plans (key);
alter table workspaces add column billing_status text not null default 'none'
  check (billing_status in ('none', 'active', 'past_due', 'cancelled'));

-- Visitor messages per workspace and calendar month (UTC, 'YYYY-MM'): counted in the statement
-- that stores the message, refused ones counted apart for the console's banner.
create table workspace_usage (
  workspace_id text not null references workspaces (id) on delete cascade,
  period text not null check (period ~ '^[0-9]{4}-[0-9]{2}$'),
  visitor_messages integer not null default 0,
  refused_messages integer not null default 0,
  primary key (workspace_id, period)
);

-- A provider's subscription and the workspace it pays for (later events may carry no workspace).
create table billing_subscriptions (
  provider text not null check (provider in ('stripe', 'paypal', 'paddle')),
  subscription_id text not null,
  workspace_id text not null references workspaces (id) on delete cascade,
  plan_key text references plans (key) on delete set null,
  status text not null,
  last_event_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (provider, subscription_id)
);
create index billing_subscriptions_workspace_idx on billing_subscriptions (workspace_id);

-- Every verified event, once: a provider's retry of an event id is answered without applying it again.
create table billing_events (
  provider text not null check (provider in ('stripe', 'paypal', 'paddle')),
  event_id text not null,
  event_type text not null,
  workspace_id text references workspaces (id) on delete set null,
  outcome text not null,
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);
