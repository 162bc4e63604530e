import {
  type TWidgetInitRequest,
  type TWidgetInitResponse,
  type TWidgetMessage,
  type TWidgetTokenClaims,
  WIDGET_HISTORY_HOURS,
} from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { AgentRow, DB } from '../../db/schema.js';
import type { ConversationRow, ConversationStatus } from '../../db/schema-conversations.js';
import { newId } from '../../security/ids.js';
import { verifyShopperToken } from '../../security/shopper-token.js';
import { issueWidgetToken, type WidgetTokenKey } from '../../security/widget-token.js';
import { eventInsertSql } from '../events/admin-events.js';
import { cachedWidgetAgent, cacheWidgetAgent, widgetAgentGeneration } from './widget-agent-cache.js';
import { storedBehaviorRules, storedWidgetFeatures, toWidgetMessage } from './widget-caller.js';
import { normalizeLanguageTag, resolveLanguage } from './widget-language.js';
import { pendingConversation, type VerifiedShopper } from './widget-pending.js';
import { readableTheme } from './widget-theme.js';
import { storedWelcome, welcomeFor } from './widget-welcome.js';

/** A published agent and whether its site synced coupons (one query), or null. */
export type WidgetAgent = { agent: AgentRow; hasCoupons: boolean };

/** A published agent by id (any workspace: the id is what the site pasted), and whether it has unexpired coupons. */
export async function findWidgetAgent(db: Queryable, agentId: string): Promise<WidgetAgent | null> {
  const row = await db
    .selectFrom('agents')
    .selectAll()
    .select(
      sql<boolean>`exists (
        select 1 from sources s
        where s.agent_id = agents.id and s.type = 'products' and s.plugin_base is not null
          and jsonb_typeof(s.config -> 'coupons') = 'array'
          and exists (
            select 1 from jsonb_array_elements(s.config -> 'coupons') coupon
            where coupon ->> 'expires_at' is null or (coupon ->> 'expires_at')::timestamptz > now()
          )
      )`.as('has_coupons'),
    )
    .where('id', '=', agentId)
    .where('is_published', '=', true)
    .executeTakeFirst();
  if (!row) return null;
  const { has_coupons, ...agent } = row;
  return { agent, hasCoupons: has_coupons };
}

/** {@link findWidgetAgent} through init's one-second cache (see widget-agent-cache.ts). */
export async function readWidgetAgent(db: Kysely<DB>, agentId: string): Promise<WidgetAgent | null> {
  const cached = cachedWidgetAgent(db, agentId);
  if (cached) return cached;
  const readAt = widgetAgentGeneration();
  const found = await findWidgetAgent(db, agentId);
  if (found) cacheWidgetAgent(db, found, readAt);
  return found;
}

/** The feature flags init returns; coupons need a commerce site that synced coupons. */
export function widgetFeatures(
  agent: AgentRow,
  hasCoupons: boolean,
): TWidgetInitResponse['agent']['features'] {
  return { coupons: agent.site_type === 'ecommerce' && hasCoupons, ...storedWidgetFeatures(agent) };
}

/** The shopper signing secrets of the agent's site tokens (a site may have re-connected with a new one). */
async function shopperSecrets(db: Queryable, agentId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sources')
    .innerJoin('api_tokens', 'api_tokens.id', 'sources.api_token_id')
    .select('api_tokens.shopper_signing_secret')
    .where('sources.agent_id', '=', agentId)
    .where('sources.type', 'in', ['site', 'products'])
    .where('api_tokens.revoked_at', 'is', null)
    .orderBy('sources.last_synced_at', 'desc')
    .limit(5)
    .execute();
  return [...new Set(rows.map((row) => row.shopper_signing_secret))];
}

/** What init needs besides the request body. */
export type StartSessionInput = {
  db: Kysely<DB>;
  widgetAgent: WidgetAgent;
  request: TWidgetInitRequest;
  acceptLanguage: string | undefined;
  tokenKey: WidgetTokenKey;
  /** The instant of the request, from the service's clock. */
  now: Date;
};

/**
 * Widget init. A visitor with a conversation that is not closed resumes it (the page and a
 * verified shopper are recorded, the last 24 hours of messages returned). Anyone else gets a
 * new conversation id and **nothing is written**: the token carries what storing the visitor
 * and the conversation needs (`pending`), and its first call stores them (most page views
 * never chat). An invalid shopper token is ignored. Returns the agent's widget configuration
 * and a 60-minute token.
 */
export async function startWidgetSession(input: StartSessionInput): Promise<TWidgetInitResponse> {
  const { db, request } = input;
  const { agent, hasCoupons } = input.widgetAgent;
  const { now } = input;
  const shopper = request.shopper_token
    ? await verifyShopperToken(request.shopper_token, await shopperSecrets(db, agent.id), now)
    : null;
  const known = await findOpenConversation(db, agent.id, request.anon_id);
  const session = known?.conversationId
    ? await resumeSession(db, agent, request, shopper, now)
    : pendingSession(agent.id, known?.visitorId ?? newId(), request, shopper, now);
  const issued = await issueWidgetToken(input.tokenKey, session.claims, now);
  const language = resolveLanguage(request.locale, agent.language_default, input.acceptLanguage);
  const welcome = welcomeFor(storedWelcome(agent), language);
  return {
    token: issued.token,
    expires_at: issued.expiresAt.toISOString(),
    conversation_id: session.claims.conversation_id,
    visitor_id: session.claims.visitor_id,
    conversation_status: session.status,
    agent: {
      id: agent.id,
      name: agent.name,
      language_default: agent.language_default,
      site_type: agent.site_type,
      theme: readableTheme(agent.theme),
      ...(welcome && { welcome }),
      features: widgetFeatures(agent, hasCoupons),
      behavior_rules: storedBehaviorRules(agent),
    },
    language,
    shopper_verified: session.isShopperVerified,
    messages: session.messages,
  };
}

