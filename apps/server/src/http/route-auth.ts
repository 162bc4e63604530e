import type { FastifyRequest } from 'fastify';

/**
 * How a route is authenticated. Absent: by its surface's auth hook (every route of a surface
 * is, unless it says otherwise). `'none'`: the hook skips it, and the route says why where it
 * is declared (signing in, a widget's init, a CORS preflight).
 */
export type RouteAuth = 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `'none'`: the surface's auth hook skips this route (see {@link RouteAuth}). */
    auth?: RouteAuth;
  }
}

/** Whether the request's route runs without its surface's authentication (`config.auth: 'none'`). */
export function skipsAuth(request: FastifyRequest): boolean {
  return request.routeOptions.config.auth === 'none';
}

/**
 * The caller an auth hook set on the request. A route that reads one without the hook having
 * set it (registered outside its surface's authenticated scope, marked `auth: 'none'`, or a
 * hook missing) is a wiring bug, not a client error: a plain error, so the error handler logs
 * it at error level and answers 500 `internal_error`, never 401.
 */
export function authenticatedCaller<T>(caller: T | null | undefined, surface: string): T {
  if (caller === null || caller === undefined) {
    throw new Error(`${surface} route ran without its auth hook setting the caller (a wiring bug)`);
  }
  return caller;
}
