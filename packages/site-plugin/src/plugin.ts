import { DEFAULT_PLUGIN_PREFIX, PLUGIN_ROUTES, type TPluginRoute } from '@service/contract';
import { readConversationCookie, takeStagedCoupon } from './coupon-staging.js';
import { createMemoryStore } from './memory-store.js';
import {
  byteLength,
  contractError,
  DEFAULT_MAX_BODY_BYTES,
  errorResponse,
  isUnderPrefix,
  noRouteResponse,
  type PluginRequest,
  type PluginResponse,
  parseJsonBody,
  pathOnly,
  readHeader,
  tooLargeResponse,
} from './plugin-http.js';
import { ROUTE_HANDLERS } from './plugin-routes.js';
import { SIGNATURE_HEADER_NAME, verifyBody } from './signature.js';
import type { KeyValueStore, SiteStore } from './site-store.js';

// The plugin routes of contract section B, framework-neutral: an adapter (adapters/*.ts) turns
// its framework's request into a PluginRequest with the raw body and writes the answer back.

export { readConversationCookie, STAGED_COUPON_KEY_PREFIX } from './coupon-staging.js';
export { TRACKING_URL_META_KEYS } from './order-record.js';
export { DEFAULT_MAX_BODY_BYTES, type PluginRequest, type PluginResponse } from './plugin-http.js';

/** How {@link createSitePlugin} is set up. */
export type SitePluginOptions<TCart> = {
  /** The site's data: orders, customers, coupons, carts. */
  store: SiteStore<TCart>;
  /** The stored shopper_signing_secret (from the handshake); null or '' answers `plugin_unconfigured`. */
  signingSecret: () => string | null | Promise<string | null>;
  /** Where staged coupons wait for the next cart load; default in memory (one process only). */
  staging?: KeyValueStore;
  /** The path prefix of the routes; default `/wp-json/service/v1/`. */
  prefix?: string;
  /** The clock: signature window and coupon expiry. */
  now?: () => Date;
  /** Largest request body accepted, in bytes; default 64 KiB. Larger bodies get 413. */
  maxBodyBytes?: number;
  /** Told about an error a store method threw (the answer stays a generic 500); for logging. */
  onError?: (error: unknown) => void;
};

/** The coupon a cart load applied: its code and whether the site accepted it. */
export type AppliedCoupon = { code: string; applied: boolean };

/** The plugin routes, ready to be mounted with an adapter. */
export type SitePlugin<TCart> = {
  /** The normalised prefix, starting and ending with `/`. */
  prefix: string;
  /** The body cap in bytes; adapters enforce it while reading. */
  maxBodyBytes: number;
  /** Answers a request under the prefix; null when the path is not under it. Never throws. */
  handle(request: PluginRequest): Promise<PluginResponse | null>;
  /**
   * The cart-load hook: applies the coupon staged for the visitor's conversation (found by the
   * `svc_conversation` cookie) once; null when there is no cookie or nothing is staged. Errors of
   * the staging store or of `applyCoupon` reach the caller (the code is taken either way).
   */
  applyStagedCoupon(options: {
    cookieHeader: string | null | undefined;
    cart: TCart;
  }): Promise<AppliedCoupon | null>;
};

/**
 * Creates the plugin routes (`orders/lookup`, `leads`, `cart/coupon`) with the contract's
 * verification order: missing header, then unconfigured secret, then signature and timestamp
 * over the raw body; only then is the JSON parsed.
 */
export function createSitePlugin<TCart>(options: SitePluginOptions<TCart>): SitePlugin<TCart> {
  const prefix = normalizePrefix(options.prefix ?? DEFAULT_PLUGIN_PREFIX);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new Error('createSitePlugin: maxBodyBytes must be a positive whole number of bytes.');
  }
  const now = options.now ?? (() => new Date());
  const nowSeconds = () => Math.floor(now().getTime() / 1000);
  const { store } = options;
  const staging = options.staging ?? createMemoryStore({ now });

  const report = (error: unknown): void => {
    try {
      options.onError?.(error);
    } catch {
      // A failing logger must not turn into a second error.
    }
  };

  const respond = async (request: PluginRequest): Promise<PluginResponse | null> => {
    const path = pathOnly(request.path);
    if (!isUnderPrefix(path, prefix)) return null;
    const route = routeOf(path.slice(prefix.length));
    if (route === null || request.method.toUpperCase() !== 'POST') return noRouteResponse();
    if (byteLength(request.body) > maxBodyBytes) return tooLargeResponse(maxBodyBytes);

    // The plugin verification order (contract, "Authentication"), exactly in this order.
    const header = readHeader(request.headers, SIGNATURE_HEADER_NAME);
    if (header === undefined || header === '') return contractError('missing_signature');
    const secret = await options.signingSecret();
    if (typeof secret !== 'string' || secret === '') return contractError('plugin_unconfigured');
    // Over the raw bytes as received; verifyBody also refuses a timestamp more than 300 s away.
    const check = await verifyBody({ header, key: secret, body: request.body, now: nowSeconds });
    if (check !== 'ok') return contractError('signature_mismatch');

    const json = parseJsonBody(request.body);
    if (!json)
      return errorResponse(400, 'rest_invalid_param', 'Invalid parameter(s): (body) (not valid JSON).');
    return ROUTE_HANDLERS[route]({ store, staging }, json.value);
  };

  return {
    prefix,
    maxBodyBytes,
    async handle(request) {
      try {
        return await respond(request);
      } catch (error) {
        // Never leak the store's error text to the caller.
        report(error);
        return contractError('internal_error');
      }
    },
    async applyStagedCoupon({ cookieHeader, cart }) {
      const conversationId = readConversationCookie(cookieHeader);
      if (conversationId === null) return null;
      const code = await takeStagedCoupon(staging, conversationId);
      if (code === null) return null;
      const applied = (await store.applyCoupon(cart, code)) === true;
      return { code, applied };
    },
  };
}

function normalizePrefix(prefix: string): string {
  const leading = prefix.startsWith('/') ? prefix : `/${prefix}`;
  return leading.endsWith('/') ? leading : `${leading}/`;
}

/** The route a path below the prefix names (one trailing slash tolerated), or null. */
function routeOf(rest: string): TPluginRoute | null {
  const name = rest.endsWith('/') ? rest.slice(0, -1) : rest;
  return PLUGIN_ROUTES.find((route) => route === name) ?? null;
}
