// What a site implements so the SDK can answer the service and push content. The SDK owns
// everything security-related (signatures, staging, shopper tokens); a store only reads and
// writes the site's own data.

/** One line of an order, as the site keeps it. */
export type SiteOrderItem = { name: string; qty: number; sku: string; total: string };

/**
 * An order as the site keeps it. `meta` is the order's metadata: the SDK reads the tracking URL
 * from the first of {@link TRACKING_URL_META_KEYS} that holds an http(s) URL.
 */
export type SiteOrder = {
  id: number;
  number: string;
  status: string;
  /** Decimal amount, e.g. `59.80`. */
  total: string;
  currency: string;
  /** When the order was placed. */
  createdAt: Date;
  items: SiteOrderItem[];
  /** Absolute URL where the shopper sees the order. */
  orderUrl: string;
  meta?: Record<string, string | undefined>;
};

/** A captured lead, as the service pushes it. */
export type SiteLead = {
  email: string;
  name: string;
  phone: string;
  conversationId: string;
  serviceLeadId: string;
};

/** A post or page, without its hash (the SDK computes `content_hash`). */
export type SitePost = {
  wp_id: number;
  post_type: string;
  permalink: string;
  title: string;
  content_html: string;
  excerpt: string;
  /** ISO 8601 with offset. */
  modified_at: string;
  /** Lower-case language tag such as `en` or `pt-br`. */
  language: string;
  taxonomy_terms: string[];
};

/** A product, without its hash (the SDK computes `content_hash`). */
export type SiteProduct = {
  wp_id: number;
  sku: string;
  name: string;
  permalink: string;
  image_url: string;
  short_description: string;
  description: string;
  price: string;
  regular_price: string;
  sale_price: string;
  currency: string;
  stock_status: string;
  on_sale: boolean;
  modified_at: string;
  categories: string[];
  attributes: string[];
};

/** A coupon the site offers, as the service stores it. */
export type SiteCoupon = { code: string; label: string; discount: string; expires_at: string | null };

/** One page of a listing: items with `wp_id` greater than `afterId`, in ascending `wp_id`. */
export type PageQuery = { afterId: number; limit: number };

/**
 * The site's side of the integration. Every method may be async. `TCart` is whatever the site
 * uses to identify a cart (a session id, a cart row); the SDK passes it through untouched.
 */
export type SiteStore<TCart = unknown> = {
  /** Whether the commerce extension is on; when false, orders and coupons answer `commerce_inactive`. */
  isCommerceActive(): boolean | Promise<boolean>;
  /** The user's orders, newest first, at most `limit`; only the one numbered `orderNumber` when given. */
  findOrders(query: { wpUserId: number; limit: number; orderNumber?: string }): Promise<SiteOrder[]>;
  /**
   * Creates the customer for the lead's email, or updates the existing one (same email, any
   * case), storing `serviceLeadId` and `conversationId` on it. Returns the customer's user id.
   * A lead does not prove the visitor owns the address: fill only empty fields of an existing
   * customer, never overwrite an account's name, phone or password, and never log anyone in.
   */
  upsertCustomer(lead: SiteLead): Promise<number>;
  /** Whether a coupon with this code exists and can be used now. */
  couponExists(code: string): Promise<boolean>;
  /** Applies a coupon code to the cart; false when the site refuses it (expired, used up). */
  applyCoupon(cart: TCart, code: string): Promise<boolean>;
  /** Published posts and pages after a cursor (see {@link PageQuery}). */
  listPosts(query: PageQuery): Promise<SitePost[]>;
  /** Published products after a cursor (see {@link PageQuery}). */
  listProducts(query: PageQuery): Promise<SiteProduct[]>;
  /** Every coupon currently offered. */
  listCoupons(): Promise<SiteCoupon[]>;
};

/**
 * A key-value store with expiry: where the SDK keeps staged coupons and the sync client keeps
 * its state. Memory works for one process; back it with Redis, a database table or anything
 * shared when the site runs several processes.
 */
export type KeyValueStore = {
  get(key: string): Promise<string | null>;
  /** Stores `value`; it disappears after `ttlSeconds` when given. */
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Reads and deletes in one step, when the backend can (Redis GETDEL); the SDK falls back to get + delete. */
  take?(key: string): Promise<string | null>;
};
