import type { Queryable } from '../db/queryable.js';
import { notFound } from '../errors/app-error.js';

/**
 * The few agent fields other services need, for an agent of this workspace; another
 * workspace's agent (or none) is a 404. `forUpdate` locks the row for the caller's transaction.
 */
export async function requireAgent(
  db: Queryable,
  workspaceId: string,
  agentId: string,
  options: { forUpdate?: boolean } = {},
): Promise<{ id: string; site_type: string; language_default: string | null }> {
  let query = db
    .selectFrom('agents')
    .select(['id', 'site_type', 'language_default'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', agentId);
  if (options.forUpdate) query = query.forUpdate();
  const agent = await query.executeTakeFirst();
  if (!agent) throw notFound();
  return agent;
}
