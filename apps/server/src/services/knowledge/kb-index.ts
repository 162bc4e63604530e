import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import { htmlToText } from '../../ingest/html-text.js';
import { KB_PATH } from '../../kb/kb-paths.js';
import { renderMarkdown } from '../../kb/render-markdown.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { sha256Hex } from '../../security/hashing.js';
import { newId } from '../../security/ids.js';
import { requireAgent } from '../require-agent.js';
import { type IncomingItem, upsertDocuments } from './documents.js';
import { settleSources } from './source-run.js';

/** Source type and document kind of the knowledge base in an agent's sources. */
export const KB_SOURCE_TYPE = 'kb';
export const KB_DOCUMENT_KIND = 'kb_article';
const KB_SOURCE_NAME = 'Knowledge base';

/**
 * What a service that changes articles or agents needs to keep the knowledge base indexed; the
 * active embedding provider's key tells whether a kb source still waits for vectors.
 */
export type KbIndexing = {
  queue: JobQueue;
  publicBaseUrl?: string | undefined;
  embeddingsKey?: string | null | undefined;
};

type Article = { id: string; title: string; slug: string; body_markdown: string; updated_at: Date };
type Agent = { id: string; language_default: string | null };
type PreparedArticle = { article: Article; url: string; text: string };

/**
 * Brings one article's document up to date in the kb source of every agent of the workspace:
 * a published article is upserted (and queued for indexing only when its text or URL changed);
 * an unpublished or deleted one is removed with its chunks. Runs in the caller's transaction.
 */
export async function syncArticleForAgents(
  trx: Queryable,
  queue: JobQueue,
  options: { workspaceId: string; articleId: string; clock: Clock } & Omit<KbIndexing, 'queue'>,
): Promise<{ queued: number; removed: number }> {
  const { workspaceId, articleId } = options;
  const article = await publishedArticles(trx, workspaceId).where('id', '=', articleId).executeTakeFirst();
  if (!article) {
    const removed = await trx
      .deleteFrom('documents')
      .where('workspace_id', '=', workspaceId)
      .where('kind', '=', KB_DOCUMENT_KIND)
      .where('external_id', '=', articleId)
      .where('source_id', 'in', kbSourceIds(trx, workspaceId))
      .returning('source_id')
      .execute();
    // With the provider's key: a source whose other articles still wait for vectors stays `indexing`.
    await settleSources(
      trx,
      removed.map((row) => row.source_id),
      { embeddingsKey: options.embeddingsKey ?? null, evaluations: { queue, clock: options.clock } },
    );
    return { queued: 0, removed: removed.length };
  }
  // Locked in id order: two writers never both create an agent's kb source, nor deadlock.
  const agents = await trx
    .selectFrom('agents')
    .select(['id', 'language_default'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .forUpdate()
    .execute();
  const prepared = await prepareArticles(trx, workspaceId, options.publicBaseUrl, [article]);
  let queued = 0;
  for (const agent of agents) {
    const sourceId = await ensureKbSource(trx, workspaceId, agent.id);
    queued += await upsertArticles(
      trx,
      queue,
      { workspaceId, sourceId, agent, clock: options.clock },
      prepared,
    );
  }
  return { queued, removed: 0 };
}

/**
 * Full sync of one agent's kb source: every published article of the workspace is upserted
 * (queued only when changed) and documents of unpublished or deleted articles are removed.
 * A workspace without published articles gets no (empty) kb source. Runs in the caller's
 * transaction; for a new agent and for a re-index of the kb source.
 */
export async function syncKbForAgent(
  trx: Queryable,
  queue: JobQueue,
  options: { workspaceId: string; agentId: string; clock: Clock } & Omit<KbIndexing, 'queue'>,
): Promise<{ queued: number; removed: number }> {
  const { workspaceId, agentId } = options;
  const agent = await requireAgent(trx, workspaceId, agentId, { forUpdate: true });
  const articles = await publishedArticles(trx, workspaceId).orderBy('id').execute();
  let sourceId = await findKbSource(trx, workspaceId, agentId);
  let queued = 0;
  if (articles.length > 0) {
    sourceId ??= await ensureKbSource(trx, workspaceId, agentId);
    const prepared = await prepareArticles(trx, workspaceId, options.publicBaseUrl, articles);
    queued = await upsertArticles(
      trx,
      queue,
      { workspaceId, sourceId, agent, clock: options.clock },
      prepared,
    );
  }
  if (sourceId === undefined) return { queued, removed: 0 };
  let stale = trx.deleteFrom('documents').where('source_id', '=', sourceId);
  // One array parameter, however many articles (a list of ids would bind one parameter each).
  const kept = articles.map((a) => a.id);
  if (articles.length > 0) stale = stale.where(sql<boolean>`external_id <> all(${kept}::text[])`);
  const removed = await stale.returning('id').execute();
  await settleSources(trx, [sourceId], {
    embeddingsKey: options.embeddingsKey ?? null,
    evaluations: { queue, clock: options.clock },
  });
  return { queued, removed: removed.length };
}

/**
 * An article as retrieval reads it: the title as a heading, then the rendered markdown as plain
 * text. Raw HTML is escaped by the renderer (shown literally on the public page); here it is
 * dropped from prose, script/style contents included, so markup never reaches the index. Code
 * spans and blocks keep their text verbatim: an HTML snippet there is content.
 */
export function articleText(title: string, bodyMarkdown: string): string {
  const html = `<h1>${escapeHtml(title)}</h1>\n${renderMarkdown(bodyMarkdown)}`;
  const cleaned = html
    .split(CODE_ELEMENT)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(ESCAPED_SCRIPT, '').replace(ESCAPED_TAG, '')))
    .join('');
  return htmlToText(cleaned);
}

