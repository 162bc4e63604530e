import {
  isOriginAllowed,
  type TBehaviorRule,
  type TWidgetFeatureSettings,
  type TWidgetMessage,
  type TWidgetTokenClaims,
  ZBehaviorRules,
  ZBlock,
  ZCitation,
  ZWidgetFeatureSettings,
} from '@service/contract';
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import { PREPARED } from '../../db/prepared.js';
import type { AgentRow, DB } from '../../db/schema.js';
import type { ConversationRow, MessageRow } from '../../db/schema-conversations.js';
import { AppError } from '../../errors/app-error.js';
import { storePendingConversation } from './widget-pending.js';

/** The caller of a widget route after its token was verified: the workspace comes from the agent. */
export type WidgetCaller = {
  workspaceId: string;
  agent: AgentRow;
  conversation: ConversationRow;
  /** The visitor's own language (the loader's `locale`), if they sent one. */
  visitorLocale: string | null;
  claims: TWidgetTokenClaims;
};

/**
 * Resolves a verified token to its conversation. The conversation must belong to the token's
 * agent and visitor and must not be closed (a cleared conversation's token is spent), and the
 * agent must still be published; otherwise null (a 401: a token never reaches another
 * conversation). The workspace is the agent's, nothing else.
 *
 * A token whose claims say the conversation is not stored yet (`pending`) stores it here, at
 * its first call, then resolves like every other token: its visitor is the one of the signed
 * `(agent_id, anon_id)`, so a conversation stored under another visitor stays out of reach,
 * and one stored then closed is never re-created (the insert does nothing on a conflict).
 */
export async function resolveWidgetCaller(
  db: Kysely<DB>,
  claims: TWidgetTokenClaims,
  now: Date,
  request: { origin?: string | undefined } = {},
): Promise<WidgetCaller | null> {
  const found = await readCaller(db, claims);
  if (found !== 'missing') return found;
  if (!claims.pending) return null;
  // Nothing is stored for a request the Origin policy refuses (the 403 it gets changes nothing).
  const agent = await db
    .selectFrom('agents')
    .select('allowed_origins')
    .where('id', '=', claims.agent_id)
    .where('is_published', '=', true)
    .executeTakeFirst();
  if (!agent) return null;
  if (!isOriginAllowed(agent.allowed_origins, request.origin)) throw new AppError('forbidden');
  await storePendingConversation(db, claims, claims.pending, now);
  const stored = await readCaller(db, claims);
  return stored === 'missing' ? null : stored;
}

/** The token's conversation with its agent and visitor (one query): a caller, null (refused) or 'missing'. */
async function readCaller(
  db: Kysely<DB>,
  claims: TWidgetTokenClaims,
): Promise<WidgetCaller | null | 'missing'> {
  const row = await db
    .selectFrom('conversations as c')
    .modifyFront(PREPARED)
    .innerJoin('agents as a', (join) =>
      join.onRef('a.id', '=', 'c.agent_id').onRef('a.workspace_id', '=', 'c.workspace_id'),
    )
    .innerJoin('visitors as v', (join) =>
      join.onRef('v.id', '=', 'c.visitor_id').onRef('v.agent_id', '=', 'c.agent_id'),
    )
    .selectAll('c')
    .select([
      sql<unknown>`to_jsonb(a)`.as('agent_row'),
      'v.locale as visitor_locale',
      'v.anon_id as visitor_anon_id',
    ])
    .where('c.id', '=', claims.conversation_id)
    .where('c.agent_id', '=', claims.agent_id)
    .executeTakeFirst();
  if (!row) return 'missing';
  const { agent_row, visitor_locale, visitor_anon_id, ...conversation } = row;
  const isVisitors = claims.pending
    ? visitor_anon_id === claims.pending.anon_id
    : conversation.visitor_id === claims.visitor_id;
  if (!isVisitors || conversation.status === 'closed') return null;
  const agent = agentFromJson(agent_row);
  if (!agent.is_published) return null;
  return { workspaceId: agent.workspace_id, agent, conversation, visitorLocale: visitor_locale, claims };
}

const ZAgentJson = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  site_type: z.enum(['generic', 'ecommerce']),
  language_default: z.string().nullable(),
  is_published: z.boolean(),
  allowed_origins: z.array(z.string()),
  theme: z.object({
    position: z.enum(['bottom-right', 'bottom-left']),
    primary: z.string(),
    accent: z.string(),
    radius: z.number(),
    launcher_label: z.string(),
  }),
  system_prompt: z.string(),
  behavior_rules: z.array(z.unknown()),
  auto_index_pages: z.boolean(),
  widget_features: z.record(z.string(), z.boolean()),
  welcome: z.record(z.string(), z.unknown()).nullable().catch(null),
  created_at: z.coerce.date(),
  updated_at: z.coerce.date(),
});

/** An agent row read back from `to_jsonb(agents)` (one round trip instead of two). */
function agentFromJson(value: unknown): AgentRow {
  return ZAgentJson.parse(value);
}

/** Widget features a new agent starts with: all on. */
export const DEFAULT_WIDGET_FEATURES: TWidgetFeatureSettings = Object.freeze({
  leads: true,
  human: true,
  satisfaction: true,
});

/** The agent's stored behaviour rules; rules that no longer parse are dropped rather than failing. */
export function storedBehaviorRules(agent: Pick<AgentRow, 'behavior_rules'>): TBehaviorRule[] {
  return ZStoredBehaviorRules.parse(agent.behavior_rules);
}

// Schemas are built once: constructing a zod schema costs far more than running it.
const ZStoredFeatures = ZWidgetFeatureSettings.partial().catch({});
const ZStoredBehaviorRules = ZBehaviorRules.catch([]);
const ZStoredCitations = z.array(ZCitation).catch([]);
const ZStoredBlocks = z.array(ZBlock.or(z.null()).catch(null)).catch([]);

/** Whether the agent's policy lets a request with this Origin header through. */
export function agentAllowsOrigin(agent: AgentRow, origin: string | undefined): boolean {
  return isOriginAllowed(agent.allowed_origins, origin);
}

/** The agent's own switches (leads, human, satisfaction), defaults filled in. */
export function storedWidgetFeatures(agent: Pick<AgentRow, 'widget_features'>): TWidgetFeatureSettings {
  return { ...DEFAULT_WIDGET_FEATURES, ...ZStoredFeatures.parse(agent.widget_features) };
}

/** Converts a stored (or admin-wire) message for the widget; unknown block kinds are dropped. */
export function toWidgetMessage(
  row: Pick<MessageRow, 'id' | 'role' | 'content'> & {
    citations: unknown;
    blocks: unknown;
    created_at: Date | string;
    from_team?: boolean | undefined;
  },
): TWidgetMessage {
  return {
    ...(row.from_team === true && { from_team: true }),
    id: row.id,
    role: row.role,
    content: row.content,
    citations: ZStoredCitations.parse(row.citations),
    blocks: ZStoredBlocks.parse(row.blocks).filter((block) => block !== null),
    created_at: typeof row.created_at === 'string' ? row.created_at : row.created_at.toISOString(),
  };
}
