import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PluginResponse, SitePlugin } from '../plugin.js';
import { contractError, noRouteResponse, tooLargeResponse } from '../plugin-http.js';

// Fastify 5 (an optional peer dependency): only types are imported, so requiring the SDK never
// loads fastify. The plugin is encapsulated: its raw-body content-type parser and its error
// handler apply to its own routes only, never to the rest of the app.

/** A Fastify plugin function, for `app.register(...)`. */
export type FastifySitePlugin = (app: FastifyInstance) => Promise<void>;

/**
 * Mounts the plugin routes on Fastify: `await app.register(fastifyPlugin(plugin))`. Register it
 * without a `prefix` option (the routes already sit under `plugin.prefix`). POST only; bodies of
 * any content type arrive as raw bytes, capped at the plugin's `maxBodyBytes` (413 beyond).
 */
export function fastifyPlugin<TCart>(plugin: SitePlugin<TCart>): FastifySitePlugin {
  return async (app) => {
    // The signature covers the exact bytes: no JSON parsing before it is verified.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: plugin.maxBodyBytes },
      (_request, body, done) => {
        done(null, body);
      },
    );
    app.setErrorHandler((error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const answer =
        error.statusCode === 413 ? tooLargeResponse(plugin.maxBodyBytes) : contractError('internal_error');
      return send(reply, answer);
    });
    app.route({
      method: 'POST',
      url: `${plugin.prefix}*`,
      bodyLimit: plugin.maxBodyBytes,
      handler: async (request, reply) => {
        const body = Buffer.isBuffer(request.body) || typeof request.body === 'string' ? request.body : '';
        const answer = await plugin.handle({
          method: request.method,
          path: request.url,
          headers: request.headers,
          body,
        });
        return send(reply, answer ?? noRouteResponse());
      },
    });
  };
}

function send(reply: FastifyReply, answer: PluginResponse): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}