/** The public address of an article: absolute under PUBLIC_BASE_URL, else the site-relative path. */
export function articleUrl(publicBaseUrl: string | undefined, workspaceSlug: string, articleSlug: string) {
  return `${publicBaseUrl ?? ''}${KB_PATH}/${workspaceSlug}/${articleSlug}`;
}

/** `<pre>`/`<code>` elements of the renderer's output (raw ones in the markdown are escaped). */
const CODE_ELEMENT = /(<pre[\s>][\s\S]*?<\/pre>|<code[\s>][\s\S]*?<\/code>)/;
/** An escaped script or style element with its content, within one text run. */
const ESCAPED_SCRIPT = /&lt;(script|style)\b[^<]*?&lt;\/\1\s*&gt;/gi;
/** An escaped tag, comment, CDATA section or declaration, within one text run. */
const ESCAPED_TAG = /&lt;(?:!--[^<]*?--&gt;|!\[CDATA\[[^<]*?\]\]&gt;|[!?/]?[a-z][^<]*?&gt;)/gi;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function publishedArticles(db: Queryable, workspaceId: string) {
  return db
    .selectFrom('kb_articles')
    .select(['id', 'title', 'slug', 'body_markdown', 'updated_at'])
    .where('workspace_id', '=', workspaceId)
    .where('is_published', '=', true);
}

function kbSourceIds(db: Queryable, workspaceId: string) {
  return db
    .selectFrom('sources')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('type', '=', KB_SOURCE_TYPE);
}

/** Each article with its public URL and indexed text, computed once for all agents. */
async function prepareArticles(
  db: Queryable,
  workspaceId: string,
  publicBaseUrl: string | undefined,
  articles: Article[],
): Promise<PreparedArticle[]> {
  const workspace = await db
    .selectFrom('workspaces')
    .select('slug')
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return articles.map((article) => ({
    article,
    url: articleUrl(publicBaseUrl, workspace.slug, article.slug),
    text: articleText(article.title, article.body_markdown),
  }));
}

async function findKbSource(
  db: Queryable,
  workspaceId: string,
  agentId: string,
): Promise<string | undefined> {
  const row = await kbSourceIds(db, workspaceId)
    .where('agent_id', '=', agentId)
    .orderBy('id')
    .executeTakeFirst();
  return row?.id;
}

/** The agent's kb source, created on first use; the caller holds the agent row lock. */
async function ensureKbSource(db: Queryable, workspaceId: string, agentId: string): Promise<string> {
  const existing = await findKbSource(db, workspaceId, agentId);
  if (existing !== undefined) return existing;
  const id = newId();
  await db
    .insertInto('sources')
    .values({
      id,
      workspace_id: workspaceId,
      agent_id: agentId,
      type: KB_SOURCE_TYPE,
      name: KB_SOURCE_NAME,
      status: 'indexing',
    })
    .execute();
  return id;
}

/** Upserts articles as one agent's documents; a source that got jobs waits for them (`indexing`). */
async function upsertArticles(
  trx: Queryable,
  queue: JobQueue,
  target: { workspaceId: string; sourceId: string; agent: Agent; clock: Clock },
  articles: PreparedArticle[],
): Promise<number> {
  const { workspaceId, sourceId, agent, clock } = target;
  const items = articles.map(({ article, url, text }): IncomingItem => {
    // The language is part of the hash: it picks the text-search configuration of the chunks.
    const hash = sha256Hex(`${text}\n${url}\n${agent.language_default ?? ''}`);
    return {
      externalId: article.id,
      hash,
      toDocument: () => ({
        externalId: article.id,
        kind: KB_DOCUMENT_KIND,
        title: article.title,
        url,
        language: agent.language_default,
        text,
        hash,
        metadata: { slug: article.slug },
        modifiedAt: article.updated_at,
      }),
    };
  });
  const { queued } = await upsertDocuments(
    trx,
    queue,
    { id: sourceId, workspace_id: workspaceId, agent_id: agent.id },
    items,
  );
  if (queued > 0) {
    await trx
      .updateTable('sources')
      .set({ status: 'indexing', error: null, updated_at: clock.now() })
      .where('id', '=', sourceId)
      .execute();
  }
  return queued;
}
