import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { toAppError } from '../../http/error-handler.js';
import { KB_PATH } from '../../kb/kb-paths.js';
import { articlePage, homePage, type KbPageContext, notFoundPage, searchPage } from '../../kb/pages.js';
import { renderMarkdown } from '../../kb/render-markdown.js';
import { sitemapXml } from '../../kb/sitemap.js';
import { themeCss } from '../../kb/theme-css.js';
import {
  findKbSite,
  findKbSiteArticle,
  listKbSiteArticles,
  searchKbSiteArticles,
} from '../../services/knowledge/kb-public.js';
import type { WidgetAssets } from '../../widget-assets/widget-manifest.js';
import { allowPageImages, publicBaseOf, usePublicPagePolicy, widgetLoaderSrc } from './page-policy.js';

const tags = ['public: knowledge base'];
// Lenient on purpose, so every slug that is not a published article gets the same HTML 404 page.
const ZSlug = z.string().min(1).max(200);
const ZHtml = z.string().describe('An HTML page');
/** Longest search query used; a longer one is cut, not refused (it comes from a text box). */
const QUERY_MAX = 200;

function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(html);
}

/**
 * `/kb/{workspace}` (home, or search results with `?q=`), `/kb/{workspace}/{article}`, its
 * sitemap and colour stylesheet: the public knowledge base. Unpublished, unknown and
 * other-workspace articles answer the same 404 page. The pages' policy has no `unsafe-inline`.
 */
export function publicKbRoutes(deps: AppDeps, assets: WidgetAssets): FastifyPluginAsyncZod {
  const db = deps.database.db;
  return async (app) => {
    usePublicPagePolicy(app);
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
          summary: "A workspace's knowledge-base home by category, or search results for ?q= (HTML)",
          params: z.object({ workspaceSlug: ZSlug }),
          querystring: z.object({ q: z.string().max(2000).optional() }),
          produces: ['text/html'],
          response: { 200: ZHtml, 404: ZHtml.describe('Not-found page') },
        },
      },
      async (request, reply) => {
        const site = await findKbSite(db, request.params.workspaceSlug);
        if (!site) return sendHtml(reply, 404, notFoundPage());
        allowPageImages(reply, site.widgetOrigins);
        const context: KbPageContext = {
          site,
          baseUrl: publicBaseOf(deps, request),
          widgetSrc: await widgetLoaderSrc(assets),
        };
        const query = (request.query.q ?? '').trim().slice(0, QUERY_MAX);
        if (query !== '') {
          const results = await searchKbSiteArticles(db, site.workspaceId, query);
          return sendHtml(reply, 200, searchPage(context, query, results));
        }
        return sendHtml(reply, 200, homePage(context, await listKbSiteArticles(db, site.workspaceId)));
      },
    );

    app.get(
      `${KB_PATH}/:workspaceSlug/sitemap.xml`,
      {
        schema: {
          tags,
          summary: "The knowledge base's sitemap: home and published articles (XML)",
          params: z.object({ workspaceSlug: ZSlug }),
          produces: ['application/xml'],
          response: { 200: z.string().describe('sitemaps.org XML'), 404: ZHtml.describe('Not-found page') },
        },
      },
      async (request, reply) => {
        const site = await findKbSite(db, request.params.workspaceSlug);
        if (!site) return sendHtml(reply, 404, notFoundPage());
        const articles = await listKbSiteArticles(db, site.workspaceId);
        return reply
          .type('application/xml; charset=utf-8')
          .send(sitemapXml(publicBaseOf(deps, request), site.slug, articles));
      },
    );

    app.get(
      `${KB_PATH}/:workspaceSlug/theme.css`,
      {
        schema: {
          tags,
          summary: "The knowledge base's colour (CSS custom properties)",
          params: z.object({ workspaceSlug: ZSlug }),
          querystring: z.object({ v: z.string().max(64).optional() }),
          produces: ['text/css'],
          response: { 200: z.string().describe('CSS'), 404: ZHtml.describe('Not-found page') },
        },
      },
      async (request, reply) => {
        const site = await findKbSite(db, request.params.workspaceSlug);
        if (!site?.color) return sendHtml(reply, 404, notFoundPage());
        return reply
          .header('cache-control', 'public, max-age=300')
          .type('text/css; charset=utf-8')
          .send(themeCss(site.color));
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
        const site = await findKbSite(db, workspaceSlug);
        const article = site && (await findKbSiteArticle(db, site.workspaceId, articleSlug));
        if (!site || !article) return sendHtml(reply, 404, notFoundPage());
        allowPageImages(reply, site.widgetOrigins);
        const all = await listKbSiteArticles(db, site.workspaceId);
        const at = all.findIndex((listed) => listed.slug === article.slug);
        const context: KbPageContext = {
          site,
          baseUrl: publicBaseOf(deps, request),
          widgetSrc: await widgetLoaderSrc(assets),
        };
        return sendHtml(
          reply,
          200,
          articlePage(context, article, renderMarkdown(article.bodyMarkdown), {
            previous: at > 0 ? (all[at - 1] ?? null) : null,
            next: at >= 0 ? (all[at + 1] ?? null) : null,
          }),
        );
      },
    );
  };
}
