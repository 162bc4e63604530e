// Seeds the demo data: deterministic (the same lists every time), idempotent (each part only
// when its tables are empty), and sized by `seed.posts` / `seed.products`.
import { TRACKING_URL_META_KEYS } from '@service/site-plugin';
import { catalogPosts } from './catalog-posts.js';
import { catalogProducts } from './catalog-products.js';
import type { Sql } from './database.js';
import { int } from './rows.js';

/** How much content to seed. */
export type SeedSize = { posts: number; products: number };

/** A pleasant default: a dozen coffees and a blog with some depth. */
export const DEFAULT_SEED: SeedSize = { posts: 20, products: 12 };

/** Shipping cost in cents below the free-shipping threshold (matches the service demo's FAQ). */
export const SHIPPING_CENTS = 490;
/** Orders from this subtotal (cents) ship free. */
export const FREE_SHIPPING_FROM_CENTS = 4000;

// Content dates are fixed, so content hashes stay the same from one run to the next.
const CONTENT_EPOCH = Date.parse('2025-01-06T09:00:00+01:00');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const CUSTOMERS = [
  { email: 'camille.martin@example.com', name: 'Camille Martin', phone: '+33 6 12 34 56 78' },
  { email: 'jonas.weber@example.com', name: 'Jonas Weber', phone: '+49 151 2345 6789' },
  { email: 'aiko.tanaka@example.com', name: 'Aiko Tanaka', phone: '+81 90 1234 5678' },
];

// [customer index, status, days ago, tracking code or '', [product index, qty][]]
const ORDERS: Array<[number, string, number, string, Array<[number, number]>]> = [
  [0, 'completed', 41, '6A19283746501', [[0, 2]]],
  [
    1,
    'completed',
    26,
    '6A19283750077',
    [
      [1, 1],
      [2, 1],
    ],
  ],
  [2, 'completed', 19, '', [[3, 1]]],
  [
    0,
    'processing',
    3,
    '6A19283799120',
    [
      [1, 2],
      [4, 1],
    ],
  ],
  [1, 'on-hold', 1, '', [[0, 1]]],
  [2, 'processing', 2, '6A19283801456', [[2, 3]]],
  [
    2,
    'pending',
    0,
    '',
    [
      [5, 1],
      [6, 1],
    ],
  ],
];

const COUPONS = [
  {
    code: 'WELCOME10',
    label: 'Welcome offer: 10% off your order',
    discount: '10%',
    isFreeShipping: false,
    expiresAt: null,
  },
  {
    code: 'FREESHIP',
    label: 'Free shipping on any order',
    discount: '4.90',
    isFreeShipping: true,
    expiresAt: null,
  },
  {
    code: 'SUMMER24',
    label: 'Summer 2024: 15% off',
    discount: '15%',
    isFreeShipping: false,
    expiresAt: '2024-09-01T00:00:00+02:00',
  },
];

/** `cents` as a decimal amount, e.g. `1290` → `12.90`. */
export function formatCents(cents: number): string {
  return (cents / 100).toFixed(2);
}

async function isEmpty(db: Sql, table: 'products' | 'posts' | 'customers' | 'coupons'): Promise<boolean> {
  const result = await db.query<Record<string, unknown>>(`select count(*)::int as n from ${table}`);
  const row = result.rows[0];
  return !row || int(row, 'n') === 0;
}

