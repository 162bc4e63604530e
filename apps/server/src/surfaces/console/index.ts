import type { FastifyInstance } from 'fastify';
import type { ConsoleFiles } from '../../console-assets/console-files.js';
import { consoleRoutes, rootRedirectRoute } from './console.route.js';

/** Where the admin console (the built single-page app) is served. */
export const CONSOLE_PREFIX = '/admin';

/** Where the root redirect is mounted: the service's own root. */
export const CONSOLE_ROOT_PREFIX = '';

/**
 * The console's policy: its own files only, no inline script or style, never framed, and the
 * API on the same origin. It replaces the service-wide CSP (which allows inline styles for the
 * API docs page) on every console response, error pages included.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The console surface, mounted at {@link CONSOLE_PREFIX}: static files, no auth (the API it calls has its own). */
export function consoleSurface(files: ConsoleFiles) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', CONSOLE_CSP);
      reply.header('x-frame-options', 'DENY');
    });
    await app.register(consoleRoutes(files));
  };
}

/**
 * `/` → `/admin/` when the console is built, else `/demo` when `hasDemo()`, else a status page;
 * mounted at {@link CONSOLE_ROOT_PREFIX}.
 */
export function consoleRootSurface(files: ConsoleFiles, hasDemo: () => Promise<boolean>) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(
      rootRedirectRoute(async () => {
        if (await files.index()) return `${CONSOLE_PREFIX}/`;
        return (await hasDemo()) ? '/demo' : null;
      }),
    );
  };
}
