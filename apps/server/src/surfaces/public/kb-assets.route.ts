import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { KB_STYLESHEET_PATH } from '../../kb/kb-paths.js';
import { KB_CSS, KB_CSS_HASH } from '../../kb/kb-style.js';

/** A 304 carries no body (the untyped reply: the route's schema would serialise `null`). */
function notModified(reply: FastifyReply): FastifyReply {
  return reply.code(304).send();
}

/**
 * `GET /kb-assets/kb.css`: the public pages' stylesheet. With `?v=` equal to its hash (as the
 * pages link it) it is cached for a year; otherwise revalidated by its strong ETag.
 */
export function kbAssetRoutes(): FastifyPluginAsyncZod {
  const etag = `"${KB_CSS_HASH}"`;
  return async (app) => {
    app.get(
      KB_STYLESHEET_PATH,
      {
        schema: {
          tags: ['public: knowledge base'],
          summary: "The public pages' stylesheet (KB and demo)",
          querystring: z.object({ v: z.string().max(64).optional() }),
          produces: ['text/css'],
          response: { 200: z.string().describe('CSS'), 304: z.null().describe('Not modified') },
        },
      },
      async (request, reply) => {
        reply
          .header('etag', etag)
          .header(
            'cache-control',
            request.query.v === KB_CSS_HASH ? 'public, max-age=31536000, immutable' : 'no-cache',
          );
        if (request.headers['if-none-match'] === etag) return notModified(reply);
        return reply.type('text/css; charset=utf-8').send(KB_CSS);
      },
    );
  };
}
