import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { widgetTokenKey } from '../../security/widget-token.js';
import { conversationRoutes } from './conversation.route.js';
import { couponRoutes } from './coupon.route.js';
import { initRoutes } from './init.route.js';
import { messageRoutes } from './messages.route.js';
import { applyCors, authenticateWidget } from './widget-auth.js';

/** How long a browser may cache a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = 600;

/** What every widget route file gets. */
export type WidgetRouteDeps = AppDeps & { limits: RateLimits; tokenKey: Uint8Array; clock: () => Date };

/**
 * The widget surface (contract section C): `/v1/widget/*` and `/api/v1/widget/coupon/apply`.
 * Token + Origin on every route but init, limits per the contract, CORS for allowed origins
 * only, and none of the web security headers (the widget runs on other sites).
 */
export function widgetSurface(deps: AppDeps, limits: RateLimits) {
  return async (app: FastifyInstance): Promise<void> => {
    const tokenKey = widgetTokenKey({
      widgetTokenSecret: deps.config.widgetTokenSecret,
      appKey: deps.config.appKey,
    });
    const clock = deps.now ?? (() => new Date());
    const routeDeps: WidgetRouteDeps = { ...deps, limits, tokenKey, clock };
    app.decorateRequest('widgetCaller', null);
    app.decorateRequest('widgetOriginAllowed', false);
    app.addHook('onRoute', (route) => {
      route.config = { ...route.config, helmet: { skipRoute: true } };
    });
    app.addHook('onRequest', async (request) => {
      if (request.method === 'OPTIONS' || request.routeOptions.url === '/v1/widget/init') return;
      request.widgetCaller = await authenticateWidget({
        db: deps.database.db,
        key: tokenKey,
        limits,
        request,
        now: clock(),
      });
    });
    app.addHook('onSend', async (request, reply) => {
      if (request.method !== 'OPTIONS') applyCors(request, reply);
    });
    // Preflights carry no body and no token, so the agent is unknown here; every well-formed origin
    // may ask, and the real request is then held to the agent's policy (403 and no CORS otherwise).
    for (const url of ['/v1/widget/*', '/api/v1/widget/*']) {
      app.options(url, { schema: { hide: true } }, async (request, reply) => {
        const origin = request.headers.origin;
        if (typeof origin === 'string' && origin !== '') {
          reply.header('access-control-allow-origin', origin);
          reply.header('access-control-allow-methods', 'GET, POST, DELETE');
          reply.header('access-control-allow-headers', 'Authorization, Content-Type');
          reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE));
        }
        reply.header('vary', 'Origin, Access-Control-Request-Headers');
        return reply.code(204).send();
      });
    }
    await app.register(initRoutes(routeDeps));
    await app.register(messageRoutes(routeDeps));
    await app.register(conversationRoutes(routeDeps));
    await app.register(couponRoutes(routeDeps));
  };
}
