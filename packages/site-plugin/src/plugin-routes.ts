import {
  COMMERCE_INACTIVE_NOTE,
  PLUGIN_ROUTE_SCHEMAS,
  type PluginRouteTypes,
  type TCartCouponResult,
  type TOrder,
  type TOrdersLookupResult,
  type TPluginRoute,
  ZLeadPushResult,
} from '@service/contract';
import { stageCoupon } from './coupon-staging.js';
import { toOrderRecord } from './order-record.js';
import { contractError, dataResponse, errorResponse, type PluginResponse } from './plugin-http.js';
import type { KeyValueStore, SiteStore } from './site-store.js';

// The three routes of contract section B, after the signature is verified: parse the body with
// the contract's schema, call the site's store, shape the answer. A store that throws is turned
// into a generic 500 by the caller (plugin.ts).

/** What the route handlers work with. */
export type RouteContext<TCart> = { store: SiteStore<TCart>; staging: KeyValueStore };

/** Thrown when a store hands back something unusable; answered as a generic 500. */
export class StoreContractError extends Error {
  override name = 'StoreContractError';
}

type Issue = { path: readonly PropertyKey[]; message: string; code: string; keys?: readonly string[] };

/** 400 `rest_invalid_param` naming the fields at fault, as WordPress answers a bad parameter. */
export function invalidParamResponse(issues: readonly Issue[]): PluginResponse {
  const named = issues.slice(0, 5).map((issue) => {
    const field =
      issue.keys && issue.keys.length > 0
        ? issue.keys.join(', ')
        : issue.path.length > 0
          ? issue.path.map(String).join('.')
          : '(body)';
    return `${field} (${issue.message})`;
  });
  return errorResponse(400, 'rest_invalid_param', `Invalid parameter(s): ${named.join('; ')}.`);
}

/** Parses a route's body with its contract schema: the request, or the 400 answer. */
function parseRequest<R extends TPluginRoute>(
  route: R,
  body: unknown,
): { request: PluginRouteTypes[R]['request'] } | { response: PluginResponse } {
  const parsed = PLUGIN_ROUTE_SCHEMAS[route].request.safeParse(body);
  if (parsed.success) return { request: parsed.data };
  return { response: invalidParamResponse(parsed.error.issues) };
}

async function ordersLookup<TCart>(context: RouteContext<TCart>, body: unknown): Promise<PluginResponse> {
  const parsed = parseRequest('orders/lookup', body);
  if ('response' in parsed) return parsed.response;
  const { wp_user_id: wpUserId, limit, order_number: orderNumber } = parsed.request;
  if (!(await context.store.isCommerceActive())) {
    const inactive: TOrdersLookupResult = { orders: [], count: 0, note: COMMERCE_INACTIVE_NOTE };
    return dataResponse(inactive);
  }
  const query = orderNumber === undefined ? { wpUserId, limit } : { wpUserId, limit, orderNumber };
  const found = await context.store.findOrders(query);
  if (!Array.isArray(found)) throw new StoreContractError('findOrders did not return an array.');
  // Defend against the store: only valid records, only the asked number (visitors type order
  // numbers in any case: "nw-1001"), at most `limit`.
  const wanted = orderNumber?.toLowerCase();
  const orders: TOrder[] = [];
  for (const order of found) {
    if (orders.length >= limit) break;
    const record = toOrderRecord(order);
    if (record && (wanted === undefined || record.number.toLowerCase() === wanted)) orders.push(record);
  }
  const result: TOrdersLookupResult = { orders, count: orders.length };
  return dataResponse(result);
}

async function leads<TCart>(context: RouteContext<TCart>, body: unknown): Promise<PluginResponse> {
  const parsed = parseRequest('leads', body);
  if ('response' in parsed) return parsed.response;
  const lead = parsed.request;
  const userId: unknown = await context.store.upsertCustomer({
    email: lead.email,
    name: lead.name,
    phone: lead.phone,
    conversationId: lead.conversation_id,
    serviceLeadId: lead.service_lead_id,
  });
  const result = ZLeadPushResult.safeParse({ user_id: userId });
  if (!result.success) throw new StoreContractError('upsertCustomer did not return a user id.');
  return dataResponse(result.data);
}

async function cartCoupon<TCart>(context: RouteContext<TCart>, body: unknown): Promise<PluginResponse> {
  const parsed = parseRequest('cart/coupon', body);
  if ('response' in parsed) return parsed.response;
  const { code, conversation_id: conversationId } = parsed.request;
  if (!(await context.store.isCommerceActive())) return contractError('commerce_inactive');
  if (!(await context.store.couponExists(code))) return contractError('invalid_coupon');
  await stageCoupon(context.staging, conversationId, code);
  const result: TCartCouponResult = {
    applied: false,
    pending: true,
    message: `Coupon ${code} will be applied to your next cart.`,
  };
  return dataResponse(result);
}

/** The handler of each plugin route, given the verified request's decoded JSON body. */
export const ROUTE_HANDLERS: {
  [R in TPluginRoute]: <TCart>(context: RouteContext<TCart>, body: unknown) => Promise<PluginResponse>;
} = {
  'orders/lookup': ordersLookup,
  leads,
  'cart/coupon': cartCoupon,
};
