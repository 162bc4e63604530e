import { type Kysely, sql } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { newId } from '../../src/security/ids.js';

/** `n` new ids in creation order (ULIDs, as the services make them). */
export function newIds(n: number): string[] {
  return Array.from({ length: n }, () => newId());
}

/** Inserts `n` API tokens in one statement; returns their ids in list order. */
export async function insertTokens(db: Kysely<DB>, workspaceId: string, n: number): Promise<string[]> {
  const ids = newIds(n);
  await sql`insert into api_tokens (id, workspace_id, name, token_hash, token_prefix, abilities, shopper_signing_secret)
    select u.id, ${workspaceId}, 'Bulk token ' || u.n, 'bulk-' || u.id, 'svc_bulk', array['admin'], 'bulk-secret'
    from unnest(${ids}::text[]) with ordinality as u(id, n)`.execute(db);
  return ids;
}

/** Inserts `n` draft KB articles in one statement; returns their ids in list order. */
export async function insertKbArticles(db: Kysely<DB>, workspaceId: string, n: number): Promise<string[]> {
  const ids = newIds(n);
  await sql`insert into kb_articles (id, workspace_id, title, slug, body_markdown)
    select u.id, ${workspaceId}, 'Bulk article ' || u.n, 'bulk-' || lower(u.id), 'Body ' || u.n
    from unnest(${ids}::text[]) with ordinality as u(id, n)`.execute(db);
  return ids;
}

/** Inserts `n` text sources of an agent in one statement; returns their ids in list order. */
export async function insertSources(
  db: Kysely<DB>,
  workspaceId: string,
  agentId: string,
  n: number,
): Promise<string[]> {
  const ids = newIds(n);
  await sql`insert into sources (id, workspace_id, agent_id, type, name, status)
    select u.id, ${workspaceId}, ${agentId}, 'text', 'Bulk source ' || u.n, 'indexed'
    from unnest(${ids}::text[]) with ordinality as u(id, n)`.execute(db);
  return ids;
}
