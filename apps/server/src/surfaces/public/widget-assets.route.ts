import { ZServiceError } from '@service/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors/app-error.js';
import {
  WIDGET_BUNDLE_PATH,
  WIDGET_LOCALES_PATH,
  type WidgetAsset,
  type WidgetAssets,
} from '../../widget-assets/widget-manifest.js';

const tags = ['public: widget'];

/** Whether the request's If-None-Match names this strong ETag (or `*`). */
function isFresh(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (typeof header !== 'string') return false;
  return header.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value === etag;
  });
}

function sendAsset(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: WidgetAsset,
  type: string,
  cacheControl: string,
): FastifyReply {
  const etag = `"${asset.hash}"`;
  reply
    .header('etag', etag)
    .header('cache-control', cacheControl)
    .header('access-control-allow-origin', '*')
    .header('cross-origin-resource-policy', 'cross-origin');
  if (isFresh(request, etag)) return reply.code(304).send();
  return reply.type(type).send(asset.body);
}

/**
 * `GET /widget/widget.js` (contract "Versioning"): the latest hashed bundle named in the build
 * manifest, at a stable path; `no-cache, must-revalidate` with a strong ETag (304 on a match),
 * so a new build reaches every page while unchanged bytes cost one round trip. `?v=` only busts
 * caches. `GET /widget/locales/{tag}.json`: the UI strings of one locale.
 */
export function widgetAssetRoutes(assets: WidgetAssets): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      WIDGET_BUNDLE_PATH,
      {
        schema: {
          tags,
          summary: 'The widget bundle (stable URL; ?v=<hash> busts caches)',
          querystring: z.object({ v: z.string().max(64).optional() }),
          produces: ['text/javascript'],
          response: {
            200: z.string().describe('JavaScript'),
            304: z.null().describe('Not modified (If-None-Match matched the ETag)'),
            503: ZServiceError.describe('The widget has not been built'),
          },
        },
      },
      async (request, reply) => {
        const bundle = await assets.bundle();
        if (!bundle)
          throw new AppError('not_ready', { message: 'The widget has not been built (npm run build).' });
        return sendAsset(
          request,
          reply,
          bundle,
          'text/javascript; charset=utf-8',
          'no-cache, must-revalidate',
        );
      },
    );

    app.get(
      `${WIDGET_LOCALES_PATH}/:file`,
      {
        schema: {
          tags,
          summary: "One locale's widget UI strings",
          params: z.object({ file: z.string().regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*\.json$/) }),
          querystring: z.object({ v: z.string().max(64).optional() }),
          response: {
            200: z.record(z.string(), z.string()),
            304: z.null(),
            404: ZServiceError,
            422: ZServiceError,
          },
        },
      },
      async (request, reply) => {
        const locale = await assets.locale(request.params.file.replace(/\.json$/, ''));
        if (!locale) throw new AppError('not_found');
        return sendAsset(
          request,
          reply,
          locale,
          'application/json; charset=utf-8',
          'public, max-age=300, must-revalidate',
        );
      },
    );
  };
}
