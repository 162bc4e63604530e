import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { KbArticleView, KbListedArticle, KbSite } from '../../kb/kb-types.js';

/** Most articles a KB lists (home, sitemap, previous/next): far above any hand-written KB. */
const LIST_LIMIT = 2000;
/** Most search results shown. */
export const KB_SEARCH_LIMIT = 20;

/** The KB of the workspace with this slug, or `null` when there is none. */
export async function findKbSite(db: Queryable, workspaceSlug: string): Promise<KbSite | null> {
  const row = await db
    .selectFrom('workspaces')
    .leftJoin('agents', (join) =>
      join
        .onRef('agents.id', '=', 'workspaces.kb_widget_agent_id')
        .onRef('agents.workspace_id', '=', 'workspaces.id')
        .on('agents.is_published', '=', true),
    )
    .select([
      'workspaces.id',
      'workspaces.slug',
      'workspaces.name',
      'workspaces.kb_title',
      'workspaces.kb_logo_url',
      'workspaces.kb_color',
      'agents.id as agent_id',
      'agents.allowed_origins as agent_origins',
    ])
    .where('workspaces.slug', '=', workspaceSlug)
    .executeTakeFirst();
  if (!row) return null;
  return {
    workspaceId: row.id,
    slug: row.slug,
    title: row.kb_title || `${row.name} help centre`,
    workspaceName: row.name,
    logoUrl: row.kb_logo_url,
    color: row.kb_color,
    widgetAgentId: row.agent_id ?? null,
    widgetOrigins: row.agent_origins ?? [],
  };
}

/** Reading order: named categories A to Z, then the general section; titles A to Z within each. */
function byReadingOrder(a: KbListedArticle, b: KbListedArticle): number {
  if (a.category !== b.category) {
    if (a.category === '') return 1;
    if (b.category === '') return -1;
    return a.category.localeCompare(b.category, 'en', { sensitivity: 'base' });
  }
  return a.title.localeCompare(b.title, 'en', { sensitivity: 'base' }) || a.slug.localeCompare(b.slug);
}

/** The workspace's published articles in reading order (the home's sections, previous/next). */
export async function listKbSiteArticles(db: Queryable, workspaceId: string): Promise<KbListedArticle[]> {
  const rows = await db
    .selectFrom('kb_articles')
    .select(['title', 'slug', 'category', 'updated_at'])
    .where('workspace_id', '=', workspaceId)
    .where('is_published', '=', true)
    .orderBy('published_at', 'desc')
    .limit(LIST_LIMIT)
    .execute();
  return rows
    .map((row) => ({ title: row.title, slug: row.slug, category: row.category, updatedAt: row.updated_at }))
    .sort(byReadingOrder);
}

/** One published article of the workspace; unpublished and unknown are both `null`. */
export async function findKbSiteArticle(
  db: Queryable,
  workspaceId: string,
  articleSlug: string,
): Promise<KbArticleView | null> {
  const row = await db
    .selectFrom('kb_articles')
    .select(['title', 'slug', 'category', 'body_markdown', 'published_at', 'updated_at'])
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', articleSlug)
    .where('is_published', '=', true)
    .executeTakeFirst();
  if (!row) return null;
  return {
    title: row.title,
    slug: row.slug,
    category: row.category,
    bodyMarkdown: row.body_markdown,
    publishedAt: row.published_at,
    updatedAt: row.updated_at,
  };
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * Full-text search over the workspace's published articles (title weighted above body, English
 * stemming, web-search syntax: quotes, `or`, `-word`), plus titles containing the query as typed
 * so a partial word still finds its article. Best first.
 */
export async function searchKbSiteArticles(
  db: Queryable,
  workspaceId: string,
  query: string,
): Promise<KbArticleView[]> {
  const document = sql`setweight(to_tsvector('english', kb_articles.title), 'A') || setweight(to_tsvector('english', kb_articles.body_markdown), 'B')`;
  const tsquery = sql`websearch_to_tsquery('english', ${query})`;
  const rows = await db
    .selectFrom('kb_articles')
    .select([
      'title',
      'slug',
      'category',
      'body_markdown',
      'published_at',
      'updated_at',
      sql<number>`ts_rank(${document}, ${tsquery})`.as('rank'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('is_published', '=', true)
    .where((eb) =>
      eb.or([sql<boolean>`${document} @@ ${tsquery}`, eb('title', 'ilike', `%${likeLiteral(query)}%`)]),
    )
    .orderBy('rank', 'desc')
    .orderBy('title')
    .limit(KB_SEARCH_LIMIT)
    .execute();
  return rows.map((row) => ({
    title: row.title,
    slug: row.slug,
    category: row.category,
    bodyMarkdown: row.body_markdown,
    publishedAt: row.published_at,
    updatedAt: row.updated_at,
  }));
}
