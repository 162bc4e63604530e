// The queries behind the shop's own pages: catalogue, blog, customers, sessions and carts.
import type { SitePost, SiteProduct } from '@service/site-plugin';
import type { Sql } from './database.js';
import { bool, int, type Row, text, textOrNull } from './rows.js';
import { FREE_SHIPPING_FROM_CENTS, SHIPPING_CENTS } from './seed.js';
import {
  ensureCart,
  POST_SELECT,
  PRODUCT_SELECT,
  toSitePost,
  toSiteProduct,
  USABLE_COUPON,
} from './store.js';

/** A demo customer as the login page and the tests see it. */
export type Customer = {
  id: number;
  email: string;
  name: string;
  phone: string;
  service_lead_id: string | null;
  conversation_id: string | null;
};

/** One line of a cart. */
export type CartLine = {
  name: string;
  slug: string;
  sku: string;
  qty: number;
  unitCents: number;
  totalCents: number;
};

/** A cart with its totals, in cents. */
export type CartView = {
  lines: CartLine[];
  subtotalCents: number;
  coupon: { code: string; label: string; isValid: boolean } | null;
  discountCents: number;
  shippingCents: number;
  totalCents: number;
};

/** The session and, when logged in, its customer. */
export type Session = { id: string; customer: Customer | null };

function toCustomer(row: Row): Customer {
  return {
    id: int(row, 'id'),
    email: text(row, 'email'),
    name: text(row, 'name'),
    phone: text(row, 'phone'),
    service_lead_id: textOrNull(row, 'service_lead_id'),
    conversation_id: textOrNull(row, 'conversation_id'),
  };
}

const CUSTOMER_COLUMNS = 'c.id, c.email, c.name, c.phone, c.service_lead_id, c.conversation_id';

/** Every customer, oldest first. */
export async function listCustomers(db: Sql): Promise<Customer[]> {
  const result = await db.query<Row>(`select ${CUSTOMER_COLUMNS} from customers c order by c.id`);
  return result.rows.map(toCustomer);
}

/** The session `id` with its customer, or null when there is no such session. */
export async function findSession(db: Sql, id: string): Promise<Session | null> {
  const result = await db.query<Row>(
    `select s.id as session_id, ${CUSTOMER_COLUMNS} from sessions s left join customers c on c.id = s.customer_id
     where s.id = $1`,
    [id],
  );
  const row = result.rows[0];
  if (!row) return null;
  return { id: text(row, 'session_id'), customer: row.id === null ? null : toCustomer(row) };
}

/** Creates a session for `customerId` (null: anonymous), moving the cart of `fromSession` to it. */
export async function createSession(
  db: Sql,
  options: { id: string; customerId: number | null; fromSession?: string | null },
): Promise<void> {
  await db.query('insert into sessions (id, customer_id) values ($1, $2)', [options.id, options.customerId]);
  if (options.fromSession) {
    // A new id at login (no session fixation); the visitor keeps the cart they filled.
    await db.query('update carts set session_id = $1 where session_id = $2', [
      options.id,
      options.fromSession,
    ]);
    await db.query('delete from sessions where id = $1', [options.fromSession]);
  }
}

/** Deletes a session (logout); its cart goes with it. */
export async function deleteSession(db: Sql, id: string): Promise<void> {
  await db.query('delete from sessions where id = $1', [id]);
}

/** The customer with this id, or null. */
export async function findCustomer(db: Sql, id: number): Promise<Customer | null> {
  const result = await db.query<Row>(`select ${CUSTOMER_COLUMNS} from customers c where c.id = $1`, [id]);
  const row = result.rows[0];
  return row ? toCustomer(row) : null;
}

/** Published products in catalogue order. */
export async function listShopProducts(db: Sql, siteUrl: string): Promise<SiteProduct[]> {
  const result = await db.query<Row>(`${PRODUCT_SELECT} where is_published order by wp_id`);
  return result.rows.map((row) => toSiteProduct(row, siteUrl));
}

/** The published product with this slug, or null. */
export async function findProduct(db: Sql, siteUrl: string, slug: string): Promise<SiteProduct | null> {
  const result = await db.query<Row>(`${PRODUCT_SELECT} where is_published and slug = $1`, [slug]);
  const row = result.rows[0];
  return row ? toSiteProduct(row, siteUrl) : null;
}

