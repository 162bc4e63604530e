import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { DATA_COMMANDS } from '../../src/cli/commands.js';
import { createLogger } from '../../src/logger.js';
import type { TestApp } from './test-app.js';

/** Runs one of the operator's plan commands against a test app's store. */
export function runPlanCommand(
  t: TestApp,
  command: 'plan:set' | 'plan:assign',
  args: Record<string, unknown>,
): Promise<unknown> {
  return DATA_COMMANDS[command](
    { config: t.config, database: t.database, clock: t.clock, log: createLogger('silent') },
    args,
  );
}

/** What billing state a workspace is in, and how many billing rows exist in all. */
export async function billingState(t: TestApp, workspaceId: string) {
  const workspace = await t.database.db
    .selectFrom('workspaces')
    .select(['plan_key', 'billing_status'])
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const audits = await t.database.db
    .selectFrom('audit_logs')
    .select(['action', 'actor_type', 'metadata'])
    .where('workspace_id', '=', workspaceId)
    .where('action', 'like', 'billing.%')
    .orderBy('id')
    .execute();
  const events = await t.database.db.selectFrom('billing_events').selectAll().execute();
  const subscriptions = await t.database.db.selectFrom('billing_subscriptions').selectAll().execute();
  return { ...workspace, audits, events: events.length, subscriptions: subscriptions.length };
}

/** POSTs raw bytes as JSON to a billing webhook route with the given headers. */
export function postWebhook(
  t: TestApp,
  provider: 'stripe' | 'paypal' | 'paddle',
  body: string,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/billing/webhooks/${provider}`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: body,
  });
}

/** Asserts the 200 `{received: true, outcome}` of a handled webhook. */
export function expectReceived(res: LightMyRequestResponse, outcome: string): void {
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(JSON.parse(res.body), { received: true, outcome });
}
