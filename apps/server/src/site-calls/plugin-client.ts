import {
  PLUGIN_ROUTE_SCHEMAS,
  type PluginRouteTypes,
  SIGNATURE_HEADER,
  signRequest,
  type TCartCouponResult,
  type TLeadPushRequest,
  type TLeadPushResult,
  type TOrdersLookupResult,
  type TPluginRoute,
  ZPluginError,
} from '@service/contract';
import { z } from 'zod';
import type { Queryable } from '../db/queryable.js';
import { validationErrorFromZod } from '../errors/app-error.js';
import { type ConnectHook, type Resolve, safeFetch } from '../outbound/index.js';
import { findSiteTarget } from './site-target.js';

/** The longest the service waits for a site (contract: at most 5 s on order lookup). */
export const PLUGIN_CALL_TIMEOUT_MS = 5_000;
/** Cap on a plugin's answer: 1 MiB. */
export const PLUGIN_RESPONSE_MAX_BYTES = 1024 * 1024;
/** The User-Agent of service→site calls. */
export const SITE_CALL_USER_AGENT = 'ChatAgentService-SiteCall/1.0';
const MESSAGE_MAX = 500;

/** Why a site call did not give data. */
export type PluginFailureKind =
  | 'no_site' // the agent has no synced site with a live API token
  | 'refused' // the crawl-safety guard refused the URL (or a redirect)
  | 'timeout' // no full answer within the budget
  | 'unreachable' // connection or DNS failure
  | 'plugin_error' // the plugin answered its error envelope (e.g. 400 invalid_coupon)
  | 'bad_response'; // every other answer: wrong shape, not JSON, non-envelope error, too large

/** A failed site call; `status` and `code` are set when the site answered. */
export type PluginCallFailure = {
  ok: false;
  kind: PluginFailureKind;
  status?: number;
  code?: string;
  message: string;
};

/** The outcome of a site call: the validated `data` of the answer, or why there is none. */
export type PluginCallResult<T> = { ok: true; data: T } | PluginCallFailure;

/** Who is calling and how: everything of `callPlugin` except the route and its body. */
export type SiteCallOptions = {
  db: Queryable;
  workspaceId: string;
  agentId: string;
  /** SAFE_URL_ALLOW entries (tests and development); empty: only public hosts. */
  safeUrlAllow?: readonly string[] | undefined;
  /** Budget of the whole call (DNS, connect, answer); default 5 000 ms. */
  timeoutMs?: number | undefined;
  /** The clock the signature's timestamp comes from. */
  now?: (() => Date) | undefined;
  /** Injected resolver / connector (tests of the guard only). */
  resolve?: Resolve | undefined;
  connect?: ConnectHook | undefined;
};

/** Options of `callPlugin`: the caller, the route and its request body (validated here). */
export type CallPluginOptions<R extends TPluginRoute> = SiteCallOptions & {
  route: R;
  body: PluginRouteTypes[R]['input'];
};

/**
 * Calls a plugin route of the agent's site: finds the site (`findSiteTarget`), signs the JSON
 * body with the token's `shopper_signing_secret` (X-Service-Signature), POSTs it through the
 * crawl-safety guard (no redirects, 1 MiB cap, 5 s budget) and validates the answer against the
 * contract. Remote failures come back as `{ok: false, kind}`; only an invalid `body` (a
 * programming error on our side) throws, as a 422 AppError.
 */
export async function callPlugin<R extends TPluginRoute>(
  options: CallPluginOptions<R>,
): Promise<PluginCallResult<PluginRouteTypes[R]['result']>> {
  const schemas = PLUGIN_ROUTE_SCHEMAS[options.route];
  const request = schemas.request.safeParse(options.body);
  if (!request.success) throw validationErrorFromZod(request.error.issues);
  const target = await findSiteTarget(options.db, options);
  if (!target) return { ok: false, kind: 'no_site', message: 'The agent has no connected site.' };

  const body = JSON.stringify(request.data);
  const timestamp = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  // Concatenated, not URL-resolved: a plugin_base may carry `?rest_route=/service/v1/`.
  const url = `${target.pluginBase}${options.route}`;
  const fetched = await safeFetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': SITE_CALL_USER_AGENT,
      [SIGNATURE_HEADER]: signRequest(target.signingSecret, body, timestamp),
    },
    maxRedirects: 0,
    maxBytes: PLUGIN_RESPONSE_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? PLUGIN_CALL_TIMEOUT_MS,
    allow: options.safeUrlAllow ?? [],
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.connect ? { connect: options.connect } : {}),
  });
  if (!fetched.ok) return failureOf(fetched.reason);
  return readAnswer(options.route, fetched.status, fetched.body, schemas.result);
}

