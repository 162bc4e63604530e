import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { skipsAuth } from '../../http/route-auth.js';
import { widgetTokenKey } from '../../security/widget-token.js';
import type { HandoffNotify } from '../../services/conversations/handoff-notify.js';
import { conversationRoutes } from './conversation.route.js';
import { couponRoutes } from './coupon.route.js';
import { initRoutes } from './init.route.js';
import { messageRoutes } from './messages.route.js';
import { applyCors, authenticateWidget } from './widget-auth.js';

/** How long a browser may cache a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = 600;

/** Where the widget's own API is mounted (contract section C): init, messages, the conversation. */
export const WIDGET_PREFIX = '/v1/widget';

/** Where the widget's calls into the shop's API namespace are mounted: applying a coupon. */
export const WIDGET_SHOP_PREFIX = '/api/v1/widget';

/** What every widget route file gets. */
export type WidgetRouteDeps = AppDeps & { limits: RateLimits; tokenKey: Uint8Array; handoff: HandoffNotify };

/** How a handoff request tells the team: links on PUBLIC_BASE_URL (never the request's host). */
export function handoffNotifyOf(deps: AppDeps): HandoffNotify {
  return {
    queue: deps.queue,
    baseUrl: deps.config.publicBaseUrl ?? `http://localhost:${deps.config.port}`,
    mailAfterSeconds: deps.config.handoffMailAfterSeconds,
  };
}

/**
 * The widget surface (contract section C), mounted at {@link WIDGET_PREFIX}: token + Origin on
 * every route but init (`auth: 'none'`), limits per the contract, CORS for allowed origins only,
 * and none of the web security headers (the widget runs on other sites).
 */
export function widgetSurface(deps: AppDeps, limits: RateLimits) {
  return async (app: FastifyInstance): Promise<void> => {
    const routeDeps = widgetScope(app, deps, limits);
    await app.register(initRoutes(routeDeps));
    await app.register(messageRoutes(routeDeps));
    await app.register(conversationRoutes(routeDeps));
  };
}

/** The widget's coupon route, mounted at {@link WIDGET_SHOP_PREFIX} under the same rules as {@link widgetSurface}. */
export function widgetShopSurface(deps: AppDeps, limits: RateLimits) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(couponRoutes(widgetScope(app, deps, limits)));
  };
}

/**
 * What every widget mount shares: the request decorations, the auth hook (skipped by routes that
 * say `auth: 'none'`), CORS on send, and the preflight answer for any path under the mount.
 */
function widgetScope(app: FastifyInstance, deps: AppDeps, limits: RateLimits): WidgetRouteDeps {
  const tokenKey = widgetTokenKey({
    widgetTokenSecret: deps.config.widgetTokenSecret,
    appKey: deps.config.appKey,
  });
  app.decorateRequest('widgetCaller', null);
  app.decorateRequest('widgetOriginAllowed', false);
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, helmet: { skipRoute: true } };
  });
  app.addHook('onRequest', async (request) => {
    if (skipsAuth(request)) return;
    request.widgetCaller = await authenticateWidget({
      db: deps.database.db,
      key: tokenKey,
      limits,
      request,
      now: deps.clock.now(),
    });
  });
  app.addHook('onSend', async (request, reply) => {
    if (request.method !== 'OPTIONS') applyCors(request, reply);
  });
  // Preflights carry no body and no token, so the agent is unknown here; every well-formed origin
  // may ask, and the real request is then held to the agent's policy (403 and no CORS otherwise).
  app.options('/*', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
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
  return { ...deps, limits, tokenKey, handoff: handoffNotifyOf(deps) };
}
