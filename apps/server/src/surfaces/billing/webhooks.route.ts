import { ZServiceError } from '@service/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { notFound } from '../../errors/app-error.js';
import { type BillingEvent, WebhookSignatureError } from '../../payments/billing-event.js';
import { readPaddleEvent } from '../../payments/paddle-webhook.js';
import { createPaypalVerifier } from '../../payments/paypal-webhook.js';
import { readStripeEvent } from '../../payments/stripe-webhook.js';
import { applyBillingEvent } from '../../services/billing/billing-events.js';

const tags = ['billing webhooks'];

const ZReceived = z.object({
  received: z.literal(true),
  /** applied, duplicate (this event id was received before), ignored, no_workspace, stale or unknown_price. */
  outcome: z.string(),
});

const responses = {
  200: ZReceived,
  400: ZServiceError,
  404: ZServiceError,
  413: ZServiceError,
  415: ZServiceError,
  503: ZServiceError,
};

/**
 * `POST /api/v1/billing/webhooks/{stripe,paypal,paddle}`: each verifies its provider's signature
 * over the raw body (400 `webhook_signature_invalid`, nothing stored), then applies the event
 * once (a repeat of an event id answers 200 `duplicate`). A provider that is not configured
 * answers 404, as if the route did not exist.
 */
export function billingWebhookRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const { billing } = deps.config;
  const paypal = billing.paypal
    ? createPaypalVerifier({ settings: billing.paypal, allow: deps.config.safeUrlAllow })
    : null;

  const receive = async (log: FastifyBaseLogger, read: () => BillingEvent | Promise<BillingEvent>) => {
    let event: BillingEvent;
    try {
      event = await read();
    } catch (error) {
      // Why it failed goes to the log only: the caller learns nothing that helps a forgery.
      if (error instanceof WebhookSignatureError)
        log.warn({ reason: error.reason }, 'billing webhook refused');
      else if (error instanceof Error && 'reason' in error)
        log.warn({ reason: error.reason }, 'billing webhook not verified');
      throw error;
    }
    const result = await applyBillingEvent({ db: deps.database.db, clock: deps.clock, event });
    log.info(
      { provider: event.provider, event_id: event.eventId, outcome: result.outcome },
      'billing webhook',
    );
    return { received: true as const, outcome: result.outcome };
  };
  const rawOf = (body: unknown): Buffer => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

  return async (app) => {
    app.post(
      '/stripe',
      {
        // Verified by the Stripe-Signature header (stripe's webhooks.constructEvent), not by a credential.
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'Stripe webhook (Stripe-Signature verified over the raw body)',
          response: responses,
        },
      },
      async (request) => {
        const settings = billing.stripe;
        if (!settings) throw notFound();
        return receive(request.log, () =>
          readStripeEvent({
            raw: rawOf(request.body),
            headers: request.headers,
            secret: settings.webhookSecret,
            toleranceSeconds: billing.toleranceSeconds,
            now: deps.clock.now(),
          }),
        );
      },
    );

    app.post(
      '/paypal',
      {
        // Verified by PayPal's verify-webhook-signature API (through the outbound guard), not by a credential.
        config: { auth: 'none' },
        schema: {
          tags,
          summary: "PayPal webhook (verified through PayPal's verify-webhook-signature API)",
          response: responses,
        },
      },
      async (request) => {
        if (!paypal) throw notFound();
        return receive(request.log, () =>
          paypal.readEvent({
            raw: rawOf(request.body),
            headers: request.headers,
            toleranceSeconds: billing.toleranceSeconds,
            now: deps.clock.now(),
          }),
        );
      },
    );

    app.post(
      '/paddle',
      {
        // Verified by the Paddle-Signature header (HMAC-SHA-256 over the raw body), not by a credential.
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'Paddle webhook (Paddle-Signature HMAC-SHA-256 verified over the raw body)',
          response: responses,
        },
      },
      async (request) => {
        const settings = billing.paddle;
        if (!settings) throw notFound();
        return receive(request.log, () =>
          readPaddleEvent({
            raw: rawOf(request.body),
            headers: request.headers,
            secret: settings.webhookSecret,
            toleranceSeconds: billing.toleranceSeconds,
            now: deps.clock.now(),
          }),
        );
      },
    );
  };
}
