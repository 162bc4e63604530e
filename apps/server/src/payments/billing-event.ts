import secureJson from 'secure-json-parse';
import type { BillingProvider } from '../db/schema-billing.js';
import { AppError } from '../errors/app-error.js';

/** What a verified provider event means for a workspace's plan. */
export type SubscriptionChange = 'created' | 'updated' | 'cancelled' | 'payment_failed';

/**
 * A provider's verified event, read into one shape: `change` null for an event type billing does
 * not act on (it is recorded, answered 200, and changes nothing).
 */
export type BillingEvent = {
  provider: BillingProvider;
  eventId: string;
  eventType: string;
  change: SubscriptionChange | null;
  subscriptionId: string | null;
  /** The provider's price (Stripe, Paddle) or plan (PayPal) ids the subscription is for. */
  priceIds: string[];
  /** The workspace the checkout named (Stripe metadata, PayPal custom_id, Paddle custom_data). */
  workspaceId: string | null;
  /** The provider's own status word for the subscription, when the event carries one. */
  status: string | null;
  /** When the provider says the event happened: an event older than the last one applied is not applied. */
  occurredAt: Date;
};

/** Request headers as Fastify hands them over. */
export type WebhookHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One header's value, or undefined when it is absent or sent twice (a signature header must be one). */
export function singleHeader(headers: WebhookHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The 400 of a webhook whose signature does not verify; `reason` goes to the log, never to the caller. */
export class WebhookSignatureError extends AppError {
  readonly reason: string;
  constructor(reason: string) {
    super('webhook_signature_invalid');
    this.reason = reason;
  }
}

/** Parses verified bytes as JSON, refusing prototype-poisoning keys (a verified body can still be odd). */
export function parseVerifiedJson(raw: Buffer): unknown {
  try {
    return secureJson.parse(raw.toString('utf8'), undefined, {
      protoAction: 'error',
      constructorAction: 'error',
    });
  } catch {
    throw new AppError('malformed_json');
  }
}

/** A date from a provider's timestamp (ISO text or Unix seconds); `fallback` when it is absent or invalid. */
export function eventDate(value: unknown, fallback: Date): Date {
  const date =
    typeof value === 'number' ? new Date(value * 1000) : typeof value === 'string' ? new Date(value) : null;
  return date !== null && Number.isFinite(date.getTime()) ? date : fallback;
}
