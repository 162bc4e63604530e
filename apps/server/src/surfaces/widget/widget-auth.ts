import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import { readBearer } from '../../http/bearer.js';
import type { RateLimits, WidgetLimitName } from '../../http/rate-limit.js';
import { authenticatedCaller } from '../../http/route-auth.js';
import { verifyWidgetToken, type WidgetTokenKey } from '../../security/widget-token.js';
import {
  agentAllowsOrigin,
  resolveWidgetCaller,
  type WidgetCaller,
} from '../../services/widget/widget-caller.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller of a widget route (null on routes with `auth: 'none'`: init, preflights). */
    widgetCaller: WidgetCaller | null;
    /** Set once the request's Origin passed the agent's policy: only then is CORS granted. */
    widgetOriginAllowed: boolean;
  }
  interface FastifyContextConfig {
    /** @fastify/helmet's per-route switch: widget answers carry no web security headers. */
    helmet?: { skipRoute?: boolean };
    /** Widget routes that need a token name the limit they count against; init has none. */
    widgetLimit?: WidgetLimitName;
  }
}

/**
 * Longest widget token accepted: a token of a conversation not stored yet carries its page
 * fields (at most 1024 + 1024 + 200 characters; about 1 KB for a typical page).
 */
const MAX_WIDGET_TOKEN = 12_288;

/** The request's Origin header, if it sent exactly one. */
export function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  return typeof origin === 'string' ? origin : undefined;
}

/**
 * Authenticates a widget route, in this order: the widget token (any failure → 401 without
 * detail; the token must still name a conversation of its visitor that is not closed, and a
 * published agent; a conversation init did not store yet is stored now, once the Origin
 * passed), then the Origin against that agent's policy (403), then the route's limit keyed by
 * the token's visitor (429 with Retry-After). Nothing in the request selects the workspace.
 */
export async function authenticateWidget(options: {
  db: Kysely<DB>;
  key: WidgetTokenKey;
  limits: RateLimits;
  request: FastifyRequest;
  now: Date;
}): Promise<WidgetCaller> {
  const { request } = options;
  const token = readBearer(request.headers.authorization, MAX_WIDGET_TOKEN);
  const claims = token ? await verifyWidgetToken(options.key, token, options.now) : null;
  const origin = requestOrigin(request);
  const caller = claims ? await resolveWidgetCaller(options.db, claims, options.now, { origin }) : null;
  if (!caller) throw new AppError('unauthenticated');
  if (!agentAllowsOrigin(caller.agent, origin)) throw new AppError('forbidden');
  request.widgetOriginAllowed = true;
  const limit = request.routeOptions.config.widgetLimit;
  if (limit) await options.limits.widget[limit].consume(caller.claims.visitor_id);
  return caller;
}

/** The widget caller of a request whose auth hook ran; a 500 (wiring bug) otherwise. */
export function widgetCaller(request: FastifyRequest): WidgetCaller {
  return authenticatedCaller(request.widgetCaller, 'A widget');
}

/** Headers every widget answer to an allowed origin carries (also used before an SSE hijack). */
export function corsHeaders(request: FastifyRequest): Record<string, string> {
  const origin = requestOrigin(request);
  if (!origin) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'Retry-After, X-Request-Id',
    vary: 'Origin',
  };
}

/**
 * CORS for a finished widget answer: the request's exact Origin once it passed the agent's
 * policy, never `*` and never credentials. A 401 also gets it, so the widget can tell an
 * expired token (and re-init) from a network failure; a 401 says nothing else.
 */
export function applyCors(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('vary', 'Origin');
  if (!request.widgetOriginAllowed && reply.statusCode !== 401) return;
  for (const [name, value] of Object.entries(corsHeaders(request))) reply.header(name, value);
}
