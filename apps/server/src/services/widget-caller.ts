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
import type { AgentRow, DB } from '../db/schema.js';
import type { ConversationRow, MessageRow } from '../db/schema-conversations.js';

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
 * Resolves a verified token to its conversation, in one query. The conversation must belong
 * to the token's agent and visitor and must not be closed (a cleared conversation's token is
 * spent), and the agent must still be published; otherwise null (a 401: a token never
 * reaches another conversation). The workspace is the agent's, nothing else.
 */
export async function resolveWidgetCaller(
  db: Kysely<DB>,
  claims: TWidgetTokenClaims,
): Promise<WidgetCaller | null> {
  const row = await db
    .selectFrom('conversations as c')
    .innerJoin('agents as a', (join) =>
      join.onRef('a.id', '=', 'c.agent_id').onRef('a.workspace_id', '=', 'c.workspace_id'),
    )
    .innerJoin('visitors as v', 'v.id', 'c.visitor_id')
    .selectAll('c')
    .select([sql<unknown>`to_jsonb(a)`.as('agent_row'), 'v.locale as visitor_locale'])
    .where('c.id', '=', claims.conversation_id)
    .where('c.agent_id', '=', claims.agent_id)
    .where('c.visitor_id', '=', claims.visitor_id)
    .where('c.status', '!=', 'closed')
    .where('a.is_published', '=', true)
    .executeTakeFirst();
  if (!row) return null;
  const { agent_row, visitor_locale, ...conversation } = row;
  const agent = agentFromJson(agent_row);
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
  },
): TWidgetMessage {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    citations: ZStoredCitations.parse(row.citations),
    blocks: ZStoredBlocks.parse(row.blocks).filter((block) => block !== null),
    created_at: typeof row.created_at === 'string' ? row.created_at : row.created_at.toISOString(),
  };
}
