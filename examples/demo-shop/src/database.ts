// The shop's own embedded database (PGlite): opened on a data directory, or in memory for
// tests, with the schema created idempotently at every start.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';

/** What the shop's queries run on: the database itself or an open transaction. */
export type Sql = Pick<Transaction, 'query'>;

/** The open shop database and how to close it (releasing the data-directory lock). */
export type ShopDatabase = { db: PGlite; close(): Promise<void> };

const SCHEMA = `
create sequence if not exists content_ids;

create table if not exists customers (
  id serial primary key,
  email text not null,
  name text not null default '',
  phone text not null default '',
  service_lead_id text,
  conversation_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index if not exists customers_email_ci on customers (lower(email));

-- Products and posts share one id sequence, as posts and products do in a CMS, so a wp_id
-- names one thing only.
create table if not exists products (
  wp_id integer primary key default nextval('content_ids'),
  slug text not null unique,
  sku text not null unique,
  name text not null,
  short_description text not null,
  description text not null,
  regular_price numeric(10, 2) not null,
  sale_price numeric(10, 2),
  stock_status text not null default 'instock',
  categories text[] not null default '{}',
  attributes text[] not null default '{}',
  image_url text not null default '',
  is_published boolean not null default true,
  modified_at timestamptz not null default now()
);

create table if not exists posts (
  wp_id integer primary key default nextval('content_ids'),
  slug text not null unique,
  post_type text not null default 'post',
  title text not null,
  content_html text not null,
  excerpt text not null,
  language text not null default 'en',
  taxonomy_terms text[] not null default '{}',
  is_published boolean not null default true,
  modified_at timestamptz not null default now()
);

create table if not exists orders (
  id serial primary key,
  number text not null unique,
  customer_id integer not null references customers (id) on delete cascade,
  status text not null,
  currency text not null default 'EUR',
  total numeric(10, 2) not null,
  metadata jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index if not exists orders_customer on orders (customer_id, created_at desc);

create table if not exists order_items (
  id serial primary key,
  order_id integer not null references orders (id) on delete cascade,
  product_id integer references products (wp_id) on delete set null,
  name text not null,
  sku text not null,
  qty integer not null,
  total numeric(10, 2) not null
);

create table if not exists coupons (
  code text primary key,
  label text not null,
  discount text not null,
  is_free_shipping boolean not null default false,
  expires_at timestamptz,
  is_active boolean not null default true
);
create unique index if not exists coupons_code_ci on coupons (lower(code));

create table if not exists sessions (
  id text primary key,
  customer_id integer references customers (id) on delete cascade,
  created_at timestamptz not null default now()
);

create table if not exists carts (
  id serial primary key,
  session_id text not null unique references sessions (id) on delete cascade,
  coupon_code text,
  updated_at timestamptz not null default now()
);

create table if not exists cart_items (
  cart_id integer not null references carts (id) on delete cascade,
  product_id integer not null references products (wp_id) on delete cascade,
  qty integer not null check (qty > 0),
  primary key (cart_id, product_id)
);

create table if not exists kv (
  key text primary key,
  value text not null,
  expires_at timestamptz
);
`;

/**
 * Opens the shop database: under `<dataDir>/pgdata` (taking a lock file, since PGlite lets
 * only one process use a data directory), or in memory when `dataDir` is null. Creates the
 * schema when missing.
 */
export async function openShopDatabase(options: { dataDir: string | null }): Promise<ShopDatabase> {
  const release = options.dataDir === null ? async () => {} : await lockDataDir(options.dataDir);
  let db: PGlite;
  try {
    db =
      options.dataDir === null ? await PGlite.create() : await PGlite.create(join(options.dataDir, 'pgdata'));
  } catch (error) {
    await release();
    throw error;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await db.close();
    } finally {
      await release();
    }
  };
  try {
    await db.exec(SCHEMA);
  } catch (error) {
    await close();
    throw error;
  }
  return { db, close };
}

const LOCK_FILE = 'shop.lock';

/** Takes `<dataDir>/shop.lock` (holding our pid); a lock left by a dead process is taken over. */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx' });
      return () => rm(path, { force: true });
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
      const owner = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
      if (isProcessAlive(owner)) {
        throw new Error(
          `The shop data directory ${dataDir} is in use by process ${owner}. Stop that shop first, ` +
            'or set SHOP_DATA_DIR to another directory.',
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`Could not lock the shop data directory ${dataDir}.`);
}

function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}
