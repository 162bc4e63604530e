import { randomBytes as cryptoRandomBytes } from 'node:crypto';
import {
  type TWebhook,
  type TWebhookCreate,
  type TWebhookCreated,
  type TWebhookDelivery,
  type TWebhookUpdate,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOKS_PER_WORKSPACE_MAX,
} from '@service/contract';
import type { WebhookDeliveryRow, WebhookFormat, WebhookRow } from '../../db/schema-conversations.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { checkUrl, type Resolve } from '../../outbound/index.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { deliverWebhookSpec } from '../../queue/job-specs.js';
import { newId } from '../../security/ids.js';
import { createSecretKeyring, type SecretKeyring } from '../../security/secret-keyring.js';
import { recordAudit } from '../audit.js';
import { iso, type TenantScope } from '../context.js';
import { WEBHOOK_SECRET_PURPOSE } from '../sealed-secrets.js';
import { webhookRequestBody } from './webhook-body.js';

/** Seals a webhook's signing secret with APP_KEY, bound to the webhook id. */
export function sealWebhookSecret(secret: string, keys: SecretKeyring, webhookId: string): string {
  return keys.seal(secret, WEBHOOK_SECRET_PURPOSE, webhookId);
}

/** Opens a sealed webhook secret with APP_KEY or, mid-rotation, APP_KEY_PREVIOUS; throws otherwise. */
export function openWebhookSecret(sealed: string, keys: SecretKeyring, webhookId: string): string {
  return keys.open(sealed, WEBHOOK_SECRET_PURPOSE, webhookId);
}

/**
 * Registers a webhook. The URL must pass the crawl-safety guard now (a refusal is 422 with the
 * guard's reason under `errors.url`) and is checked again at every delivery. The signing secret
 * (`whsec_` + 32 random bytes, base64url) is in this answer only; it is stored sealed with
 * APP_KEY, bound to the webhook id. Audited without the secret.
 */
export async function createWebhook(
  scope: TenantScope & {
    appKey: Buffer;
    safeUrlAllow?: readonly string[] | undefined;
    resolve?: Resolve | undefined;
    randomBytes?: ((size: number) => Buffer) | undefined;
  },
  input: Omit<TWebhookCreate, 'format'> & { format?: TWebhookCreate['format'] | undefined },
): Promise<TWebhookCreated> {
  const check = await checkUrl(input.url, {
    allow: scope.safeUrlAllow ?? [],
    ...(scope.resolve ? { resolve: scope.resolve } : {}),
  });
  if (!check.ok) throw validationError({ url: [check.reason] });
  const secret = `${WEBHOOK_SECRET_PREFIX}${(scope.randomBytes ?? cryptoRandomBytes)(32).toString('base64url')}`;
  const id = newId();
  const sealed = sealWebhookSecret(secret, createSecretKeyring(scope.appKey), id);
  return scope.db.transaction().execute(async (trx) => {
    // Concurrent creations take turns on the workspace row, so the cap holds.
    await trx.selectFrom('workspaces').select('id').where('id', '=', scope.workspaceId).forUpdate().execute();
    const count = await trx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', scope.workspaceId)
      .executeTakeFirst();
    if (Number(count?.n ?? 0) >= WEBHOOKS_PER_WORKSPACE_MAX) {
      throw validationError({
        url: [`A workspace may have at most ${WEBHOOKS_PER_WORKSPACE_MAX} webhooks.`],
      });
    }
    const row = await trx
      .insertInto('webhooks')
      .values({
        id,
        workspace_id: scope.workspaceId,
        url: check.url.href,
        events: input.events,
        secret_sealed: sealed,
        format: input.format ?? 'json',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'webhook.created',
      target: { type: 'webhook', id },
      metadata: { url: row.url, events: row.events, format: row.format },
      requestId: scope.requestId,
    });
    return { ...toWebhook(row), secret };
  });
}

/** Lists the workspace's webhooks, oldest first (never their secrets). */
export async function listWebhooks(scope: Pick<TenantScope, 'db' | 'workspaceId'>): Promise<TWebhook[]> {
  const rows = await scope.db
    .selectFrom('webhooks')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .orderBy('id')
    .execute();
  return rows.map(toWebhook);
}

/** Deletes a webhook of the workspace with its delivery log (queued deliveries are dropped). Audited. */
export async function deleteWebhook(scope: TenantScope, webhookId: string): Promise<void> {
  await scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('webhooks')
      .where('id', '=', webhookId)
      .where('workspace_id', '=', scope.workspaceId)
      .returning(['id', 'url'])
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'webhook.deleted',
      target: { type: 'webhook', id: row.id },
      metadata: { url: row.url },
      requestId: scope.requestId,
    });
  });
}

