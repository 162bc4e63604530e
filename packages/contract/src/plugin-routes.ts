import { z } from 'zod';
import { storable, zText } from './text.js';

// Section B of the contract: the routes the service calls on a site, under {plugin_base}.
// Requests are strict (the service sends exactly these fields); answers are read leniently
// (unknown fields are dropped) so a newer plugin can send more than this version reads.

/** The plugin routes the service calls, relative to `{plugin_base}`. */
export const PLUGIN_ROUTES = ['orders/lookup', 'leads', 'cart/coupon'] as const;
/** One of {@link PLUGIN_ROUTES}. */
export type TPluginRoute = (typeof PLUGIN_ROUTES)[number];

/** Orders an order lookup returns when the caller does not say. */
export const ORDERS_LOOKUP_DEFAULT_LIMIT = 5;
/** Most orders one lookup may ask for. */
export const ORDERS_LOOKUP_MAX_LIMIT = 20;
/** How long a staged coupon waits for the visitor's next cart (contract: 15 minutes). */
export const STAGED_COUPON_TTL_SECONDS = 15 * 60;
/** The `note` an order lookup carries when the commerce extension is inactive. */
export const COMMERCE_INACTIVE_NOTE = 'commerce_inactive';

const ZDecimal = zText().regex(/^-?\d+(?:\.\d+)?$/, 'Must be a decimal amount such as 19.90.');
// `+0000` (PHP's DATE_ISO8601) is read as `+00:00`, as in the sync routes.
const ZIsoWithOffset = z.preprocess(
  (value) => (typeof value === 'string' ? value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2') : value),
  z.iso.datetime({ offset: true }),
);
const ZId = zText().min(1).max(64);

/** One line of an order. */
export const ZOrderItem = z.object({
  name: zText(),
  qty: z.number().int(),
  sku: zText(),
  total: ZDecimal,
});
export type TOrderItem = z.infer<typeof ZOrderItem>;

/** An order as the plugin returns it; `tracking_url` is '' when the site knows none. */
export const ZOrder = z.object({
  id: z.number().int(),
  number: zText(),
  status: zText(),
  total: ZDecimal,
  currency: zText(),
  date_created: ZIsoWithOffset,
  items: z.array(ZOrderItem),
  tracking_url: z.union([storable(z.url({ protocol: /^https?$/ })), z.literal('')]),
  order_url: storable(z.url({ protocol: /^https?$/ })),
});
export type TOrder = z.infer<typeof ZOrder>;

/** Body of `POST {plugin_base}orders/lookup`: a verified shopper's recent orders. */
export const ZOrdersLookupRequest = z.strictObject({
  wp_user_id: z.number().int().positive(),
  limit: z.number().int().min(1).max(ORDERS_LOOKUP_MAX_LIMIT).default(ORDERS_LOOKUP_DEFAULT_LIMIT),
  order_number: zText().trim().min(1).max(64).optional(),
});
export type TOrdersLookupRequest = z.infer<typeof ZOrdersLookupRequest>;

/** `data` of the order lookup answer; `note` is `commerce_inactive` when the shop is off. */
export const ZOrdersLookupResult = z.object({
  count: z.number().int().min(0),
  orders: z.array(ZOrder),
  note: zText().optional(),
});
export type TOrdersLookupResult = z.infer<typeof ZOrdersLookupResult>;

/** Body of `POST {plugin_base}leads`: a lead captured by the widget. */
export const ZLeadPushRequest = z.strictObject({
  email: zText().min(3).max(320),
  name: zText().max(200),
  phone: zText().max(64),
  conversation_id: zText().max(64),
  service_lead_id: ZId,
});
export type TLeadPushRequest = z.infer<typeof ZLeadPushRequest>;

/** `data` of the lead push answer: the site's user for the lead. */
export const ZLeadPushResult = z.object({ user_id: z.number().int().min(0) });
export type TLeadPushResult = z.infer<typeof ZLeadPushResult>;

/** Body of `POST {plugin_base}cart/coupon`: stage `code` for the conversation's next cart. */
export const ZCartCouponRequest = z.strictObject({
  code: zText().trim().min(1).max(100),
  conversation_id: ZId,
});
export type TCartCouponRequest = z.infer<typeof ZCartCouponRequest>;

/** `data` of the coupon staging answer: `applied` false and `pending` true when staged. */
export const ZCartCouponResult = z.object({
  applied: z.boolean(),
  pending: z.boolean(),
  message: zText(),
});
export type TCartCouponResult = z.infer<typeof ZCartCouponResult>;

/** The request and answer types of each plugin route. */
export type PluginRouteTypes = {
  'orders/lookup': {
    input: z.input<typeof ZOrdersLookupRequest>;
    request: TOrdersLookupRequest;
    result: TOrdersLookupResult;
  };
  leads: { input: z.input<typeof ZLeadPushRequest>; request: TLeadPushRequest; result: TLeadPushResult };
  'cart/coupon': {
    input: z.input<typeof ZCartCouponRequest>;
    request: TCartCouponRequest;
    result: TCartCouponResult;
  };
};

/** The schemas of each plugin route: its request body and the `data` of its 200 answer. */
export const PLUGIN_ROUTE_SCHEMAS: {
  [R in TPluginRoute]: {
    request: z.ZodType<PluginRouteTypes[R]['request'], PluginRouteTypes[R]['input']>;
    result: z.ZodType<PluginRouteTypes[R]['result']>;
  };
} = {
  'orders/lookup': { request: ZOrdersLookupRequest, result: ZOrdersLookupResult },
  leads: { request: ZLeadPushRequest, result: ZLeadPushResult },
  'cart/coupon': { request: ZCartCouponRequest, result: ZCartCouponResult },
};
