import {
  type TWidgetInitRequest,
  type TWidgetPendingConversation,
  type TWidgetTokenClaims,
  WIDGET_PENDING_PAGE_TITLE_MAX,
  WIDGET_PENDING_PAGE_URL_MAX,
} from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import { normalizeLanguageTag } from './widget-language.js';

// Lazy conversations: init for a visitor with no open conversation writes nothing and signs
// what storing one needs into the token (`pending`); the token's first authenticated call
// stores the visitor and the conversation (see resolveWidgetCaller).

/** A shopper whose site token verified at init. */
export type VerifiedShopper = { wp_user_id: number; email_hash: string };

/** The `pending` claims of an init that stored nothing: page fields cut to what a header can carry. */
export function pendingConversation(
  request: TWidgetInitRequest,
  shopper: VerifiedShopper | null,
  now: Date,
): TWidgetPendingConversation {
  return {
    anon_id: request.anon_id,
    locale: normalizeLanguageTag(request.locale),
    page_url: cut(request.page_url, WIDGET_PENDING_PAGE_URL_MAX),
    page_title: cut(request.page_title, WIDGET_PENDING_PAGE_TITLE_MAX),
    referrer: cut(request.referrer, WIDGET_PENDING_PAGE_URL_MAX),
    shopper: shopper
      ? {
          wp_user_id: shopper.wp_user_id,
          email_hash: shopper.email_hash,
          verified_at: Math.max(1, Math.floor(now.getTime() / 1000)),
        }
      : null,
  };
}

function cut(value: string | undefined, max: number): string | null {
  return value ? value.slice(0, max) : null;
}

/**
 * Stores a token's pending conversation, in one statement: the visitor is upserted by
 * `(agent_id, anon_id)` (an existing visitor keeps its id), then the conversation is inserted
 * under that visitor with the token's id, `on conflict (id) do nothing`, so a conversation
 * already stored (by a concurrent call, or stored and then closed) is never re-created or
 * reopened: the caller re-reads it and applies its checks. Nothing is written unless the
 * agent is still published. A stored conversation's `conversation.created` event goes with it
 * (the event insert's trigger notifies the operators' streams).
 */
export async function storePendingConversation(
  db: Kysely<DB>,
  claims: TWidgetTokenClaims,
  pending: TWidgetPendingConversation,
  now: Date,
): Promise<void> {
  const shopper = pending.shopper;
  const verifiedAt = shopper ? new Date(shopper.verified_at * 1000) : null;
  await sql`
    with agent as (
      select id, workspace_id from agents where id = ${claims.agent_id} and is_published
    ), visitor as (
      insert into visitors (id, workspace_id, agent_id, anon_id, locale, created_at, last_seen_at)
      select ${claims.visitor_id}, agent.workspace_id, agent.id, ${pending.anon_id}, ${pending.locale}::text,
        ${now}::timestamptz, ${now}::timestamptz
      from agent
      on conflict (agent_id, anon_id)
        do update set last_seen_at = excluded.last_seen_at, locale = coalesce(excluded.locale, visitors.locale)
      returning id, workspace_id, agent_id
    ), stored as (
      insert into conversations (id, workspace_id, agent_id, visitor_id, page_url, page_title, referrer,
        shopper_wp_user_id, shopper_email_hash, shopper_verified_at, created_at, updated_at)
      select ${claims.conversation_id}, visitor.workspace_id, visitor.agent_id, visitor.id, ${pending.page_url}::text,
        ${pending.page_title}::text, ${pending.referrer}::text, ${shopper?.wp_user_id ?? null}::bigint,
        ${shopper?.email_hash ?? null}::text, ${verifiedAt}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      from visitor
      on conflict (id) do nothing
      returning id, workspace_id, agent_id
    )
    insert into admin_events (workspace_id, type, payload, created_at)
    select stored.workspace_id, 'conversation.created', jsonb_build_object(
      'type', 'conversation.created', 'at', ${now.toISOString()}::text,
      'conversation_id', stored.id, 'agent_id', stored.agent_id
    ), ${now}::timestamptz
    from stored`.execute(db);
}
