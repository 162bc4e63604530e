import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { billingState, expectReceived, postWebhook, runPlanCommand } from './support/billing.js';
import { expectError } from './support/http.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';

// The PayPal webhook: verified through PayPal's verify-webhook-signature API, called through
// the outbound safety guard at a configurable base URL; here a fake PayPal on loopback that
// knows which deliveries it "sent". Genuine, tampered, replayed and out-of-tolerance deliveries;
// an unreachable API fails closed.

const WEBHOOK_ID = 'WH-TEST-1';
const CLIENT_ID = 'client-id';
const CLIENT_SECRET = 'client-secret';
const START = Date.parse('2026-07-15T10:00:00Z');

/** A stand-in for PayPal's API: OAuth tokens and the verify API over the deliveries it signed. */
class FakePaypal {
  server: Server = createServer((req, res) => {
    void this.handle(req).then(({ status, body }) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  /** transmission id → [signature, exact body] of each genuine delivery. */
  sent = new Map<string, { sig: string; body: string }>();
  tokenCalls = 0;
  verifyCalls = 0;
  failWith: number | null = null;
  private counter = 0;

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** Headers PayPal would send with `body`, sent at `time`; the fake remembers them as genuine. */
  deliver(body: string, time: Date): Record<string, string> {
    this.counter += 1;
    const id = `tx-${this.counter}`;
    const sig = `sig-${this.counter}-${Math.random().toString(36).slice(2)}`;
    this.sent.set(id, { sig, body });
    return {
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-cert-url': 'https://api.paypal.com/v1/notifications/certs/CERT-1',
      'paypal-transmission-id': id,
      'paypal-transmission-sig': sig,
      'paypal-transmission-time': time.toISOString(),
    };
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (this.failWith !== null) return { status: this.failWith, body: { name: 'INTERNAL_SERVICE_ERROR' } };
    if (req.url === '/v1/oauth2/token') {
      this.tokenCalls += 1;
      const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
      if (req.headers.authorization !== `Basic ${basic}` || text !== 'grant_type=client_credentials') {
        return { status: 401, body: { error: 'invalid_client' } };
      }
      return { status: 200, body: { access_token: 'A21-token', token_type: 'Bearer', expires_in: 32400 } };
    }
    if (req.url === '/v1/notifications/verify-webhook-signature') {
      this.verifyCalls += 1;
      if (req.headers.authorization !== 'Bearer A21-token') return { status: 401, body: {} };
      const request = JSON.parse(text) as Record<string, unknown>;
      const genuine = this.sent.get(String(request.transmission_id));
      const ok =
        genuine !== undefined &&
        request.webhook_id === WEBHOOK_ID &&
        request.transmission_sig === genuine.sig &&
        JSON.stringify(request.webhook_event) === JSON.stringify(JSON.parse(genuine.body));
      return { status: 200, body: { verification_status: ok ? 'SUCCESS' : 'FAILURE' } };
    }
    return { status: 404, body: {} };
  }
}

describe('billing webhook: PayPal', () => {
  let t: TestApp;
  let tenant: Tenant;
  const paypal = new FakePaypal();
  const clock = createTestClock(START);

  before(async () => {
    const port = await paypal.listen();
    t = await createTestApp({
      clock,
      env: {
        PAYPAL_WEBHOOK_ID: WEBHOOK_ID,
        PAYPAL_CLIENT_ID: CLIENT_ID,
        PAYPAL_CLIENT_SECRET: CLIENT_SECRET,
        PAYPAL_API_BASE: `http://127.0.0.1:${port}`,
        SAFE_URL_ALLOW: `127.0.0.1:${port}`,
      },
    });
    tenant = await seedTenant(t, 'PayPal customer');
    await runPlanCommand(t, 'plan:set', { key: 'basic', 'paypal-plans': 'P-BASIC' });
    await runPlanCommand(t, 'plan:set', { key: 'plus', 'paypal-plans': 'P-PLUS' });
  });
  after(async () => {
    await t.close();
    paypal.server.close();
  });

  let counter = 0;
  const event = (type: string, resource: Record<string, unknown>) => {
    counter += 1;
    return JSON.stringify({
      id: `WH-EVT-${counter}`,
      event_version: '1.0',
      create_time: clock.now().toISOString(),
      resource_type: 'subscription',
      event_type: type,
      resource,
    });
  };
  const subscription = (plan: string, status = 'ACTIVE') => ({
    id: 'I-SUB1',
    plan_id: plan,
    status,
    custom_id: tenant.workspace.id,
  });
  const send = (body: string, headers: Record<string, string>) => postWebhook(t, 'paypal', body, headers);

  test('genuine: verified by the API, mapped onto the plan, audited', async () => {
    const body = event('BILLING.SUBSCRIPTION.ACTIVATED', subscription('P-BASIC'));
    expectReceived(await send(body, paypal.deliver(body, clock.now())), 'applied');
    const state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'basic');
    assert.equal(state.billing_status, 'active');
    assert.equal(state.audits.at(-1)?.action, 'billing.subscription_created');
    assert.equal(paypal.tokenCalls, 1);
    assert.equal(paypal.verifyCalls, 1);
  });

  test('replayed: the same event again is a duplicate; the token is reused', async () => {
    clock.advance(1_000);
    const body = event('BILLING.SUBSCRIPTION.UPDATED', subscription('P-PLUS'));
    const headers = paypal.deliver(body, clock.now());
    expectReceived(await send(body, headers), 'applied');
    const before = await billingState(t, tenant.workspace.id);
    assert.equal(before.plan_key, 'plus');
    expectReceived(await send(body, headers), 'duplicate');
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
    assert.equal(paypal.tokenCalls, 1, 'one access token for every call while it lasts');
  });

  test('tampered: PayPal answers FAILURE, or headers are missing: 400 and nothing stored', async () => {
    const before = await billingState(t, tenant.workspace.id);
    const body = event('BILLING.SUBSCRIPTION.UPDATED', subscription('P-BASIC'));
    const headers = paypal.deliver(body, clock.now());
    expectError(await send(body.replace('P-BASIC', 'P-PLUS'), headers), 400, 'webhook_signature_invalid');
    expectError(
      await send(body, { ...headers, 'paypal-transmission-sig': 'forged' }),
      400,
      'webhook_signature_invalid',
    );
    const { 'paypal-transmission-sig': _dropped, ...withoutSig } = headers;
    const calls = paypal.verifyCalls;
    expectError(await send(body, withoutSig), 400, 'webhook_signature_invalid');
    assert.equal(paypal.verifyCalls, calls, 'a delivery without its headers costs no API call');
    // A body that closes the event and adds its own webhook_id is never spliced into the request.
    const injected = `${body}, "webhook_id": "WH-ATTACKER"`;
    const before2 = paypal.verifyCalls;
    expectError(
      await send(injected, paypal.deliver(injected, clock.now())),
      400,
      'webhook_signature_invalid',
    );
    assert.equal(paypal.verifyCalls, before2, 'the spliced request is never sent');
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
  });

  test('out of tolerance: a transmission time 300 s away is checked, 301 s is refused without an API call', async () => {
    clock.advance(1_000);
    const body = event('BILLING.SUBSCRIPTION.UPDATED', subscription('P-BASIC'));
    expectReceived(
      await send(body, paypal.deliver(body, new Date(clock.now().getTime() - 300_000))),
      'applied',
    );
    const before = await billingState(t, tenant.workspace.id);
    const calls = paypal.verifyCalls;
    for (const offset of [-301_000, 301_000]) {
      const late = event('BILLING.SUBSCRIPTION.UPDATED', subscription('P-PLUS'));
      const headers = paypal.deliver(late, new Date(clock.now().getTime() + offset));
      expectError(await send(late, headers), 400, 'webhook_signature_invalid');
    }
    assert.equal(paypal.verifyCalls, calls);
    assert.deepEqual(await billingState(t, tenant.workspace.id), before);
  });

  test('payment failed and cancelled are mapped; PayPal unreachable fails closed with 503', async () => {
    clock.advance(1_000);
    const failed = event('BILLING.SUBSCRIPTION.PAYMENT.FAILED', subscription('P-BASIC', 'ACTIVE'));
    expectReceived(await send(failed, paypal.deliver(failed, clock.now())), 'applied');
    assert.equal((await billingState(t, tenant.workspace.id)).billing_status, 'past_due');

    clock.advance(1_000);
    const cancelled = event('BILLING.SUBSCRIPTION.CANCELLED', subscription('P-BASIC', 'CANCELLED'));
    paypal.failWith = 500;
    const before = await billingState(t, tenant.workspace.id);
    expectError(
      await send(cancelled, paypal.deliver(cancelled, clock.now())),
      503,
      'webhook_verification_unavailable',
    );
    assert.deepEqual(await billingState(t, tenant.workspace.id), before, 'nothing applied or recorded');
    paypal.failWith = null;
    // PayPal sends it again later: now it is applied.
    expectReceived(await send(cancelled, paypal.deliver(cancelled, clock.now())), 'applied');
    const state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'default');
    assert.equal(state.billing_status, 'cancelled');
  });

  test('a subscription awaiting approval changes no plan until it is activated', async () => {
    clock.advance(1_000);
    const pendingSub = { ...subscription('P-PLUS', 'APPROVAL_PENDING'), id: 'I-SUB2' };
    const created = event('BILLING.SUBSCRIPTION.CREATED', pendingSub);
    const before = await billingState(t, tenant.workspace.id);
    expectReceived(await send(created, paypal.deliver(created, clock.now())), 'pending');
    const waiting = await billingState(t, tenant.workspace.id);
    assert.equal(waiting.plan_key, before.plan_key);
    assert.equal(waiting.billing_status, before.billing_status);
    clock.advance(1_000);
    // The activation names no workspace: the subscription is already tied to it.
    const activated = event('BILLING.SUBSCRIPTION.ACTIVATED', {
      ...pendingSub,
      status: 'ACTIVE',
      custom_id: null,
    });
    expectReceived(await send(activated, paypal.deliver(activated, clock.now())), 'applied');
    const state = await billingState(t, tenant.workspace.id);
    assert.equal(state.plan_key, 'plus');
    assert.equal(state.billing_status, 'active');
  });
});

describe('billing webhook: PayPal settings', () => {
  test('a base URL the outbound guard refuses fails closed (503), nothing applied', async () => {
    // No SAFE_URL_ALLOW: loopback is refused by the guard before any connection.
    const t = await createTestApp({
      env: {
        PAYPAL_WEBHOOK_ID: WEBHOOK_ID,
        PAYPAL_CLIENT_ID: CLIENT_ID,
        PAYPAL_CLIENT_SECRET: CLIENT_SECRET,
        PAYPAL_API_BASE: 'http://127.0.0.1:9',
      },
    });
    try {
      const body = JSON.stringify({ id: 'WH-1', event_type: 'BILLING.SUBSCRIPTION.CREATED', resource: {} });
      const headers = new FakePaypal().deliver(body, new Date());
      expectError(await postWebhook(t, 'paypal', body, headers), 503, 'webhook_verification_unavailable');
      assert.equal((await t.database.db.selectFrom('billing_events').selectAll().execute()).length, 0);
    } finally {
      await t.close();
    }
  });
});
