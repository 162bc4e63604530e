// The shop's SiteStore: how the SDK reads and writes the shop's data. Everything security-related
// (signatures, staging, tokens) stays in the SDK; this file is plain queries.
import type { SiteCoupon, SiteOrder, SitePost, SiteProduct, SiteStore } from '@service/site-plugin';
import type { Sql } from './database.js';
import { bool, date, dateOrNull, int, type Row, stringRecord, text, textArray, textOrNull } from './rows.js';

/** What the SDK passes back to {@link SiteStore.applyCoupon}: the visitor's session. */
export type CartRef = { sessionId: string };

/** Where the store reads from and how it builds absolute URLs. */
export type ShopStoreOptions = {
  db: Sql;
  /** The shop's public address, without a trailing slash; permalinks start with it. */
  siteUrl: string;
  /** Whether the commerce side is on (orders, coupons); default true. */
  commerceActive?: boolean;
  now?: () => Date;
};

const PRODUCT_COLUMNS = `wp_id, slug, sku, name, short_description, description, regular_price::text as regular_price,
  sale_price::text as sale_price, stock_status, categories, attributes, modified_at`;
const POST_COLUMNS =
  'wp_id, slug, post_type, title, content_html, excerpt, language, taxonomy_terms, modified_at';

/** A product row as the SDK wants it. */
export function toSiteProduct(row: Row, siteUrl: string): SiteProduct {
  const slug = text(row, 'slug');
  const regular = text(row, 'regular_price');
  const sale = textOrNull(row, 'sale_price');
  return {
    wp_id: int(row, 'wp_id'),
    sku: text(row, 'sku'),
    name: text(row, 'name'),
    permalink: `${siteUrl}/products/${slug}`,
    image_url: `${siteUrl}/images/products/${slug}.svg`,
    short_description: text(row, 'short_description'),
    description: text(row, 'description'),
    price: sale ?? regular,
    regular_price: regular,
    sale_price: sale ?? '',
    currency: 'EUR',
    stock_status: text(row, 'stock_status'),
    on_sale: sale !== null,
    modified_at: date(row, 'modified_at').toISOString(),
    categories: textArray(row, 'categories'),
    attributes: textArray(row, 'attributes'),
  };
}

/** A post row as the SDK wants it. */
export function toSitePost(row: Row, siteUrl: string): SitePost {
  return {
    wp_id: int(row, 'wp_id'),
    post_type: text(row, 'post_type'),
    permalink: `${siteUrl}/blog/${text(row, 'slug')}`,
    title: text(row, 'title'),
    content_html: text(row, 'content_html'),
    excerpt: text(row, 'excerpt'),
    modified_at: date(row, 'modified_at').toISOString(),
    language: text(row, 'language'),
    taxonomy_terms: textArray(row, 'taxonomy_terms'),
  };
}

/** The SQL selecting products (`PRODUCT_COLUMNS`), for the pages. */
export const PRODUCT_SELECT = `select ${PRODUCT_COLUMNS} from products`;
/** The SQL selecting posts (`POST_COLUMNS`), for the pages. */
export const POST_SELECT = `select ${POST_COLUMNS} from posts`;

/** The condition a usable coupon meets; `$1` is the code, `$2` the current time. */
export const USABLE_COUPON =
  'lower(code) = lower($1) and is_active and (expires_at is null or expires_at > $2)';

/** A customer's orders, newest first, with their lines. */
export async function findCustomerOrders(
  db: Sql,
  query: { customerId: number; limit: number; orderNumber?: string | undefined; siteUrl: string },
): Promise<SiteOrder[]> {
  const params: unknown[] = [query.customerId, query.limit];
  let filter = '';
  if (query.orderNumber !== undefined) {
    params.push(query.orderNumber);
    filter = 'and upper(number) = upper($3)';
  }
  const orders = await db.query<Row>(
    `select id, number, status, total::text as total, currency, metadata, created_at from orders
     where customer_id = $1 ${filter} order by created_at desc, id desc limit $2`,
    params,
  );
  const ids = orders.rows.map((row) => int(row, 'id'));
  const items = await db.query<Row>(
    `select order_id, name, qty, sku, total::text as total from order_items where order_id = any($1::int[]) order by id`,
    [ids],
  );
  return orders.rows.map((row) => {
    const id = int(row, 'id');
    const number = text(row, 'number');
    return {
      id,
      number,
      status: text(row, 'status'),
      total: text(row, 'total'),
      currency: text(row, 'currency'),
      createdAt: date(row, 'created_at'),
      items: items.rows
        .filter((item) => int(item, 'order_id') === id)
        .map((item) => ({
          name: text(item, 'name'),
          qty: int(item, 'qty'),
          sku: text(item, 'sku'),
          total: text(item, 'total'),
        })),
      orderUrl: `${query.siteUrl}/account/orders#${encodeURIComponent(number)}`,
      meta: stringRecord(row, 'metadata'),
    };
  });
}

