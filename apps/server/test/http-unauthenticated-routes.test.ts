// Guard rail: every route that skips its surface's authentication (`config: { auth: 'none' }`)
// is listed here by method and URL. Adding one, or marking an admin route `auth: 'none'`, makes
// this file fail until the list below is changed on purpose (and the reason is in the review).
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ADMIN_PREFIX } from '../src/surfaces/admin/index.js';
import { expectError } from './support/http.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** The unauthenticated routes, `METHOD url`, sorted: the only ones allowed. */
const EXPECTED_AUTH_NONE = [
  // Signing in, reading and ending a browser session: how a browser gets (and drops) credentials.
  'DELETE /api/v1/admin/session',
  'GET /api/v1/admin/session',
  'POST /api/v1/admin/session',
  // First run: whether setup is needed, and setup itself (the one-time setup code is the credential).
  'GET /api/v1/admin/setup',
  'POST /api/v1/admin/setup',
  // Password reset: whoever forgot the password has no credential; the mailed token is the proof.
  'POST /api/v1/admin/password-reset',
  'POST /api/v1/admin/password-reset/confirm',
  // Accepting a workspace invite: the invited person may have no account yet; the mailed token is the proof.
  'POST /api/v1/admin/invites/inspect',
  'POST /api/v1/admin/invites/accept',
  // The console's static files (the app signs in through the session routes) and / redirecting to it.
  'GET /',
  'GET /admin',
  'GET /admin/*',
  // The widget's init hands out the visitor token every other widget route asks for.
  'POST /v1/widget/init',
  // Billing webhooks: a payment provider calls them with no credential of ours; each verifies its
  // provider's signature over the raw body (Stripe-Signature by the stripe library, PayPal through
  // its verify API, Paddle-Signature by HMAC-SHA-256) and answers 400 otherwise (tested below).
  'POST /api/v1/billing/webhooks/paddle',
  'POST /api/v1/billing/webhooks/paypal',
  'POST /api/v1/billing/webhooks/stripe',
  // CORS preflights carry no credentials: one under each widget mount (the chat, the shop's coupon).
  'OPTIONS /v1/widget/*',
  'OPTIONS /api/v1/widget/*',
].sort();

/** The admin routes that may skip the admin credential: session, first-run setup and password reset, nothing else. */
const ADMIN_AUTH_NONE = new Set([
  'DELETE /api/v1/admin/session',
  'GET /api/v1/admin/session',
  'POST /api/v1/admin/session',
  'GET /api/v1/admin/setup',
  'POST /api/v1/admin/setup',
  'POST /api/v1/admin/password-reset',
  'POST /api/v1/admin/password-reset/confirm',
  'POST /api/v1/admin/invites/inspect',
  'POST /api/v1/admin/invites/accept',
]);

type Recorded = { route: string; auth: unknown };

/** `METHOD url` lines of a route (one per method; HEAD twins of GET routes left out). */
function linesOf(route: RouteOptions): string[] {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${route.url}`);
}

describe('routes that skip authentication', () => {
  const recorded: Recorded[] = [];
  let t: TestApp;

  // The app is built inside createApp; fastify announces each new instance on this channel
  // before any route is added, so an onRoute hook sees every route of every surface.
  const onInstance = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route) => {
      for (const line of linesOf(route)) recorded.push({ route: line, auth: route.config?.auth });
    });
  };

  before(async () => {
    subscribe('fastify.initialization', onInstance);
    try {
      t = await createTestApp();
    } finally {
      unsubscribe('fastify.initialization', onInstance);
    }
  });
  after(() => t.close());

  const authNone = () => [...new Set(recorded.filter((r) => r.auth === 'none').map((r) => r.route))].sort();

  test('the hook saw the whole app', () => {
    const routes = new Set(recorded.map((r) => r.route));
    // One route of each surface, so an empty or partial recording cannot pass the checks below.
    for (const known of ['POST /api/v1/admin/agents', 'POST /api/v1/wp/handshake', 'POST /v1/widget/init']) {
      assert.ok(routes.has(known), `${known} recorded`);
    }
    assert.ok(
      recorded.filter((r) => r.route.includes(`${ADMIN_PREFIX}/`)).length > 20,
      'the admin routes recorded',
    );
  });

  test("the routes with config.auth 'none' are exactly the expected ones", () => {
    assert.deepEqual(authNone(), EXPECTED_AUTH_NONE);
  });

  test('no admin route skips the admin credential but the session and setup routes', () => {
    const admin = recorded.filter((r) => r.route.split(' ')[1]?.startsWith(ADMIN_PREFIX));
    const skipping = admin.filter((r) => r.auth === 'none').map((r) => r.route);
    assert.deepEqual([...new Set(skipping)].sort(), [...ADMIN_AUTH_NONE].sort());
    // Any other value than absent or 'none' is a typo the auth hook would read as "authenticate".
    const odd = admin.filter((r) => r.auth !== undefined && r.auth !== 'none');
    assert.deepEqual(odd, []);
  });
});

describe('the billing webhooks verify before anything else', () => {
  test('each refuses an unsigned or wrongly signed event with 400 and stores nothing', async () => {
    const t = await createTestApp({
      env: {
        STRIPE_WEBHOOK_SECRET: 'whsec_guard',
        PADDLE_WEBHOOK_SECRET: 'paddle_guard',
        PAYPAL_WEBHOOK_ID: 'WH-GUARD',
        PAYPAL_CLIENT_ID: 'id',
        PAYPAL_CLIENT_SECRET: 'secret',
      },
    });
    try {
      const body = JSON.stringify({ id: 'evt_1', event_id: 'evt_1', type: 'customer.subscription.deleted' });
      const forged: Record<string, Record<string, string>> = {
        stripe: { 'stripe-signature': `t=1,v1=${'0'.repeat(64)}` },
        paddle: { 'paddle-signature': `ts=1;h1=${'0'.repeat(64)}` },
        // No transmission headers: refused before PayPal's API is asked.
        paypal: {},
      };
      for (const [provider, headers] of Object.entries(forged)) {
        for (const sent of [{}, headers]) {
          const res = await t.app.inject({
            method: 'POST',
            url: `/api/v1/billing/webhooks/${provider}`,
            headers: { 'content-type': 'application/json', ...sent },
            payload: body,
          });
          expectError(res, 400, 'webhook_signature_invalid');
        }
      }
      assert.equal((await t.database.db.selectFrom('billing_events').selectAll().execute()).length, 0);
    } finally {
      await t.close();
    }
  });
});