/** Asks the site for a verified shopper's recent orders (the caller must have verified the shopper). */
export function lookupOrders(
  options: SiteCallOptions & { wpUserId: number; limit?: number; orderNumber?: string },
): Promise<PluginCallResult<TOrdersLookupResult>> {
  const { wpUserId, limit, orderNumber, ...scope } = options;
  return callPlugin({
    ...scope,
    route: 'orders/lookup',
    body: {
      wp_user_id: wpUserId,
      ...(limit === undefined ? {} : { limit }),
      ...(orderNumber === undefined ? {} : { order_number: orderNumber }),
    },
  });
}

/** Pushes a captured lead into the site; the answer names the site's user for it. */
export function pushLead(
  options: SiteCallOptions & { lead: TLeadPushRequest },
): Promise<PluginCallResult<TLeadPushResult>> {
  const { lead, ...scope } = options;
  return callPlugin({ ...scope, route: 'leads', body: lead });
}

/** Stages a coupon for the conversation's next cart on the site (15 minutes). */
export function stageCoupon(
  options: SiteCallOptions & { code: string; conversationId: string },
): Promise<PluginCallResult<TCartCouponResult>> {
  const { code, conversationId, ...scope } = options;
  return callPlugin({ ...scope, route: 'cart/coupon', body: { code, conversation_id: conversationId } });
}

/** Whether a failed call may succeed later (worth a retry): timeouts, network trouble, 5xx. */
export function isRetryableFailure(failure: PluginCallFailure): boolean {
  if (failure.kind === 'timeout' || failure.kind === 'unreachable') return true;
  return failure.status !== undefined && (failure.status >= 500 || failure.status === 429);
}

/** Maps a safeFetch refusal or failure to a kind; the guard's reason is kept verbatim. */
function failureOf(reason: string): PluginCallFailure {
  if (reason.includes('timed out')) return { ok: false, kind: 'timeout', message: reason };
  if (reason.includes('larger than')) return { ok: false, kind: 'bad_response', message: reason };
  if (reason.startsWith('refused:')) return { ok: false, kind: 'refused', message: reason };
  return { ok: false, kind: 'unreachable', message: reason };
}

// WordPress's own REST errors (unknown route, its permission callback) are `{code, message, data}`.
const ZWordPressError = z.object({ code: z.string(), message: z.string() });

/** Reads the site's answer: 2xx `{data}` per the route's schema, otherwise an error envelope. */
function readAnswer<T>(
  route: TPluginRoute,
  status: number,
  raw: Buffer,
  result: z.ZodType<T>,
): PluginCallResult<T> {
  const json = parseJson(raw);
  if (status >= 200 && status <= 299) {
    const parsed = z.object({ data: result }).safeParse(json);
    if (parsed.success) return { ok: true, data: parsed.data.data };
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : 'not JSON';
    return {
      ok: false,
      kind: 'bad_response',
      status,
      message: clip(`the site's ${route} answer does not match the contract (${where})`),
    };
  }
  const envelope = ZPluginError.safeParse(json);
  const error = envelope.success ? envelope.data.error : ZWordPressError.safeParse(json).data;
  if (error) {
    return { ok: false, kind: 'plugin_error', status, code: clip(error.code), message: clip(error.message) };
  }
  return { ok: false, kind: 'bad_response', status, message: `the site answered HTTP ${status} to ${route}` };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Site-supplied text is stored and logged: keep it short. */
function clip(text: string): string {
  return text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX)}…` : text;
}