/** Published blog posts (not pages), newest first. */
export async function listShopPosts(db: Sql, siteUrl: string): Promise<SitePost[]> {
  const result = await db.query<Row>(
    `${POST_SELECT} where is_published order by post_type desc, modified_at desc`,
  );
  return result.rows.map((row) => toSitePost(row, siteUrl));
}

/** The published post or page with this slug, or null. */
export async function findPost(db: Sql, siteUrl: string, slug: string): Promise<SitePost | null> {
  const result = await db.query<Row>(`${POST_SELECT} where is_published and slug = $1`, [slug]);
  const row = result.rows[0];
  return row ? toSitePost(row, siteUrl) : null;
}

/** Adds `qty` of a product to the session's cart; false when the product is unknown or sold out. */
export async function addToCart(
  db: Sql,
  sessionId: string,
  productId: number,
  qty: number,
): Promise<boolean> {
  const product = await db.query<Row>(
    `select wp_id from products where wp_id = $1 and is_published and stock_status = 'instock'`,
    [productId],
  );
  if (product.rows.length === 0) return false;
  const cartId = await ensureCart(db, sessionId);
  if (cartId === null) return false;
  await db.query(
    `insert into cart_items (cart_id, product_id, qty) values ($1, $2, $3)
     on conflict (cart_id, product_id) do update set qty = least(cart_items.qty + excluded.qty, 99)`,
    [cartId, productId, qty],
  );
  return true;
}

/** Discount in cents of a coupon's `discount` text (`10%` or `4.90`) on a subtotal. */
export function discountCents(discount: string, subtotalCents: number): number {
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(discount.trim());
  if (percent?.[1]) return Math.round((subtotalCents * Number(percent[1])) / 100);
  const amount = /^\d+(?:\.\d+)?$/.test(discount.trim()) ? Math.round(Number(discount) * 100) : 0;
  return Math.min(amount, subtotalCents);
}

/** The session's cart with its totals (an empty view when it has none). */
export async function viewCart(db: Sql, sessionId: string, now: Date): Promise<CartView> {
  const lines = await db.query<Row>(
    `select p.name, p.slug, p.sku, i.qty, (coalesce(p.sale_price, p.regular_price) * 100)::int as unit_cents
     from carts c join cart_items i on i.cart_id = c.id join products p on p.wp_id = i.product_id
     where c.session_id = $1 order by p.wp_id`,
    [sessionId],
  );
  const cartLines: CartLine[] = lines.rows.map((row) => {
    const qty = int(row, 'qty');
    const unitCents = int(row, 'unit_cents');
    return {
      name: text(row, 'name'),
      slug: text(row, 'slug'),
      sku: text(row, 'sku'),
      qty,
      unitCents,
      totalCents: qty * unitCents,
    };
  });
  const subtotalCents = cartLines.reduce((sum, line) => sum + line.totalCents, 0);
  let shippingCents = subtotalCents === 0 || subtotalCents >= FREE_SHIPPING_FROM_CENTS ? 0 : SHIPPING_CENTS;
  let discount = 0;
  let coupon: CartView['coupon'] = null;
  const cart = await db.query<Row>('select coupon_code from carts where session_id = $1', [sessionId]);
  const code = cart.rows[0] ? textOrNull(cart.rows[0], 'coupon_code') : null;
  if (code !== null) {
    const found = await db.query<Row>(
      `select code, label, discount, is_free_shipping, (${USABLE_COUPON}) as is_valid from coupons where lower(code) = lower($1)`,
      [code, now],
    );
    const row = found.rows[0];
    const isValid = row ? bool(row, 'is_valid') : false;
    coupon = { code: row ? text(row, 'code') : code, label: row ? text(row, 'label') : '', isValid };
    if (row && isValid) {
      if (bool(row, 'is_free_shipping')) shippingCents = 0;
      else discount = discountCents(text(row, 'discount'), subtotalCents);
    }
  }
  return {
    lines: cartLines,
    subtotalCents,
    coupon,
    discountCents: discount,
    shippingCents,
    totalCents: subtotalCents - discount + shippingCents,
  };
}
