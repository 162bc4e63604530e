import { zText } from '@service/contract';
import { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import { safeFetch } from '../outbound/index.js';
import {
  type BillingEvent,
  eventDate,
  parseVerifiedJson,
  type SubscriptionChange,
  singleHeader,
  type WebhookHeaders,
  WebhookSignatureError,
} from './billing-event.js';

/** The transmission headers PayPal signs a webhook with; its verify API checks them. */
export const PAYPAL_HEADERS = {
  authAlgo: 'paypal-auth-algo',
  certUrl: 'paypal-cert-url',
  transmissionId: 'paypal-transmission-id',
  transmissionSig: 'paypal-transmission-sig',
  transmissionTime: 'paypal-transmission-time',
} as const;

const CHANGES: Readonly<Record<string, SubscriptionChange>> = {
  'BILLING.SUBSCRIPTION.CREATED': 'created',
  'BILLING.SUBSCRIPTION.ACTIVATED': 'created',
  'BILLING.SUBSCRIPTION.UPDATED': 'updated',
  'BILLING.SUBSCRIPTION.RE-ACTIVATED': 'updated',
  'BILLING.SUBSCRIPTION.CANCELLED': 'cancelled',
  'BILLING.SUBSCRIPTION.EXPIRED': 'cancelled',
  'BILLING.SUBSCRIPTION.SUSPENDED': 'payment_failed',
  'BILLING.SUBSCRIPTION.PAYMENT.FAILED': 'payment_failed',
};

const ZEvent = z.object({
  id: zText().min(1).max(255),
  event_type: zText().min(1).max(255),
  create_time: zText().nullish(),
  resource: z
    .object({
      id: zText().nullish(),
      plan_id: zText().nullish(),
      custom_id: zText().nullish(),
      status: zText().nullish(),
    })
    .nullish(),
});

const ZToken = z.object({ access_token: zText().min(1), expires_in: z.number().positive().optional() });
const ZVerification = z.object({ verification_status: zText() });

/** The PayPal app and webhook the service verifies against (`PAYPAL_*`). */
export type PaypalSettings = Readonly<{
  webhookId: string;
  clientId: string;
  clientSecret: string;
  apiBase: string;
}>;

// PayPal answers in well under a second; a verification that takes longer is retried by PayPal.
const PAYPAL_TIMEOUT_MS = 10_000;
const PAYPAL_MAX_BYTES = 64 * 1024;

/**
 * Verifies PayPal webhooks through PayPal's verify-webhook-signature API, every call through the
 * outbound safety guard (`safeFetch`: the API base must pass the crawl-safety checks; tests allow
 * a loopback fake with SAFE_URL_ALLOW). The OAuth access token is kept until shortly before it
 * expires. One per app.
 */
export function createPaypalVerifier(options: { settings: PaypalSettings; allow: readonly string[] }) {
  const { settings } = options;
  let token: { value: string; expiresAt: number } | null = null;

  const post = (path: string, headers: Record<string, string>, body: string) =>
    safeFetch(`${settings.apiBase}${path}`, {
      method: 'POST',
      headers: { accept: 'application/json', ...headers },
      body,
      maxRedirects: 0,
      timeoutMs: PAYPAL_TIMEOUT_MS,
      maxBytes: PAYPAL_MAX_BYTES,
      allow: options.allow,
    });

  async function accessToken(now: Date): Promise<string> {
    if (token && token.expiresAt > now.getTime()) return token.value;
    const basic = Buffer.from(`${settings.clientId}:${settings.clientSecret}`).toString('base64');
    const answer = await post(
      '/v1/oauth2/token',
      { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      'grant_type=client_credentials',
    );
    const parsed = answer.ok && answer.status === 200 ? ZToken.safeParse(jsonOf(answer.body)) : null;
    if (!parsed?.success) throw unavailable(answer.ok ? `token: status ${answer.status}` : answer.reason);
    // A minute early, so a token never expires between this check and PayPal's.
    const lifetime = Math.max(0, (parsed.data.expires_in ?? 300) - 60) * 1000;
    token = { value: parsed.data.access_token, expiresAt: now.getTime() + lifetime };
    return token.value;
  }

  return {
    /**
     * Verifies then reads a PayPal webhook: the transmission headers must all be there and the
     * transmission time within the tolerance (checked here first, so a replayed old delivery
     * costs no API call), then PayPal's API must answer `SUCCESS` for this webhook id and these
     * exact bytes (the event is passed on as received, never re-serialised).
     */
    async readEvent(input: {
      raw: Buffer;
      headers: WebhookHeaders;
      toleranceSeconds: number;
      now: Date;
    }): Promise<BillingEvent> {
      const values = Object.fromEntries(
        Object.entries(PAYPAL_HEADERS).map(([key, name]) => [key, singleHeader(input.headers, name)]),
      );
      const missing = Object.entries(values).filter(([, value]) => value === undefined || value === '');
      if (missing.length > 0) throw new WebhookSignatureError('PayPal transmission headers missing');
      const sentAt = Date.parse(values.transmissionTime ?? '');
      if (!Number.isFinite(sentAt)) throw new WebhookSignatureError('unreadable PAYPAL-TRANSMISSION-TIME');
      if (Math.abs(input.now.getTime() - sentAt) > input.toleranceSeconds * 1000) {
        throw new WebhookSignatureError('transmission time outside the tolerance');
      }
      const raw = input.raw.toString('utf8');
      // The event goes to PayPal exactly as received (re-serialising can change what was signed),
      // spliced into the request. Only a body that is one JSON value may be: anything else could
      // close the value and add keys of its own (a second "webhook_id") to the request.
      if (raw.trim() === '' || !isJsonText(raw)) throw new WebhookSignatureError('the body is not JSON');
      const request =
        `{"auth_algo":${JSON.stringify(values.authAlgo)},"cert_url":${JSON.stringify(values.certUrl)},` +
        `"transmission_id":${JSON.stringify(values.transmissionId)},"transmission_sig":${JSON.stringify(values.transmissionSig)},` +
        `"transmission_time":${JSON.stringify(values.transmissionTime)},"webhook_id":${JSON.stringify(settings.webhookId)},` +
        `"webhook_event":${raw}}`;
      const bearer = await accessToken(input.now);
      const answer = await post(
        '/v1/notifications/verify-webhook-signature',
        { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        request,
      );
      if (!answer.ok) throw unavailable(answer.reason);
      if (answer.status === 401) token = null;
      if (answer.status >= 500 || answer.status === 401 || answer.status === 429) {
        throw unavailable(`verify: status ${answer.status}`);
      }
      const verdict = ZVerification.safeParse(jsonOf(answer.body));
      if (answer.status !== 200 || !verdict.success || verdict.data.verification_status !== 'SUCCESS') {
        throw new WebhookSignatureError(
          `PayPal answered ${answer.status} ${verdict.success ? verdict.data.verification_status : ''}`.trim(),
        );
      }
      return readVerified(input.raw, input.now);
    },
  };
}

/** Type of {@link createPaypalVerifier}'s result. */
export type PaypalVerifier = ReturnType<typeof createPaypalVerifier>;

function readVerified(raw: Buffer, now: Date): BillingEvent {
  const event = ZEvent.safeParse(parseVerifiedJson(raw));
  if (!event.success) throw new AppError('bad_request', { message: 'The event is not a PayPal event.' });
  const { id, event_type, create_time, resource } = event.data;
  return {
    provider: 'paypal',
    eventId: id,
    eventType: event_type,
    change: CHANGES[event_type] ?? null,
    subscriptionId: resource?.id ?? null,
    priceIds: resource?.plan_id ? [resource.plan_id] : [],
    workspaceId: resource?.custom_id ?? null,
    status: resource?.status ?? null,
    occurredAt: eventDate(create_time, now),
  };
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}

function unavailable(reason: string): AppError & { reason: string } {
  return Object.assign(new AppError('webhook_verification_unavailable'), { reason });
}
