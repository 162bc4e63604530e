import {
  HANDOFF_MESSAGE_MAX,
  type THandoffRequestedData,
  type THandoffRequestedEvent,
} from '@service/contract';
import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { deliverWebhookSpec, handoffMailSpec } from '../../queue/job-specs.js';
import { newId } from '../../security/ids.js';
import { operatorsOnline } from '../events/presence.js';

/** The webhook event a visitor's request for a human fires. */
export const HANDOFF_REQUESTED_EVENT = 'conversation.handoff_requested';
/** The console's page of a conversation, under the console prefix. */
export const CONSOLE_CONVERSATION_PATH = '/admin/inbox/';

/** What telling the team of a handoff needs besides the store: the queue, links, the mail delay. */
export type HandoffNotify = {
  queue: JobQueue;
  /** The service's public base URL (PUBLIC_BASE_URL, never the request's), without a trailing slash. */
  baseUrl: string;
  /** HANDOFF_MAIL_AFTER_SECONDS: the delay of the "nobody claimed it" mail; 0: no mail. */
  mailAfterSeconds: number;
};

/** The console page of a conversation on the service's public base URL. */
export function consoleConversationUrl(baseUrl: string, conversationId: string): string {
  return `${baseUrl}${CONSOLE_CONVERSATION_PATH}${encodeURIComponent(conversationId)}`;
}

/** The visitor's last message in a conversation, cut to `max` characters (null: none yet). */
export async function lastVisitorMessage(
  db: Queryable,
  conversationId: string,
  max = HANDOFF_MESSAGE_MAX,
): Promise<string | null> {
  const row = await db
    .selectFrom('messages')
    .select('content')
    .where('conversation_id', '=', conversationId)
    .where('role', '=', 'visitor')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  const chars = [...row.content];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : row.content;
}

/**
 * Tells the team that a visitor asked for a human, inside the caller's transaction (the one
 * that made the conversation `waiting`): one `webhook_deliveries` row and `deliver-webhook` job
 * per active webhook of the workspace subscribed to `conversation.handoff_requested`, and,
 * unless the mail is off, a `handoff-mail` job due `mailAfterSeconds` later, keyed per request
 * (conversation and request time), so it runs once per handoff request.
 */
export async function notifyHandoffRequested(
  trx: Queryable,
  notify: HandoffNotify,
  target: { workspaceId: string; conversationId: string; now: Date },
): Promise<void> {
  const consoleUrl = consoleConversationUrl(notify.baseUrl, target.conversationId);
  await queueHandoffWebhooks(trx, notify.queue, target, consoleUrl);
  if (notify.mailAfterSeconds > 0) {
    const requestedAt = target.now.toISOString();
    await notify.queue.send(
      handoffMailSpec,
      { conversationId: target.conversationId, requestedAt, consoleUrl },
      {
        key: `${target.conversationId}:${requestedAt}`,
        db: trx,
        startAfterSeconds: notify.mailAfterSeconds,
      },
    );
  }
}

async function queueHandoffWebhooks(
  trx: Queryable,
  queue: JobQueue,
  target: { workspaceId: string; conversationId: string; now: Date },
  consoleUrl: string,
): Promise<void> {
  const hooks = await trx
    .selectFrom('webhooks')
    .select('id')
    .where('workspace_id', '=', target.workspaceId)
    .where('is_active', '=', true)
    .where(sql<boolean>`events @> array[${HANDOFF_REQUESTED_EVENT}]::text[]`)
    .orderBy('id')
    .execute();
  if (hooks.length === 0) return;
  const conversation = await trx
    .selectFrom('conversations as c')
    .innerJoin('agents as a', 'a.id', 'c.agent_id')
    .select(['c.id', 'c.page_url', 'a.id as agent_id', 'a.name as agent_name'])
    .where('c.id', '=', target.conversationId)
    .executeTakeFirstOrThrow();
  const data: THandoffRequestedData = {
    conversation_id: conversation.id,
    agent_id: conversation.agent_id,
    agent_name: conversation.agent_name,
    last_visitor_message: await lastVisitorMessage(trx, conversation.id),
    page_url: conversation.page_url,
    requested_at: target.now.toISOString(),
    operators_online: await operatorsOnline(trx, target.workspaceId, target.now),
    console_url: consoleUrl,
  };
  const rows = hooks.map((hook) => {
    const id = newId();
    const event: THandoffRequestedEvent = {
      id,
      event: HANDOFF_REQUESTED_EVENT,
      created_at: target.now.toISOString(),
      data,
    };
    return {
      id,
      workspace_id: target.workspaceId,
      webhook_id: hook.id,
      event: HANDOFF_REQUESTED_EVENT,
      subject_id: conversation.id,
      payload: JSON.stringify(event),
      created_at: target.now,
      updated_at: target.now,
    };
  });
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  await queue.sendMany(
    deliverWebhookSpec,
    rows.map((row) => ({ payload: { deliveryId: row.id } })),
    { db: trx },
  );
}
