import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { verifyPaddleSignature } from '../src/payments/paddle-webhook.js';
import { billingState, expectReceived, postWebhook, runPlanCommand } from './support/billing.js';
import { expectError } from './support/http.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';

// The Paddle webhook: Paddle-Signature `ts=…;h1=…`, HMAC-SHA-256 over `<ts>:<raw body>` with
// node:crypto, compared in constant time; genuine, tampered, replayed and out-of-tolerance
// deliveries; subscription changes mapped onto the plan, audited.

const SECRET = 'pdl_ntfset_test_secret';
const START = Date.parse('2026-06-01T08:00:00Z');

function signPaddle(body: string, ts: number, secret = SECRET): string {
  const h1 = createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex');
  return `ts=${ts};h1=${h1}`;
}

describe('billing webhook: Paddle', () => {
  let t: TestApp;
  let tenant: Tenant;
  const clock = createTestClock(START);
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  before(async () => {
    t = await createTestApp({ clock, env: { PADDLE_WEBHOOK_SECRET: SECRET } });
    tenant = await seedTenant(t, 'Paddle customer');
    await runPlanCommand(t, 'plan:set', { key: 'starter', 'paddle-prices': 'pri_starter' });
    await runPlanCommand(t, 'plan:set', { key: 'growth', 'paddle-prices': 'pri_growth' });
  });
  after(() => t.close());

  let counter = 0;
  const event = (type: string, data: Record<string, unknown>) => {
    counter += 1;
    return JSON.stringify({
      event_id: `evt_${String(counter).padStart(4, '0')}`,
      event_type: type,
      occurred_at: clock.now().toISOString(),
      notification_id: `ntf_${counter}`,
      data,
    });
  };
  const subscription = (price: string, status = 'active') => ({
    id: 'sub_01paddle',
    status,
    custom_data: { workspace_id: tenant.workspace.id },
    items: [{ price: { id: price }, quantity: 1 }],
  });
  const send = (body: string, signature: string | null) =>
    postWebhook(t, 'paddle', body, signature === null ? {} : { 'paddle-signature': signature });

  test('genuine: created puts the workspace on the plan of its price, audited', async () => {
    const body = event('subscription.created', subscription('pri_starter'));
    expectReceived(await send(body, signPaddle(body, nowSeconds())), 'applied');
    const state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'starter');
    assert.equal(state.billing_status, 'active');
    assert.equal(state.audits.at(-1)?.action, 'billing.subscription_created');
  });

  test('replayed: an event id already received answers duplicate and changes nothing', async () => {
    clock.advance(1_000);
    const body = event('subscription.updated', subscription('pri_growth'));
    expectReceived(await send(body, signPaddle(body, nowSeconds())), 'applied');
    const before = await billingState(t, tenant.workspace.id);
    assert.equal(before.plan_key, 'growth');
    expectReceived(await send(body, signPaddle(body, nowSeconds())), 'duplicate');
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
  });

  test('tampered: another body, secret, malformed or missing header: 400 and nothing stored', async () => {
    const before = await billingState(t, tenant.workspace.id);
    const body = event('subscription.updated', subscription('pri_starter'));
    const header = signPaddle(body, nowSeconds());
    expectError(
      await send(body.replace('pri_starter', 'pri_growth'), header),
      400,
      'webhook_signature_invalid',
    );
    expectError(await send(body, signPaddle(body, nowSeconds(), 'other')), 400, 'webhook_signature_invalid');
    // The signature of this body for another timestamp: the timestamp is signed too.
    expectError(
      await send(body, header.replace(/ts=\d+/, `ts=${nowSeconds() + 1}`)),
      400,
      'webhook_signature_invalid',
    );
    for (const bad of [
      null,
      '',
      'h1=abc',
      `ts=${nowSeconds()}`,
      `ts=x;h1=${'0'.repeat(64)}`,
      `ts=${nowSeconds()};h1=zz`,
    ]) {
      expectError(await send(body, bad), 400, 'webhook_signature_invalid');
    }
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
  });

  test('a rotated secret: one of two h1 values matching is enough', async () => {
    clock.advance(1_000);
    const body = event('subscription.updated', subscription('pri_starter'));
    const ts = nowSeconds();
    const old = createHmac('sha256', 'old-secret').update(`${ts}:${body}`).digest('hex');
    const header = `${signPaddle(body, ts)};h1=${old}`.replace(
      /^ts=(\d+);(h1=[0-9a-f]+);(h1=[0-9a-f]+)$/,
      'ts=$1;$3;$2',
    );
    expectReceived(await send(body, header), 'applied');
  });

  test('out of tolerance: ±300 s accepted, ±301 s refused', async () => {
    for (const offset of [-300, 300]) {
      clock.advance(1_000);
      const body = event('subscription.updated', subscription('pri_growth'));
      expectReceived(await send(body, signPaddle(body, nowSeconds() + offset)), 'applied');
    }
    const before = await billingState(t, tenant.workspace.id);
    for (const offset of [-301, 301]) {
      const body = event('subscription.updated', subscription('pri_starter'));
      expectError(
        await send(body, signPaddle(body, nowSeconds() + offset)),
        400,
        'webhook_signature_invalid',
      );
    }
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
  });

  test('payment failed keeps the plan past due; canceled returns to the default plan', async () => {
    clock.advance(1_000);
    const failed = event('transaction.payment_failed', {
      id: 'txn_01',
      status: 'past_due',
      subscription_id: 'sub_01paddle',
      custom_data: null,
    });
    expectReceived(await send(failed, signPaddle(failed, nowSeconds())), 'applied');
    let state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'growth');
    assert.equal(state.billing_status, 'past_due');
    clock.advance(1_000);
    const canceled = event('subscription.canceled', subscription('pri_growth', 'canceled'));
    expectReceived(await send(canceled, signPaddle(canceled, nowSeconds())), 'applied');
    state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'default');
    assert.equal(state.billing_status, 'cancelled');
  });

  test('signed hostile text (NUL, a lone surrogate) is a 400 or ignored, never a 500', async () => {
    const before = await billingState(t, tenant.workspace.id);
    const bodies = [
      JSON.stringify({
        event_id: 'evt_\u0000',
        event_type: 'subscription.updated',
        data: subscription('pri_growth'),
      }),
      `{"event_id":"evt_lone","event_type":"subscription.updated\\ud800","data":{}}`,
      JSON.stringify({
        event_id: 'evt_nul_workspace',
        event_type: 'subscription.created',
        data: { ...subscription('pri_growth'), id: 'sub_nul', custom_data: { workspace_id: 'ws\u0000' } },
      }),
    ];
    const statuses = [];
    for (const body of bodies) statuses.push((await send(body, signPaddle(body, nowSeconds()))).statusCode);
    assert.deepEqual(statuses, [400, 400, 200]);
    assert.deepEqual((await billingState(t, tenant.workspace.id)).plan_key, before.plan_key);
  });

  test('a signed body with a __proto__ key is refused as malformed, nothing applied', async () => {
    const body = `{"event_id":"evt_proto","event_type":"subscription.updated","__proto__":{"x":1},"data":{}}`;
    expectError(await send(body, signPaddle(body, nowSeconds())), 400, 'malformed_json');
  });
});

describe('Paddle signature check (unit)', () => {
  const now = new Date(START);
  const raw = Buffer.from('{"a":1}');
  const ts = Math.floor(START / 1000);
  test('accepts the genuine signature and refuses everything else', () => {
    const ok = { raw, secret: SECRET, toleranceSeconds: 300, now };
    assert.doesNotThrow(() => verifyPaddleSignature({ ...ok, header: signPaddle('{"a":1}', ts) }));
    assert.throws(() => verifyPaddleSignature({ ...ok, header: signPaddle('{"a":2}', ts) }), /signature/);
    assert.throws(() => verifyPaddleSignature({ ...ok, header: undefined }), /signature/);
    assert.throws(
      () => verifyPaddleSignature({ ...ok, header: signPaddle('{"a":1}', ts - 301) }),
      /signature/,
    );
  });
});
