import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ConsoleFile, ConsoleFiles } from '../../console-assets/console-files.js';
import { AppError } from '../../errors/app-error.js';

const tags = ['console'];
/** Hashed names never change content: cached for a year, never revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and the unhashed files: always revalidated, so a new build reaches every browser. */
const REVALIDATE = 'no-cache';

/** What /admin/ answers while the console has not been built (a clear page, not a crash). */
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console not built</title></head>
<body>
<h1>The admin console has not been built</h1>
<p>Build it with <code>npm run build</code> (or <code>npm run build -w apps/admin</code>), then reload this page.
The API under <code>/api/v1/admin</code> works without it.</p>
</body>
</html>
`;

function sendFile(reply: FastifyReply, file: ConsoleFile, cacheControl: string): FastifyReply {
  return reply.header('cache-control', cacheControl).type(file.type).send(file.body);
}

/**
 * The console's files, relative to the console prefix: `/` and every path that is not a file
 * (a deep link such as `/admin/agents`) answer index.html (`no-cache`), so the single-page app
 * routes in the browser; `/assets/<hashed name>` is immutable; an unknown asset is a 404.
 */
export function consoleRoutes(files: ConsoleFiles): FastifyPluginAsyncZod {
  const sendIndex = async (reply: FastifyReply) => {
    const index = await files.index();
    if (!index)
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(NOT_BUILT_PAGE);
    return reply.header('cache-control', REVALIDATE).type('text/html; charset=utf-8').send(index);
  };
  return async (app) => {
    app.get(
      '/',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'The admin console (HTML)',
          produces: ['text/html'],
          response: { 200: z.string(), 503: z.string() },
        },
      },
      async (_request, reply) => sendIndex(reply),
    );

    app.get(
      '/*',
      {
        config: { auth: 'none' },
        schema: {
          hide: true,
          tags,
          summary: "The console's files; any other path is a console page (index.html)",
          params: z.object({ '*': z.string().max(500) }),
          response: { 200: z.any(), 404: z.any(), 503: z.string() },
        },
      },
      async (request, reply) => {
        const rest = request.params['*'];
        if (rest.startsWith('assets/')) {
          const file = await files.asset(rest.slice('assets/'.length));
          if (!file) throw new AppError('not_found');
          return sendFile(reply, file, IMMUTABLE);
        }
        if (!rest.includes('/') && rest.includes('.')) {
          const file = await files.publicFile(rest);
          if (file) return sendFile(reply, file, REVALIDATE);
        }
        return sendIndex(reply);
      },
    );
  };
}

/** Where `/` sends a browser, or `null` for the status page. */
export type RootTarget = () => Promise<string | null>;

/** What `/` answers when there is neither a built console nor a demo: what runs, where to go. */
const STATUS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chat agent service</title></head>
<body>
<h1>The chat agent service is running</h1>
<p>The admin console has not been built (<code>npm run build</code>) and there is no demo agent.
The admin API is under <code>/api/v1/admin</code>; <code>/healthz</code> reports the service's health.</p>
</body>
</html>
`;

/**
 * `GET /`: the service's root sends a browser to the console when it is built, else to `/demo`
 * when the demo agent exists, else answers a small status page.
 */
export function rootRedirectRoute(target: RootTarget): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'Redirects to the admin console (or /demo before it is built), else a status page',
          response: { 200: z.string().describe('Status page (HTML)'), 302: z.null() },
        },
      },
      async (_request, reply) => {
        const location = await target();
        if (location) return reply.redirect(location, 302);
        return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(STATUS_PAGE);
      },
    );
  };
}
