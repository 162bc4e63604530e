import {
  isOriginAllowed,
  type TWidgetInitRequest,
  type TWidgetInitResponse,
  type TWidgetMessage,
  type TWidgetTokenClaims,
  WIDGET_HISTORY_HOURS,
  ZBehaviorRules,
  ZBlock,
  ZCitation,
} from '@service/contract';
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import type { AgentRow, DB } from '../db/schema.js';
import type { ConversationRow, MessageRow } from '../db/schema-conversations.js';
import { newId } from '../security/ids.js';
import { verifyShopperToken } from '../security/shopper-token.js';
import { issueWidgetToken, type WidgetTokenKey } from '../security/widget-token.js';
import type { Queryable } from './context.js';
import { normalizeLanguageTag, resolveLanguage } from './widget-language.js';

/** The caller of a widget route after its token was verified: the workspace comes from the agent. */
export type WidgetCaller = {
  workspaceId: string;
  agent: AgentRow;
  conversation: ConversationRow;
  claims: TWidgetTokenClaims;
};

/** A published agent by id (any workspace: the id is what the site pasted), or null. */
export async function findPublishedAgent(db: Queryable, agentId: string): Promise<AgentRow | null> {
  const agent = await db
    .selectFrom('agents')
    .selectAll()
    .where('id', '=', agentId)
    .where('is_published', '=', true)
    .executeTakeFirst();
  return agent ?? null;
}

/**
 * Resolves a verified token to its conversation. The conversation must belong to the token's
 * agent and visitor and must not be closed (a cleared conversation's token is spent), and the
 * agent must still be published; otherwise null (a 401: a token never reaches another
 * conversation). The workspace is the agent's, nothing else.
 */
export async function resolveWidgetCaller(
  db: Kysely<DB>,
  claims: TWidgetTokenClaims,
): Promise<WidgetCaller | null> {
  const conversation = await db
    .selectFrom('conversations')
    .selectAll()
    .where('id', '=', claims.conversation_id)
    .where('agent_id', '=', claims.agent_id)
    .where('visitor_id', '=', claims.visitor_id)
    .where('status', '!=', 'closed')
    .executeTakeFirst();
  if (!conversation) return null;
  const agent = await findPublishedAgent(db, claims.agent_id);
  if (!agent || agent.workspace_id !== conversation.workspace_id) return null;
  return { workspaceId: agent.workspace_id, agent, conversation, claims };
}

/** Whether the agent's policy lets a request with this Origin header through. */
export function agentAllowsOrigin(agent: AgentRow, origin: string | undefined): boolean {
  return isOriginAllowed(agent.allowed_origins, origin);
}

const ZStoredFeatures = z.object({
  leads: z.boolean().catch(true),
  human: z.boolean().catch(true),
  satisfaction: z.boolean().catch(true),
});

/** The agent's feature flags as init returns them; coupons need a commerce site with coupons synced. */
export async function widgetFeatures(
  db: Queryable,
  agent: AgentRow,
): Promise<TWidgetInitResponse['agent']['features']> {
  const stored = ZStoredFeatures.parse(agent.widget_features ?? {});
  const products = await db
    .selectFrom('sources')
    .select(sql<number>`coalesce(jsonb_array_length(config -> 'coupons'), 0)`.as('coupons'))
    .where('agent_id', '=', agent.id)
    .where('type', '=', 'products')
    .where('plugin_base', 'is not', null)
    .where(sql<boolean>`jsonb_typeof(config -> 'coupons') = 'array'`)
    .execute();
  const hasCoupons = products.some((row) => Number(row.coupons) > 0);
  return { coupons: agent.site_type === 'ecommerce' && hasCoupons, ...stored };
}

