import type { TKbArticle, TKbArticleCreate, TKbArticleUpdate } from '@service/contract';
import { isUniqueViolation } from '../../db/pg-errors.js';
import type { Queryable } from '../../db/queryable.js';
import type { KbArticleRow } from '../../db/schema.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { iso, type TenantScope } from '../context.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';
import { firstFreeSlug, slugFamilyPattern, slugify } from '../slugs.js';
import { type KbIndexing, syncArticleForAgents } from './kb-index.js';

const SLUG_TAKEN = 'The slug has already been taken in this workspace.';

/** A page of the workspace's articles (drafts included), oldest first; keyset on the id. */
export async function listKbArticles(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  page: PageRequest,
): Promise<Page<TKbArticle>> {
  const binding = { list: `kb_articles:${page.order}`, workspaceId: scope.workspaceId };
  const after = pageStart(page, binding);
  let query = scope.db
    .selectFrom('kb_articles')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .orderBy('id', page.order)
    .limit(page.limit + 1);
  if (after !== undefined) query = query.where('id', afterOperator(page), after);
  return pageOf(await query.execute(), page, binding, toKbArticle);
}

/** Reads one article of the workspace; another workspace's article is a 404. */
export async function getKbArticle(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  articleId: string,
): Promise<TKbArticle> {
  const row = await scope.db
    .selectFrom('kb_articles')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('id', '=', articleId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return toKbArticle(row);
}

/**
 * Creates an article; audited. An explicit slug already used in the workspace is a 422 on
 * `slug`; a slug derived from the title gets a numeric suffix instead. A published article is
 * indexed for every agent of the workspace in the same transaction.
 */
export async function createKbArticle(
  scope: TenantScope & KbIndexing,
  input: TKbArticleCreate,
): Promise<TKbArticle> {
  return scope.db
    .transaction()
    .execute(async (trx) => {
      let slug: string;
      if (input.slug !== undefined) {
        if (await slugTaken(trx, scope.workspaceId, input.slug))
          throw validationError({ slug: [SLUG_TAKEN] });
        slug = input.slug;
      } else {
        slug = await freeSlug(
          trx,
          scope.workspaceId,
          slugify(input.title, { maxLength: 100, fallback: 'article' }),
        );
      }
      const published = input.is_published ?? false;
      const row = await trx
        .insertInto('kb_articles')
        .values({
          id: newId(),
          workspace_id: scope.workspaceId,
          title: input.title,
          slug,
          body_markdown: input.body_markdown,
          category: input.category ?? '',
          is_published: published,
          published_at: published ? scope.clock.now() : null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordAudit(trx, {
        workspaceId: scope.workspaceId,
        actor: scope.actor,
        action: 'kb_article.created',
        target: { type: 'kb_article', id: row.id },
        metadata: { slug: row.slug, is_published: row.is_published },
        requestId: scope.requestId,
      });
      await syncArticle(trx, scope, row.id);
      return toKbArticle(row);
    })
    .catch(rethrowSlugConflict);
}

/**
 * Applies a partial update; publishing stamps `published_at`, unpublishing clears it. Audited.
 * The agents' index follows in the same transaction (re-indexed only if the text or URL changed).
 */
export async function updateKbArticle(
  scope: TenantScope & KbIndexing,
  articleId: string,
  input: TKbArticleUpdate,
): Promise<TKbArticle> {
  return scope.db
    .transaction()
    .execute(async (trx) => {
      const current = await trx
        .selectFrom('kb_articles')
        .selectAll()
        .where('workspace_id', '=', scope.workspaceId)
        .where('id', '=', articleId)
        .forUpdate()
        .executeTakeFirst();
      if (!current) throw notFound();
      if (
        input.slug !== undefined &&
        input.slug !== current.slug &&
        (await slugTaken(trx, scope.workspaceId, input.slug))
      ) {
        throw validationError({ slug: [SLUG_TAKEN] });
      }
      const publishing = input.is_published === true && !current.is_published;
      const row = await trx
        .updateTable('kb_articles')
        .set({
          ...(input.title !== undefined && { title: input.title }),
          ...(input.slug !== undefined && { slug: input.slug }),
          ...(input.body_markdown !== undefined && { body_markdown: input.body_markdown }),
          ...(input.category !== undefined && { category: input.category }),
          ...(input.is_published !== undefined && { is_published: input.is_published }),
          ...(publishing && { published_at: scope.clock.now() }),
          ...(input.is_published === false && { published_at: null }),
          updated_at: scope.clock.now(),
        })
        .where('workspace_id', '=', scope.workspaceId)
        .where('id', '=', articleId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordAudit(trx, {
        workspaceId: scope.workspaceId,
        actor: scope.actor,
        action: 'kb_article.updated',
        target: { type: 'kb_article', id: articleId },
        metadata: { fields: Object.keys(input).sort() },
        requestId: scope.requestId,
      });
      await syncArticle(trx, scope, articleId);
      return toKbArticle(row);
    })
    .catch(rethrowSlugConflict);
}

/** Deletes an article and its documents in every agent's index; audited. */
export async function deleteKbArticle(scope: TenantScope & KbIndexing, articleId: string): Promise<void> {
  await scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('kb_articles')
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', articleId)
      .returning(['id', 'slug'])
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'kb_article.deleted',
      target: { type: 'kb_article', id: row.id },
      metadata: { slug: row.slug },
      requestId: scope.requestId,
    });
    await syncArticle(trx, scope, row.id);
  });
}

function syncArticle(trx: Queryable, scope: TenantScope & KbIndexing, articleId: string) {
  return syncArticleForAgents(trx, scope.queue, {
    workspaceId: scope.workspaceId,
    clock: scope.clock,
    articleId,
    publicBaseUrl: scope.publicBaseUrl,
    embeddingsKey: scope.embeddingsKey,
  });
}

async function slugTaken(db: Queryable, workspaceId: string, slug: string): Promise<boolean> {
  const row = await db
    .selectFrom('kb_articles')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row !== undefined;
}

async function freeSlug(db: Queryable, workspaceId: string, base: string): Promise<string> {
  const taken = await db
    .selectFrom('kb_articles')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', slugFamilyPattern(base))]))
    .execute();
  return firstFreeSlug(
    base,
    taken.map((row) => row.slug),
  );
}

function toKbArticle(row: KbArticleRow): TKbArticle {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    body_markdown: row.body_markdown,
    category: row.category,
    is_published: row.is_published,
    published_at: iso(row.published_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Two writers racing for one slug: the loser gets the same 422 as a checked conflict. */
function rethrowSlugConflict(error: unknown): never {
  if (isUniqueViolation(error)) throw validationError({ slug: [SLUG_TAKEN] });
  throw error;
}
