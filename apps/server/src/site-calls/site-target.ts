import { sql } from 'kysely';
import type { Queryable } from '../db/queryable.js';

/** Where and how to call an agent's site: its plugin routes' base and the HMAC key. */
export type SiteTarget = {
  sourceId: string;
  /** `{plugin_base}`, always ending in `/`. */
  pluginBase: string;
  /** The token's `shopper_signing_secret`: the key of service→plugin signatures. */
  signingSecret: string;
};

/**
 * The agent's site integration: a `site` or `products` source with a `plugin_base` whose API
 * token is not revoked (and has a signing secret). When several qualify, the most recently
 * synced wins. Null when the agent has none (or it is another workspace's agent).
 */
export async function findSiteTarget(
  db: Queryable,
  scope: { workspaceId: string; agentId: string },
): Promise<SiteTarget | null> {
  const row = await db
    .selectFrom('sources as s')
    .innerJoin('api_tokens as t', 't.id', 's.api_token_id')
    .select(['s.id', 's.plugin_base', 't.shopper_signing_secret'])
    .where('s.workspace_id', '=', scope.workspaceId)
    .where('s.agent_id', '=', scope.agentId)
    .where('s.type', 'in', ['site', 'products'])
    .where('s.plugin_base', 'is not', null)
    .where('t.workspace_id', '=', scope.workspaceId)
    .where('t.revoked_at', 'is', null)
    .where('t.shopper_signing_secret', '<>', '')
    .orderBy(sql`s.last_synced_at desc nulls last`)
    .orderBy('s.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row?.plugin_base) return null;
  const base = row.plugin_base.endsWith('/') ? row.plugin_base : `${row.plugin_base}/`;
  return { sourceId: row.id, pluginBase: base, signingSecret: row.shopper_signing_secret };
}

/** Whether the agent has a site the service can call (lead push, order lookup, coupons). */
export async function hasSiteTarget(
  db: Queryable,
  scope: { workspaceId: string; agentId: string },
): Promise<boolean> {
  return (await findSiteTarget(db, scope)) !== null;
}