/** Seeds what is missing; returns what it created. */
export async function seedShop(
  db: Sql,
  size: SeedSize,
  now: Date,
): Promise<{ products: number; posts: number; customers: number; orders: number; coupons: number }> {
  const created = { products: 0, posts: 0, customers: 0, orders: 0, coupons: 0 };
  if (await isEmpty(db, 'products')) {
    for (const [i, product] of catalogProducts(size.products).entries()) {
      await db.query(
        `insert into products (slug, sku, name, short_description, description, regular_price, sale_price,
           stock_status, categories, attributes, modified_at)
         values ($1, $2, $3, $4, $5, $6::numeric / 100, $7::numeric / 100, $8, $9, $10, $11)`,
        [
          product.slug,
          product.sku,
          product.name,
          product.shortDescription,
          product.description,
          product.regularPrice,
          product.salePrice,
          product.stockStatus,
          product.categories,
          product.attributes,
          new Date(CONTENT_EPOCH + i * HOUR),
        ],
      );
      created.products++;
    }
  }
  if (await isEmpty(db, 'posts')) {
    for (const [i, post] of catalogPosts(size.posts).entries()) {
      await db.query(
        `insert into posts (slug, post_type, title, content_html, excerpt, taxonomy_terms, modified_at)
         values ($1, $2, $3, $4, $5, $6, $7)`,
        [
          post.slug,
          post.postType,
          post.title,
          post.contentHtml,
          post.excerpt,
          post.terms,
          new Date(CONTENT_EPOCH + i * HOUR),
        ],
      );
      created.posts++;
    }
  }
  if (await isEmpty(db, 'customers')) {
    const ids: number[] = [];
    for (const customer of CUSTOMERS) {
      const result = await db.query<Record<string, unknown>>(
        'insert into customers (email, name, phone) values ($1, $2, $3) returning id',
        [customer.email, customer.name, customer.phone],
      );
      const row = result.rows[0];
      if (row) ids.push(int(row, 'id'));
    }
    created.customers = ids.length;
    created.orders = await seedOrders(db, ids, now);
  }
  if (await isEmpty(db, 'coupons')) {
    for (const coupon of COUPONS) {
      await db.query(
        'insert into coupons (code, label, discount, is_free_shipping, expires_at) values ($1, $2, $3, $4, $5)',
        [coupon.code, coupon.label, coupon.discount, coupon.isFreeShipping, coupon.expiresAt],
      );
      created.coupons++;
    }
  }
  return created;
}

async function seedOrders(db: Sql, customerIds: number[], now: Date): Promise<number> {
  // Order lines name the first catalogue coffees, linked to the product row when it was seeded.
  const catalog = catalogProducts(8);
  const trackingKey = TRACKING_URL_META_KEYS[0];
  let count = 0;
  for (const [n, [customer, status, daysAgo, tracking, lines]] of ORDERS.entries()) {
    const customerId = customerIds[customer];
    if (customerId === undefined) continue;
    const items = lines.flatMap(([index, qty]) => {
      const product = catalog[index];
      return product ? [{ product, qty, total: (product.salePrice ?? product.regularPrice) * qty }] : [];
    });
    const subtotal = items.reduce((sum, item) => sum + item.total, 0);
    const shipping = subtotal >= FREE_SHIPPING_FROM_CENTS ? 0 : SHIPPING_CENTS;
    const metadata = tracking === '' ? {} : { [trackingKey]: `https://track.example.com/parcel/${tracking}` };
    const result = await db.query<Record<string, unknown>>(
      `insert into orders (number, customer_id, status, total, metadata, created_at)
       values ($1, $2, $3, $4::numeric / 100, $5, $6) returning id`,
      [
        `NW-${1001 + n}`,
        customerId,
        status,
        subtotal + shipping,
        JSON.stringify(metadata),
        new Date(now.getTime() - daysAgo * DAY - (n + 1) * HOUR),
      ],
    );
    const row = result.rows[0];
    if (!row) continue;
    const orderId = int(row, 'id');
    for (const item of items) {
      await db.query(
        `insert into order_items (order_id, product_id, name, sku, qty, total)
         values ($1, (select wp_id from products where sku = $2), $3, $2, $4, $5::numeric / 100)`,
        [orderId, item.product.sku, item.product.name, item.qty, item.total],
      );
    }
    count++;
  }
  return count;
}

/** The demo customers' e-mail addresses, in seed order (for docs and tests). */
export const DEMO_CUSTOMER_EMAILS = CUSTOMERS.map((customer) => customer.email);