/** Converts a stored (or admin-wire) message for the widget; unknown block kinds are dropped. */
export function toWidgetMessage(
  row: Pick<MessageRow, 'id' | 'role' | 'content'> & {
    citations: unknown;
    blocks: unknown;
    created_at: Date | string;
  },
): TWidgetMessage {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    citations: z.array(ZCitation).catch([]).parse(row.citations),
    blocks: z
      .array(ZBlock.or(z.null()).catch(null))
      .catch([])
      .parse(row.blocks)
      .filter((block) => block !== null),
    created_at: typeof row.created_at === 'string' ? row.created_at : row.created_at.toISOString(),
  };
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
  agent: AgentRow;
  request: TWidgetInitRequest;
  acceptLanguage: string | undefined;
  tokenKey: WidgetTokenKey;
  now?: Date;
};

/**
 * Widget init: creates or resumes the visitor (by `anon_id`) and their latest open
 * conversation, records the page, verifies an optional shopper token (an invalid one is
 * ignored), and returns the agent's widget configuration, a 60-minute token and the last
 * 24 hours of the conversation's messages.
 */
export async function startWidgetSession(input: StartSessionInput): Promise<TWidgetInitResponse> {
  const { db, agent, request } = input;
  const now = input.now ?? new Date();
  const shopper = request.shopper_token
    ? await verifyShopperToken(request.shopper_token, await shopperSecrets(db, agent.id), now)
    : null;
  const locale = normalizeLanguageTag(request.locale);
  const { visitor, conversation } = await db.transaction().execute(async (trx) => {
    const visitor = await trx
      .insertInto('visitors')
      .values({
        id: newId(),
        workspace_id: agent.workspace_id,
        agent_id: agent.id,
        anon_id: request.anon_id,
        locale,
      })
      .onConflict((oc) => oc.columns(['agent_id', 'anon_id']).doUpdateSet({ last_seen_at: now, locale }))
      .returningAll()
      .executeTakeFirstOrThrow();
    const page = {
      page_url: request.page_url ?? null,
      page_title: request.page_title ?? null,
      referrer: request.referrer ?? null,
    };
    const verified = shopper
      ? {
          shopper_wp_user_id: shopper.wp_user_id,
          shopper_email_hash: shopper.email_hash,
          shopper_verified_at: now,
        }
      : {};
    const latest = await trx
      .selectFrom('conversations')
      .select('id')
      .where('visitor_id', '=', visitor.id)
      .where('status', '!=', 'closed')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    const conversation = latest
      ? await trx
          .updateTable('conversations')
          .set({ ...page, ...verified, updated_at: now })
          .where('id', '=', latest.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto('conversations')
          .values({
            id: newId(),
            workspace_id: agent.workspace_id,
            agent_id: agent.id,
            visitor_id: visitor.id,
            ...page,
            ...verified,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
    return { visitor, conversation };
  });
  const since = new Date(now.getTime() - WIDGET_HISTORY_HOURS * 3600_000);
  const history = await db
    .selectFrom('messages')
    .selectAll()
    .where('conversation_id', '=', conversation.id)
    .where('created_at', '>=', since)
    .orderBy('created_at')
    .orderBy('id')
    .limit(500)
    .execute();
  const issued = await issueWidgetToken(
    input.tokenKey,
    { agent_id: agent.id, visitor_id: visitor.id, conversation_id: conversation.id },
    now,
  );
  return {
    token: issued.token,
    expires_at: issued.expiresAt.toISOString(),
    conversation_id: conversation.id,
    visitor_id: visitor.id,
    conversation_status: conversation.status,
    agent: {
      id: agent.id,
      name: agent.name,
      language_default: agent.language_default,
      site_type: agent.site_type,
      theme: agent.theme,
      features: await widgetFeatures(db, agent),
      behavior_rules: ZBehaviorRules.catch([]).parse(agent.behavior_rules),
    },
    language: resolveLanguage(request.locale, agent.language_default, input.acceptLanguage),
    shopper_verified: conversation.shopper_verified_at !== null,
    messages: history.map(toWidgetMessage),
  };
}
