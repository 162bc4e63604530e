import {
  dataEnvelope,
  listPage,
  ZKbArticle,
  ZKbArticleCreate,
  ZKbArticleUpdate,
  ZKbPreview,
  ZKbPreviewHtml,
  ZListQuery,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { KB_ARTICLE_BODY_LIMIT } from '../../http/body-limits.js';
import { renderMarkdown } from '../../kb/render-markdown.js';
import {
  createKbArticle,
  deleteKbArticle,
  getKbArticle,
  listKbArticles,
  updateKbArticle,
} from '../../services/knowledge/kb-articles.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';
import { pageBody, pageRequestOf } from './list-page.js';

const tags = ['admin: knowledge base'];

/**
 * `/api/v1/admin/kb/articles`: CRUD over the workspace's knowledge-base articles; writes keep
 * the agents' kb sources in step (published articles are indexed, others removed).
 */
export function kbRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const indexing = {
    queue: deps.queue,
    publicBaseUrl: deps.config.publicBaseUrl,
    embeddingsKey: deps.embeddings?.key ?? null,
  };
  return async (app) => {
    app.get(
      '/kb/articles',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'List knowledge-base articles (drafts included), oldest first, a page at a time',
          security: bearerSecurity,
          querystring: ZListQuery,
          response: { 200: listPage(ZKbArticle), ...adminErrorResponses },
        },
      },
      async (request) =>
        pageBody(await listKbArticles(adminScope(deps, request), pageRequestOf(deps, request.query))),
    );

    app.post(
      '/kb/articles',
      {
        config: { permission: 'knowledge.edit' },
        bodyLimit: KB_ARTICLE_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Create a knowledge-base article',
          security: bearerSecurity,
          body: ZKbArticleCreate,
          response: { 201: dataEnvelope(ZKbArticle), ...adminErrorResponses },
        },
      },
      async (request, reply) => {
        const article = await createKbArticle({ ...adminScope(deps, request), ...indexing }, request.body);
        return reply.status(201).send({ data: article });
      },
    );

    app.post(
      '/kb/preview',
      {
        config: { permission: 'knowledge.edit' },
        bodyLimit: KB_ARTICLE_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Render markdown as a published article would be (same sanitiser); nothing is stored',
          security: bearerSecurity,
          body: ZKbPreview,
          response: { 200: dataEnvelope(ZKbPreviewHtml), ...adminErrorResponses },
        },
      },
      async (request) => {
        // The scope proves the caller is an admin of a workspace; the preview reads no record.
        adminScope(deps, request);
        return { data: { html: renderMarkdown(request.body.markdown) } };
      },
    );

    app.get(
      '/kb/articles/:id',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'Read a knowledge-base article',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZKbArticle), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await getKbArticle(adminScope(deps, request), request.params.id),
      }),
    );

    app.patch(
      '/kb/articles/:id',
      {
        config: { permission: 'knowledge.edit' },
        bodyLimit: KB_ARTICLE_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Update a knowledge-base article (partial)',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZKbArticleUpdate,
          response: { 200: dataEnvelope(ZKbArticle), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await updateKbArticle(
          { ...adminScope(deps, request), ...indexing },
          request.params.id,
          request.body,
        ),
      }),
    );

    app.delete(
      '/kb/articles/:id',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags,
          summary: 'Delete a knowledge-base article',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 204: z.null().describe('Deleted'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        await deleteKbArticle({ ...adminScope(deps, request), ...indexing }, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
