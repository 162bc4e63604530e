import { createHmac, timingSafeEqual } from 'node:crypto';
import { isStorableText, zText } from '@service/contract';
import { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import {
  type BillingEvent,
  eventDate,
  parseVerifiedJson,
  type SubscriptionChange,
  singleHeader,
  type WebhookHeaders,
  WebhookSignatureError,
} from './billing-event.js';

/** Paddle Billing's signature header: `ts=<unix seconds>;h1=<hex HMAC-SHA-256 of "<ts>:<raw body>">`. */
export const PADDLE_SIGNATURE_HEADER = 'paddle-signature';

const CHANGES: Readonly<Record<string, SubscriptionChange>> = {
  'subscription.created': 'created',
  'subscription.activated': 'created',
  'subscription.updated': 'updated',
  'subscription.resumed': 'updated',
  'subscription.trialing': 'updated',
  'subscription.canceled': 'cancelled',
  'subscription.past_due': 'payment_failed',
  'subscription.paused': 'payment_failed',
  'transaction.payment_failed': 'payment_failed',
};

const ZEvent = z.object({
  event_id: zText().min(1).max(255),
  event_type: zText().min(1).max(255),
  occurred_at: zText().nullish(),
  data: z.object({
    id: zText().nullish(),
    /** On a transaction: the subscription it bills. */
    subscription_id: zText().nullish(),
    status: zText().nullish(),
    custom_data: z.record(zText(), z.unknown()).nullish(),
    items: z.array(z.object({ price: z.object({ id: zText() }).nullish() })).nullish(),
  }),
});

/**
 * Checks a `Paddle-Signature` header against the raw body: HMAC-SHA-256 keyed with the
 * notification destination's secret over `<ts>:<raw body>`, compared in constant time with every
 * `h1` (Paddle sends two while a secret is rotated), and `ts` within the tolerance of `now`.
 */
export function verifyPaddleSignature(options: {
  raw: Buffer;
  header: string | undefined;
  secret: string;
  toleranceSeconds: number;
  now: Date;
}): void {
  if (options.header === undefined) throw new WebhookSignatureError('no Paddle-Signature header');
  const parts = options.header.split(';').map((part) => part.trim().split('='));
  const ts = parts.find(([name]) => name === 'ts')?.[1];
  const signatures = parts
    .filter(([name, value]) => name === 'h1' && value !== undefined)
    .map(([, value]) => value ?? '');
  if (ts === undefined || !/^\d{1,12}$/.test(ts) || signatures.length === 0) {
    throw new WebhookSignatureError('malformed Paddle-Signature header');
  }
  const expected = createHmac('sha256', options.secret).update(`${ts}:`).update(options.raw).digest();
  const matches = signatures.some((signature) => {
    if (!/^[0-9a-f]{64}$/i.test(signature)) return false;
    return timingSafeEqual(Buffer.from(signature, 'hex'), expected);
  });
  if (!matches) throw new WebhookSignatureError('no h1 signature matches the body');
  // Checked after the signature, so a forged header learns nothing about the clock.
  if (Math.abs(options.now.getTime() / 1000 - Number(ts)) > options.toleranceSeconds) {
    throw new WebhookSignatureError('timestamp outside the tolerance');
  }
}

/** Verifies a Paddle Billing webhook ({@link verifyPaddleSignature}), then reads it. */
export function readPaddleEvent(options: {
  raw: Buffer;
  headers: WebhookHeaders;
  secret: string;
  toleranceSeconds: number;
  now: Date;
}): BillingEvent {
  verifyPaddleSignature({ ...options, header: singleHeader(options.headers, PADDLE_SIGNATURE_HEADER) });
  const event = ZEvent.safeParse(parseVerifiedJson(options.raw));
  if (!event.success) throw new AppError('bad_request', { message: 'The event is not a Paddle event.' });
  const { event_id, event_type, occurred_at, data } = event.data;
  const change = CHANGES[event_type] ?? null;
  const isTransaction = event_type.startsWith('transaction.');
  const workspace = data.custom_data?.workspace_id;
  const workspaceId = typeof workspace === 'string' && isStorableText(workspace) ? workspace : null;
  return {
    provider: 'paddle',
    eventId: event_id,
    eventType: event_type,
    change,
    subscriptionId: (isTransaction ? data.subscription_id : data.id) ?? null,
    priceIds: isTransaction ? [] : (data.items ?? []).flatMap((item) => (item.price ? [item.price.id] : [])),
    workspaceId,
    status: isTransaction ? null : (data.status ?? null),
    occurredAt: eventDate(occurred_at, options.now),
  };
}