/**
 * Turns a webhook of the workspace on or off (a disabled one's queued deliveries fail) and/or
 * changes its delivery format (queued deliveries go out in the new one). Audited:
 * `webhook.enabled` / `webhook.disabled` when `is_active` is given, `webhook.format_changed`
 * when the format changes.
 */
export async function setWebhookActive(
  scope: TenantScope,
  webhookId: string,
  input: TWebhookUpdate,
): Promise<TWebhook> {
  return scope.db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('webhooks')
      .select('format')
      .where('id', '=', webhookId)
      .where('workspace_id', '=', scope.workspaceId)
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw notFound();
    const row = await trx
      .updateTable('webhooks')
      .set({
        ...(input.is_active === undefined ? {} : { is_active: input.is_active }),
        ...(input.format === undefined ? {} : { format: input.format }),
        updated_at: scope.clock.now(),
      })
      .where('id', '=', webhookId)
      .where('workspace_id', '=', scope.workspaceId)
      .returningAll()
      .executeTakeFirstOrThrow();
    const audit = { workspaceId: scope.workspaceId, actor: scope.actor, requestId: scope.requestId };
    const target = { type: 'webhook', id: row.id };
    if (input.is_active !== undefined) {
      await recordAudit(trx, {
        ...audit,
        action: input.is_active ? 'webhook.enabled' : 'webhook.disabled',
        target,
        metadata: { url: row.url },
      });
    }
    if (input.format !== undefined && input.format !== before.format) {
      await recordAudit(trx, {
        ...audit,
        action: 'webhook.format_changed',
        target,
        metadata: { url: row.url, from: before.format, to: row.format },
      });
    }
    return toWebhook(row);
  });
}

/** A webhook's deliveries, newest first, with keyset paging on the id; 404 for another workspace's. */
export async function listDeliveries(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  webhookId: string,
  page: { limit: number; before?: string | undefined },
): Promise<{ items: TWebhookDelivery[]; nextBefore: string | null }> {
  const hook = await scope.db
    .selectFrom('webhooks')
    .select(['id', 'format'])
    .where('id', '=', webhookId)
    .where('workspace_id', '=', scope.workspaceId)
    .executeTakeFirst();
  if (!hook) throw notFound();
  let query = scope.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('workspace_id', '=', scope.workspaceId)
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  if (page.before) query = query.where('id', '<', page.before);
  const rows = await query.execute();
  const items = rows.slice(0, page.limit);
  const last = items.at(-1);
  return {
    items: items.map((row) => toDelivery(row, hook.format)),
    nextBefore: rows.length > page.limit && last ? last.id : null,
  };
}

/**
 * Sends a delivery again: the same delivery id and body (receivers deduplicate on it), status
 * back to `pending`, and a new `deliver-webhook` job with a fresh retry budget, in one
 * transaction. Attempts keep counting. 404 for another workspace's delivery. Audited.
 */
export async function redeliver(
  scope: TenantScope & { queue: JobQueue },
  deliveryId: string,
): Promise<TWebhookDelivery> {
  return scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', delivered_at: null, updated_at: scope.clock.now() })
      .where('id', '=', deliveryId)
      .where('workspace_id', '=', scope.workspaceId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound();
    const hook = await trx
      .selectFrom('webhooks')
      .select('format')
      .where('id', '=', row.webhook_id)
      .executeTakeFirstOrThrow();
    await scope.queue.send(deliverWebhookSpec, { deliveryId: row.id }, { db: trx });
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'webhook.redelivered',
      target: { type: 'webhook_delivery', id: row.id },
      metadata: { webhook_id: row.webhook_id, event: row.event },
      requestId: scope.requestId,
    });
    return toDelivery(row, hook.format);
  });
}

function toWebhook(row: WebhookRow): TWebhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    is_active: row.is_active,
    format: row.format,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Longest excerpt of an endpoint's answer kept on a delivery (0027). */
export const RESPONSE_EXCERPT_MAX = 2000;

/** The stored excerpt of an answer body: UTF-8, NUL-free (PostgreSQL text), at most {@link RESPONSE_EXCERPT_MAX} characters. */
export function responseExcerpt(body: Buffer): string {
  return body
    .subarray(0, RESPONSE_EXCERPT_MAX * 4)
    .toString('utf8')
    .replaceAll('\u0000', '')
    .slice(0, RESPONSE_EXCERPT_MAX);
}

function toDelivery(row: WebhookDeliveryRow, format: WebhookFormat): TWebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    subject_id: row.subject_id,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_response_excerpt: row.last_response_excerpt,
    request_body: webhookRequestBody(row, format),
    delivered_at: iso(row.delivered_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
