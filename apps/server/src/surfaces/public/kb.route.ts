import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { toAppError } from '../../http/error-handler.js';
import { articlePage, indexPage, KB_PATH, notFoundPage } from '../../kb/pages.js';
import { renderMarkdown } from '../../kb/render-markdown.js';
import { findPublishedKbArticle, listPublishedKbArticles } from '../../services/knowledge/kb-articles.js';

const tags = ['public: knowledge base'];
// Lenient on purpose, so every slug that is not a published article gets the same HTML 404 page.
const ZSlug = z.string().min(1).max(200);
const ZHtml = z.string().describe('An HTML page');

function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(html);
}

/**
 * `/kb/{workspace}` and `/kb/{workspace}/{article}`: the public knowledge base, as HTML.
 * Unpublished, unknown and other-workspace articles answer the same 404 page. The browser
 * security headers come from the global helmet plugin.
 */
export function publicKbRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    // A slug with text no record can hold (NUL, a lone surrogate) is refused before the handler
    // as a 404: here it gets the same HTML page as every other unknown slug. Other errors go on up.
    app.setErrorHandler((error, _request, reply) => {
      if (toAppError(error).code !== 'not_found') throw error;
      return sendHtml(reply, 404, notFoundPage());
    });
    app.get(
      `${KB_PATH}/:workspaceSlug`,
      {
        schema: {
          tags,
          summary: "Index of a workspace's published knowledge-base articles (HTML)",
          params: z.object({ workspaceSlug: ZSlug }),
          produces: ['text/html'],
          response: { 200: ZHtml, 404: ZHtml.describe('Not-found page') },
        },
      },
      async (request, reply) => {
        const found = await listPublishedKbArticles(deps.database.db, request.params.workspaceSlug);
        if (!found) return sendHtml(reply, 404, notFoundPage());
        return sendHtml(
          reply,
          200,
          indexPage(request.params.workspaceSlug, found.workspaceName, found.articles),
        );
      },
    );

    app.get(
      `${KB_PATH}/:workspaceSlug/:articleSlug`,
      {
        schema: {
          tags,
          summary: 'A published knowledge-base article rendered from markdown (HTML)',
          params: z.object({ workspaceSlug: ZSlug, articleSlug: ZSlug }),
          produces: ['text/html'],
          response: { 200: ZHtml, 404: ZHtml.describe('Not-found page') },
        },
      },
      async (request, reply) => {
        const { workspaceSlug, articleSlug } = request.params;
        const article = await findPublishedKbArticle(deps.database.db, workspaceSlug, articleSlug);
        if (!article) return sendHtml(reply, 404, notFoundPage());
        return sendHtml(
          reply,
          200,
          articlePage(
            workspaceSlug,
            article.workspaceName,
            article.title,
            renderMarkdown(article.bodyMarkdown),
          ),
        );
      },
    );
  };
}
