import { zText } from '@service/contract';
import Stripe from 'stripe';
import { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import {
  type BillingEvent,
  type SubscriptionChange,
  singleHeader,
  type WebhookHeaders,
  WebhookSignatureError,
} from './billing-event.js';

/** The header Stripe signs its webhooks in: `t=<unix seconds>,v1=<hex HMAC-SHA-256>`. */
export const STRIPE_SIGNATURE_HEADER = 'stripe-signature';

const CHANGES: Readonly<Record<string, SubscriptionChange>> = {
  'customer.subscription.created': 'created',
  'customer.subscription.updated': 'updated',
  'customer.subscription.resumed': 'updated',
  'customer.subscription.paused': 'payment_failed',
  'customer.subscription.deleted': 'cancelled',
  'invoice.payment_failed': 'payment_failed',
};

const ZMetadata = z.record(zText(), zText()).nullish();

const ZSubscription = z.object({
  id: zText().min(1),
  status: zText().nullish(),
  metadata: ZMetadata,
  items: z.object({ data: z.array(z.object({ price: z.object({ id: zText() }).nullish() })) }).nullish(),
});

// An invoice names its subscription at the top (older API versions) or under `parent` (newer ones).
const ZInvoice = z.object({
  subscription: z.union([zText(), z.object({ id: zText() })]).nullish(),
  parent: z
    .object({
      subscription_details: z
        .object({
          subscription: z.union([zText(), z.object({ id: zText() })]).nullish(),
          metadata: ZMetadata,
        })
        .nullish(),
    })
    .nullish(),
  subscription_details: z.object({ metadata: ZMetadata }).nullish(),
});

const ZEvent = z.object({
  id: zText().min(1).max(255),
  type: zText().min(1).max(255),
  created: z.number().int(),
  data: z.object({ object: z.unknown() }),
});

/**
 * Verifies a Stripe webhook with the official library (`webhooks.constructEvent`: the
 * `Stripe-Signature` HMAC over `<t>.<raw body>`, any of its `v1` signatures, and `t` no older than
 * the tolerance at the service's clock; no network) and reads it. A timestamp further in the
 * future than the tolerance is refused too (the library only looks at age).
 */
export function readStripeEvent(options: {
  raw: Buffer;
  headers: WebhookHeaders;
  secret: string;
  toleranceSeconds: number;
  now: Date;
}): BillingEvent {
  const header = singleHeader(options.headers, STRIPE_SIGNATURE_HEADER);
  if (header === undefined) throw new WebhookSignatureError('no Stripe-Signature header');
  let verified: unknown;
  try {
    verified = Stripe.webhooks.constructEvent(
      options.raw,
      header,
      options.secret,
      options.toleranceSeconds,
      undefined,
      options.now.getTime(),
    );
  } catch (error) {
    throw new WebhookSignatureError(error instanceof Error ? error.message : 'verification failed');
  }
  const timestamp = Number(/(?:^|,)t=(\d+)/.exec(header)?.[1]);
  if (!(timestamp * 1000 - options.now.getTime() <= options.toleranceSeconds * 1000)) {
    throw new WebhookSignatureError('timestamp in the future beyond the tolerance');
  }
  const event = ZEvent.safeParse(verified);
  if (!event.success) throw new AppError('bad_request', { message: 'The event is not a Stripe event.' });
  const { id, type, created } = event.data;
  const change = CHANGES[type] ?? null;
  const base = {
    provider: 'stripe' as const,
    eventId: id,
    eventType: type,
    change,
    occurredAt: new Date(created * 1000),
  };
  if (change === null)
    return { ...base, subscriptionId: null, priceIds: [], workspaceId: null, status: null };
  if (type === 'invoice.payment_failed') {
    const invoice = ZInvoice.safeParse(event.data.data.object);
    if (!invoice.success) throw new AppError('bad_request', { message: 'The invoice could not be read.' });
    const details = invoice.data.parent?.subscription_details;
    const ref = invoice.data.subscription ?? details?.subscription ?? null;
    const metadata = details?.metadata ?? invoice.data.subscription_details?.metadata;
    return {
      ...base,
      subscriptionId: typeof ref === 'string' ? ref : (ref?.id ?? null),
      priceIds: [],
      workspaceId: metadata?.workspace_id ?? null,
      status: null,
    };
  }
  const subscription = ZSubscription.safeParse(event.data.data.object);
  if (!subscription.success)
    throw new AppError('bad_request', { message: 'The subscription could not be read.' });
  const sub = subscription.data;
  return {
    ...base,
    subscriptionId: sub.id,
    priceIds: (sub.items?.data ?? []).flatMap((item) => (item.price ? [item.price.id] : [])),
    workspaceId: sub.metadata?.workspace_id ?? null,
    status: sub.status ?? null,
  };
}
