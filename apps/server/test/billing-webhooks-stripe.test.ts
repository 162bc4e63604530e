import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { billingState, expectReceived, postWebhook, runPlanCommand } from './support/billing.js';
import { expectError } from './support/http.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';

// The Stripe webhook: Stripe-Signature verified by the official library over the raw body, at
// the service's clock; genuine, tampered, replayed and out-of-tolerance deliveries; each change
// of a subscription mapped onto the workspace's plan, with audit records.

const SECRET = 'whsec_test_billing_secret';
const START = Date.parse('2026-05-10T12:00:00Z');

describe('billing webhook: Stripe', () => {
  let t: TestApp;
  let tenant: Tenant;
  const clock = createTestClock(START);
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  before(async () => {
    t = await createTestApp({ clock, env: { STRIPE_WEBHOOK_SECRET: SECRET } });
    tenant = await seedTenant(t, 'Stripe customer');
    await runPlanCommand(t, 'plan:set', {
      key: 'pro',
      name: 'Pro',
      agents: '10',
      'stripe-prices': 'price_pro',
    });
    await runPlanCommand(t, 'plan:set', { key: 'team', name: 'Team', 'stripe-prices': 'price_team' });
  });
  after(() => t.close());

  let counter = 0;
  function subscriptionEvent(type: string, object: Record<string, unknown>): string {
    counter += 1;
    return JSON.stringify({
      id: `evt_${counter}_${type.replace(/\W/g, '')}`,
      object: 'event',
      type,
      created: nowSeconds(),
      data: { object },
    });
  }
  const subscription = (
    price: string,
    status = 'active',
    metadata: Record<string, string> = { workspace_id: tenant.workspace.id },
  ) => ({
    id: 'sub_123',
    object: 'subscription',
    status,
    metadata,
    items: { object: 'list', data: [{ id: 'si_1', price: { id: price } }] },
  });
  const sign = (payload: string, timestamp = nowSeconds(), secret = SECRET) =>
    Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  const send = (payload: string, signature: string | null) =>
    postWebhook(t, 'stripe', payload, signature === null ? {} : { 'stripe-signature': signature });

  test('genuine: created maps the price onto its plan, audited; no cookie or CSRF header needed', async () => {
    const payload = subscriptionEvent('customer.subscription.created', subscription('price_pro'));
    expectReceived(await send(payload, sign(payload)), 'applied');
    const state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'pro');
    assert.equal(state.billing_status, 'active');
    assert.deepEqual(state.audits.at(-1)?.metadata, {
      provider: 'stripe',
      event_id: JSON.parse(payload).id,
      event_type: 'customer.subscription.created',
      subscription_id: 'sub_123',
      plan_from: 'default',
      plan_to: 'pro',
      billing_status: 'active',
    });
    assert.equal(state.audits.at(-1)?.action, 'billing.subscription_created');
    assert.equal(state.audits.at(-1)?.actor_type, 'system');
  });

  test('replayed: the same event again is answered duplicate and changes nothing', async () => {
    const payload = subscriptionEvent('customer.subscription.updated', subscription('price_team'));
    expectReceived(await send(payload, sign(payload)), 'applied');
    const before = await billingState(t, tenant.workspace.id);
    assert.equal(before.plan_key, 'team');
    // The provider retries (new signature, same event), or an attacker replays it as it was.
    clock.advance(5_000);
    expectReceived(await send(payload, sign(payload)), 'duplicate');
    expectReceived(await send(payload, sign(payload, nowSeconds() - 5)), 'duplicate');
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
  });

  test('tampered: a body, signature or secret that does not match is a 400 with nothing stored', async () => {
    const before = await billingState(t, tenant.workspace.id);
    const payload = subscriptionEvent('customer.subscription.updated', subscription('price_pro'));
    const header = sign(payload);
    const tampered = payload.replace('price_pro', 'price_team');
    expectError(await send(tampered, header), 400, 'webhook_signature_invalid');
    expectError(
      await send(payload, sign(payload, nowSeconds(), 'whsec_other')),
      400,
      'webhook_signature_invalid',
    );
    expectError(
      await send(
        payload,
        header.replace(/v1=([0-9a-f])/, (_m, c) => `v1=${c === '0' ? '1' : '0'}`),
      ),
      400,
    );
    expectError(await send(payload, null), 400, 'webhook_signature_invalid');
    expectError(await send(payload, 'garbage'), 400, 'webhook_signature_invalid');
    // One byte of whitespace added after signing is another body.
    expectError(await send(`${payload} `, header), 400, 'webhook_signature_invalid');
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
  });

  test('out of tolerance: 300 s old is accepted, 301 s is refused; so is 301 s in the future', async () => {
    const old = subscriptionEvent('customer.subscription.updated', subscription('price_pro'));
    expectReceived(await send(old, sign(old, nowSeconds() - 300)), 'applied');
    const before = await billingState(t, tenant.workspace.id);
    const older = subscriptionEvent('customer.subscription.updated', subscription('price_team'));
    expectError(await send(older, sign(older, nowSeconds() - 301)), 400, 'webhook_signature_invalid');
    const future = subscriptionEvent('customer.subscription.updated', subscription('price_team'));
    expectError(await send(future, sign(future, nowSeconds() + 301)), 400, 'webhook_signature_invalid');
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
  });

  test('payment failed marks it past due and keeps the plan; cancelled returns to the default plan', async () => {
    clock.advance(60_000);
    const failed = subscriptionEvent('invoice.payment_failed', {
      id: 'in_1',
      object: 'invoice',
      parent: { subscription_details: { subscription: 'sub_123', metadata: {} } },
    });
    expectReceived(await send(failed, sign(failed)), 'applied');
    let state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'pro');
    assert.equal(state.billing_status, 'past_due');
    clock.advance(60_000);
    const deleted = subscriptionEvent(
      'customer.subscription.deleted',
      subscription('price_pro', 'canceled', {}),
    );
    expectReceived(await send(deleted, sign(deleted)), 'applied');
    state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'default');
    assert.equal(state.billing_status, 'cancelled');
    assert.deepEqual(
      state.audits.slice(-2).map((a) => a.action),
      ['billing.subscription_payment_failed', 'billing.subscription_cancelled'],
    );
  });

  test('a subscription stays with its first workspace; unknown workspaces and other event types change nothing', async () => {
    const other = await seedTenant(t, 'Other');
    clock.advance(60_000);
    // Later metadata naming another workspace cannot move sub_123 there.
    const moved = subscriptionEvent(
      'customer.subscription.updated',
      subscription('price_team', 'active', { workspace_id: other.workspace.id }),
    );
    expectReceived(await send(moved, sign(moved)), 'applied');
    assert.equal((await billingState(t, other.workspace.id)).plan_key, 'default');
    assert.equal((await billingState(t, tenant.workspace.id)).plan_key, 'team');

    const stranger = subscriptionEvent('customer.subscription.created', {
      ...subscription('price_pro', 'active', { workspace_id: 'ws_does_not_exist' }),
      id: 'sub_stranger',
    });
    expectReceived(await send(stranger, sign(stranger)), 'no_workspace');
    const ignored = subscriptionEvent('charge.succeeded', { id: 'ch_1', object: 'charge' });
    expectReceived(await send(ignored, sign(ignored)), 'ignored');
    const unknownPrice = subscriptionEvent('customer.subscription.updated', subscription('price_unmapped'));
    expectReceived(await send(unknownPrice, sign(unknownPrice)), 'unknown_price');
    assert.equal(
      (await billingState(t, tenant.workspace.id)).plan_key,
      'team',
      'an unknown price keeps the plan',
    );
  });

  test('an older event than the last one applied is recorded as stale and not applied', async () => {
    const before = await billingState(t, tenant.workspace.id);
    const late = JSON.stringify({
      id: 'evt_late',
      object: 'event',
      type: 'customer.subscription.deleted',
      created: nowSeconds() - 3600,
      data: { object: subscription('price_pro', 'canceled') },
    });
    expectReceived(await send(late, sign(late)), 'stale');
    const after = await billingState(t, tenant.workspace.id);
    assert.equal(after.plan_key, before.plan_key);
    assert.equal(after.audits.length, before.audits.length);
  });

  test('a verified body that is not an event is a 400; other content types a 415', async () => {
    const notEvent = JSON.stringify({ hello: 'world' });
    expectError(await send(notEvent, sign(notEvent)), 400, 'bad_request');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/webhooks/stripe',
      headers: { 'content-type': 'text/plain', 'stripe-signature': sign('x') },
      payload: 'x',
    });
    expectError(res, 415, 'unsupported_media_type');
  });
});

describe('billing webhook: Stripe not configured', () => {
  test('answers 404 and stores nothing', async () => {
    const t = await createTestApp();
    try {
      const payload = JSON.stringify({
        id: 'evt_1',
        type: 'customer.subscription.created',
        created: 1,
        data: { object: {} },
      });
      const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
      expectError(await postWebhook(t, 'stripe', payload, { 'stripe-signature': header }), 404, 'not_found');
      assert.equal((await t.database.db.selectFrom('billing_events').selectAll().execute()).length, 0);
    } finally {
      await t.close();
    }
  });
});
