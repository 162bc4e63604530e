import type { TAgentListItem } from '@service/contract';
import { sql } from 'kysely';
import { iso, type TenantScope } from '../context.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';
import { toAgent } from './agents.js';

/**
 * A page of the workspace's agents, oldest first (keyset on the id), each with what the console's
 * agents list shows: its knowledge size and when it last answered. One statement for the page:
 * the counts are correlated subqueries, each an index scan on its table's (workspace_id,
 * agent_id …) index, so the cost grows with the page, never with one query per agent.
 */
export async function listAgents(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  page: PageRequest,
): Promise<Page<TAgentListItem>> {
  const binding = { list: `agents:${page.order}`, workspaceId: scope.workspaceId };
  const after = pageStart(page, binding);
  let query = scope.db
    .selectFrom('agents as a')
    .selectAll('a')
    .select([
      sql<number>`(select count(*)::int from sources s
        where s.workspace_id = a.workspace_id and s.agent_id = a.id)`.as('source_count'),
      sql<number>`(select count(*)::int from sources s
        where s.workspace_id = a.workspace_id and s.agent_id = a.id and s.status = 'failed')`.as(
        'failed_source_count',
      ),
      sql<number>`(select count(*)::int from documents d
        where d.workspace_id = a.workspace_id and d.agent_id = a.id)`.as('document_count'),
      sql<number>`(select count(*)::int from chunks c
        where c.workspace_id = a.workspace_id and c.agent_id = a.id)`.as('chunk_count'),
      sql<Date | null>`(select max(t.created_at) from answer_turns t
        where t.workspace_id = a.workspace_id and t.agent_id = a.id)`.as('last_answer_at'),
    ])
    .where('a.workspace_id', '=', scope.workspaceId)
    .orderBy('a.id', page.order)
    .limit(page.limit + 1);
  if (after !== undefined) query = query.where('a.id', afterOperator(page), after);
  const rows = await query.execute();
  return pageOf(rows, page, binding, (row) => ({
    ...toAgent(row),
    knowledge: {
      source_count: row.source_count,
      failed_source_count: row.failed_source_count,
      document_count: row.document_count,
      chunk_count: row.chunk_count,
    },
    // max() of a timestamptz comes back as a Date on pg and PGlite alike.
    last_answer_at: row.last_answer_at === null ? null : iso(new Date(row.last_answer_at)),
  }));
}