/** Creates the session's cart when missing; returns its id, or null when the session is unknown. */
export async function ensureCart(db: Sql, sessionId: string): Promise<number | null> {
  await db.query(
    `insert into carts (session_id) select id from sessions where id = $1 on conflict (session_id) do nothing`,
    [sessionId],
  );
  const result = await db.query<Row>('select id from carts where session_id = $1', [sessionId]);
  const row = result.rows[0];
  return row ? int(row, 'id') : null;
}

/** The shop's {@link SiteStore} over its database. */
export function createShopStore(options: ShopStoreOptions): SiteStore<CartRef> {
  const { db, siteUrl } = options;
  const now = options.now ?? (() => new Date());
  const isCommerceActive = options.commerceActive ?? true;
  return {
    isCommerceActive: () => isCommerceActive,
    findOrders: (query) =>
      findCustomerOrders(db, {
        customerId: query.wpUserId,
        limit: query.limit,
        orderNumber: query.orderNumber,
        siteUrl,
      }),
    async upsertCustomer(lead) {
      // Same e-mail in any case is the same customer. A lead proves nothing about the address
      // (anyone can type any e-mail into a chat), so it only fills what the shop does not know
      // yet: an existing customer's name and phone are never overwritten.
      const result = await db.query<Row>(
        `insert into customers (email, name, phone, service_lead_id, conversation_id)
         values ($1, $2, $3, $4, nullif($5, ''))
         on conflict ((lower(email))) do update set
           name = coalesce(nullif(customers.name, ''), excluded.name),
           phone = coalesce(nullif(customers.phone, ''), excluded.phone),
           service_lead_id = excluded.service_lead_id,
           conversation_id = coalesce(excluded.conversation_id, customers.conversation_id),
           updated_at = now()
         returning id`,
        [lead.email.trim(), lead.name.trim(), lead.phone.trim(), lead.serviceLeadId, lead.conversationId],
      );
      const row = result.rows[0];
      if (!row) throw new Error('upsertCustomer: the database returned no row.');
      return int(row, 'id');
    },
    async couponExists(code) {
      const result = await db.query<Row>(`select 1 from coupons where ${USABLE_COUPON}`, [code, now()]);
      return result.rows.length > 0;
    },
    async applyCoupon(cart, code) {
      const coupon = await db.query<Row>(`select code from coupons where ${USABLE_COUPON}`, [code, now()]);
      const row = coupon.rows[0];
      if (!row) return false;
      const cartId = await ensureCart(db, cart.sessionId);
      if (cartId === null) return false;
      await db.query('update carts set coupon_code = $2, updated_at = now() where id = $1', [
        cartId,
        text(row, 'code'),
      ]);
      return true;
    },
    async listPosts(query) {
      const result = await db.query<Row>(
        `${POST_SELECT} where is_published and wp_id > $1 order by wp_id limit $2`,
        [query.afterId, query.limit],
      );
      return result.rows.map((row) => toSitePost(row, siteUrl));
    },
    async listProducts(query) {
      const result = await db.query<Row>(
        `${PRODUCT_SELECT} where is_published and wp_id > $1 order by wp_id limit $2`,
        [query.afterId, query.limit],
      );
      return result.rows.map((row) => toSiteProduct(row, siteUrl));
    },
    async listCoupons(): Promise<SiteCoupon[]> {
      const result = await db.query<Row>(
        `select code, label, discount, expires_at, is_active from coupons
         where is_active and (expires_at is null or expires_at > $1) order by code`,
        [now()],
      );
      return result.rows
        .filter((row) => bool(row, 'is_active'))
        .map((row) => ({
          code: text(row, 'code'),
          label: text(row, 'label'),
          discount: text(row, 'discount'),
          expires_at: dateOrNull(row, 'expires_at')?.toISOString() ?? null,
        }));
    },
  };
}