/** What init answers about the conversation, and the claims of its token. */
type Session = {
  claims: TWidgetTokenClaims;
  status: ConversationStatus;
  isShopperVerified: boolean;
  messages: TWidgetMessage[];
};

/**
 * The visitor of `anon_id` and their latest conversation that is not closed, if any. A new
 * visitor (most inits) costs one unique-index lookup; only a known one reads conversations.
 */
async function findOpenConversation(
  db: Queryable,
  agentId: string,
  anonId: string,
): Promise<{ visitorId: string; conversationId: string | null } | undefined> {
  const visitor = await db
    .selectFrom('visitors')
    .select('id')
    .where('agent_id', '=', agentId)
    .where('anon_id', '=', anonId)
    .executeTakeFirst();
  if (!visitor) return undefined;
  const open = await db
    .selectFrom('conversations')
    .select('id')
    .where('visitor_id', '=', visitor.id)
    .where('status', '!=', 'closed')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return { visitorId: visitor.id, conversationId: open?.id ?? null };
}

/** A new conversation not stored yet: its ids and what storing it needs go into the token. */
function pendingSession(
  agentId: string,
  visitorId: string,
  request: TWidgetInitRequest,
  shopper: VerifiedShopper | null,
  now: Date,
): Session {
  return {
    claims: {
      agent_id: agentId,
      visitor_id: visitorId,
      conversation_id: newId(),
      pending: pendingConversation(request, shopper, now),
    },
    status: 'open',
    isShopperVerified: shopper !== null,
    messages: [],
  };
}

/** Resumes the visitor's open conversation (recording page and shopper) with its last 24 hours. */
async function resumeSession(
  db: Kysely<DB>,
  agent: AgentRow,
  request: TWidgetInitRequest,
  shopper: VerifiedShopper | null,
  now: Date,
): Promise<Session> {
  const conversation = await openConversation(db, agent, request, shopper, now);
  const since = new Date(now.getTime() - WIDGET_HISTORY_HOURS * 3600_000);
  // No message since the window opened: no history to read.
  const history =
    conversation.last_message_at === null || conversation.last_message_at < since
      ? []
      : await db
          .selectFrom('messages')
          .selectAll()
          .where('conversation_id', '=', conversation.id)
          .where('created_at', '>=', since)
          .orderBy('created_at')
          .orderBy('id')
          .limit(500)
          .execute();
  return {
    claims: { agent_id: agent.id, visitor_id: conversation.visitor_id, conversation_id: conversation.id },
    status: conversation.status,
    isShopperVerified: conversation.shopper_verified_at !== null,
    messages: history.map(toWidgetMessage),
  };
}

/**
 * Upserts the visitor and resumes their latest conversation that is not closed (recording the
 * page and a verified shopper), or starts one if it was closed meanwhile — a single statement.
 */
async function openConversation(
  db: Kysely<DB>,
  agent: AgentRow,
  request: TWidgetInitRequest,
  shopper: VerifiedShopper | null,
  now: Date,
): Promise<ConversationRow> {
  const locale = normalizeLanguageTag(request.locale);
  const pageUrl = request.page_url ?? null;
  const pageTitle = request.page_title ?? null;
  const referrer = request.referrer ?? null;
  const shopperId = shopper?.wp_user_id ?? null;
  const shopperHash = shopper?.email_hash ?? null;
  const verifiedAt = shopper ? now : null;
  const startedId = newId();
  const created = eventInsertSql(
    agent.workspace_id,
    { type: 'conversation.created', at: now.toISOString(), conversation_id: startedId, agent_id: agent.id },
    'started',
  );
  const result = await sql<ConversationRow>`
    with visitor as (
      insert into visitors (id, workspace_id, agent_id, anon_id, locale, created_at, last_seen_at)
      values (${newId()}, ${agent.workspace_id}, ${agent.id}, ${request.anon_id}, ${locale}, ${now}, ${now})
      on conflict (agent_id, anon_id)
        do update set last_seen_at = excluded.last_seen_at, locale = coalesce(excluded.locale, visitors.locale)
      returning id
    ), latest as (
      select c.id from conversations c
      where c.visitor_id = (select id from visitor) and c.status <> 'closed'
      order by c.created_at desc, c.id desc
      limit 1
    ), resumed as (
      update conversations set
        page_url = ${pageUrl}, page_title = ${pageTitle}, referrer = ${referrer}, updated_at = ${now},
        shopper_wp_user_id = coalesce(${shopperId}::bigint, shopper_wp_user_id),
        shopper_email_hash = coalesce(${shopperHash}::text, shopper_email_hash),
        shopper_verified_at = coalesce(${verifiedAt}::timestamptz, shopper_verified_at)
      where id = (select id from latest)
      returning *
    ), started as (
      insert into conversations (id, workspace_id, agent_id, visitor_id, page_url, page_title, referrer,
        shopper_wp_user_id, shopper_email_hash, shopper_verified_at, created_at, updated_at)
      select ${startedId}, ${agent.workspace_id}, ${agent.id}, visitor.id, ${pageUrl}, ${pageTitle}, ${referrer},
        ${shopperId}::bigint, ${shopperHash}::text, ${verifiedAt}::timestamptz, ${now}, ${now}
      from visitor where not exists (select 1 from latest)
      returning *
    ), admin_event as (${created})
    select * from resumed union all select * from started`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('init: no conversation was resumed or started');
  return row;
}
