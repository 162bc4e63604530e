import {
  SIGNATURE_HEADER,
  signRequest,
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
} from '@service/contract';
import { safeFetch } from '../outbound/index.js';
import { defineJob, type JobContextOf } from '../queue/job-queue.js';
import { DELIVER_WEBHOOK_RETRY_LIMIT, deliverWebhookSpec } from '../queue/job-specs.js';
import { createSecretKeyring, type SecretKeyring } from '../security/secret-keyring.js';
import { webhookRequestBody, ZStoredPayload } from '../services/ops/webhook-body.js';
import { openWebhookSecret, responseExcerpt } from '../services/ops/webhooks.js';

/** What a delivery uses of its job context. */
type DeliveryContext = JobContextOf<'safeUrlAllow' | 'appKey' | 'appKeyPrevious' | 'clock'>;

/** Budget of one delivery attempt (DNS, connect, answer). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** The User-Agent of webhook deliveries. */
export const WEBHOOK_USER_AGENT = 'ChatAgentService-Webhook/1.0';
const ANSWER_MAX_BYTES = 64 * 1024;

/**
 * Delivers one webhook event: POSTs `{id, event, created_at, data}` (or, for a `slack` webhook,
 * a Slack incoming-webhook body: services/ops/webhook-body.ts) to the webhook URL through
 * the crawl-safety guard (re-checked at every attempt; no redirects), signed with the webhook's
 * secret (X-Service-Signature) and named by X-Service-Event and X-Service-Delivery. A 2xx is
 * delivered; anything else is recorded (attempts, last_status_code, last_error) and retried with
 * backoff, and the last failing attempt marks the delivery `failed`. A delivery that is gone
 * (erased, webhook deleted) or already delivered is left alone.
 */
export const deliverWebhookJob = defineJob({
  ...deliverWebhookSpec,
  async handle({ deliveryId }, context: DeliveryContext) {
    const row = await context.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select(['d.id', 'd.event', 'd.payload', 'd.status', 'w.id as webhook_id', 'w.url', 'w.secret_sealed'])
      .select(['w.is_active', 'w.format'])
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
    if (row?.status !== 'pending') return;
    const isLast = context.attempt > DELIVER_WEBHOOK_RETRY_LIMIT;
    if (!row.is_active) {
      await recordFailure(context, deliveryId, { status: null, error: 'the webhook is disabled' }, true);
      return;
    }
    const stored = ZStoredPayload.safeParse(row.payload);
    if (!stored.success) {
      await recordFailure(context, deliveryId, { status: null, error: 'the stored event is invalid' }, true);
      return;
    }
    const secret = openWebhookSecret(row.secret_sealed, keyringOf(context), row.webhook_id);
    const body = webhookRequestBody({ id: row.id, event: row.event, payload: stored.data }, row.format);
    const fetched = await safeFetch(row.url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        [SIGNATURE_HEADER]: signRequest(secret, body, Math.floor(context.clock.now().getTime() / 1000)),
        [WEBHOOK_EVENT_HEADER]: row.event,
        [WEBHOOK_DELIVERY_HEADER]: row.id,
      },
      maxRedirects: 0,
      maxBytes: ANSWER_MAX_BYTES,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      allow: context.safeUrlAllow ?? [],
    });
    if (fetched.ok && fetched.status >= 200 && fetched.status <= 299) {
      const now = context.clock.now();
      await context.db
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          status: 'delivered',
          attempts: eb('attempts', '+', 1),
          last_status_code: fetched.status,
          last_error: null,
          last_response_excerpt: responseExcerpt(fetched.body),
          delivered_at: now,
          updated_at: now,
        }))
        .where('id', '=', deliveryId)
        .execute();
      return;
    }
    const failure = fetched.ok
      ? {
          status: fetched.status,
          error: `the endpoint answered HTTP ${fetched.status}`,
          excerpt: responseExcerpt(fetched.body),
        }
      : { status: null, error: fetched.reason };
    await recordFailure(context, deliveryId, failure, isLast);
    context.log.info({ deliveryId, attempt: context.attempt, error: failure.error }, 'webhook not delivered');
    // Throwing hands the retry to the queue (with backoff); after the last attempt there is none.
    if (!isLast) throw new Error(`webhook delivery ${deliveryId} failed: ${failure.error}`);
  },
  async giveUp({ deliveryId }, { db, clock }, reason) {
    // The last attempt ran out of time or was interrupted: the delivery would stay `pending`.
    const failed = await db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: `the delivery ${reason}`, updated_at: clock.now() })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(failed.numUpdatedRows) > 0;
  },
});

/** Records a failed attempt; `isFinal` marks the delivery `failed` (no retry follows). */
async function recordFailure(
  context: DeliveryContext,
  deliveryId: string,
  failure: { status: number | null; error: string; excerpt?: string },
  isFinal: boolean,
): Promise<void> {
  await context.db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: isFinal ? 'failed' : 'pending',
      attempts: eb('attempts', '+', 1),
      last_status_code: failure.status,
      last_error: failure.error,
      // No answer (refused, timed out): no excerpt, rather than the previous attempt's.
      last_response_excerpt: failure.excerpt ?? null,
      updated_at: context.clock.now(),
    }))
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute();
}

function keyringOf(context: DeliveryContext): SecretKeyring {
  return createSecretKeyring(context.appKey, context.appKeyPrevious);
}
