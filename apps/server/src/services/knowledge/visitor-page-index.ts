import { normalizeOrigin } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { AgentRow, DB } from '../../db/schema.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { fetchSourceSpec } from '../../queue/job-specs.js';
import { newId } from '../../security/ids.js';

/** Most pages one agent indexes from visits; beyond it, visits add nothing. */
export const MAX_VISITOR_PAGES = 200;

/** Why a visited page was (not) queued. */
export type VisitorPageOutcome = 'queued' | 'known' | 'not_allowed' | 'cap_reached';

/**
 * Visitor-triggered indexing (off unless the agent's `auto_index_pages` is on): the visited
 * page becomes a `url` source fetched through the crawl-safety guard like any other. Only
 * pages on an origin listed explicitly in `allowed_origins` count (with `*` alone nobody
 * could say which site is the agent's, so visitors could feed it any page); the fragment is
 * dropped, each URL is indexed once, and at most {@link MAX_VISITOR_PAGES} per agent.
 */
export async function indexVisitorPage(options: {
  db: Kysely<DB>;
  queue: JobQueue;
  agent: AgentRow;
  pageUrl: string;
}): Promise<VisitorPageOutcome> {
  const { db, agent } = options;
  let url: URL;
  try {
    url = new URL(options.pageUrl);
  } catch {
    return 'not_allowed';
  }
  const origin = normalizeOrigin(url.origin);
  if (!origin || !agent.allowed_origins.includes(origin)) return 'not_allowed';
  url.hash = '';
  const pageUrl = url.toString();
  return db.transaction().execute(async (trx) => {
    // One visit at a time per agent decides, so the cap and the de-duplication hold under load.
    await sql`select pg_advisory_xact_lock(hashtext(${`visitor-pages:${agent.id}`}))`.execute(trx);
    const existing = await trx
      .selectFrom('sources')
      .select((eb) => [
        eb.fn.countAll<string>().as('total'),
        eb.fn.countAll<string>().filterWhere(sql<string>`config ->> 'url'`, '=', pageUrl).as('same'),
      ])
      .where('agent_id', '=', agent.id)
      .where('type', '=', 'url')
      .where(sql<boolean>`(config ->> 'visitor_page') = 'true'`)
      .executeTakeFirstOrThrow();
    if (Number(existing.same) > 0) return 'known';
    if (Number(existing.total) >= MAX_VISITOR_PAGES) return 'cap_reached';
    const sourceId = newId();
    await trx
      .insertInto('sources')
      .values({
        id: sourceId,
        workspace_id: agent.workspace_id,
        agent_id: agent.id,
        type: 'url',
        name: `Visited page: ${pageUrl}`.slice(0, 200),
        status: 'queued',
        config: JSON.stringify({ url: pageUrl, visitor_page: true }),
      })
      .execute();
    await options.queue.send(fetchSourceSpec, { sourceId }, { key: sourceId, db: trx });
    return 'queued';
  });
}
