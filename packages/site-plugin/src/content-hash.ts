// content_hash: the service compares it with the hash it stored for the same wp_id and
// re-indexes only when they differ (docs/integration.md, "content_hash: what gets re-indexed").
// The hash therefore covers exactly what ends up in the indexed text, and nothing that changes
// without changing that text (modified_at, the order of terms).
import type { SitePost, SiteProduct } from './site-store.js';

/** A post as the sync client sends it: the site's post plus its `content_hash`. */
export type PostRecord = SitePost & { content_hash: string };

/** A product as the sync client sends it: the site's product plus its `content_hash`. */
export type ProductRecord = SiteProduct & { content_hash: string };

/**
 * Options of {@link productContentHash}. `includePriceAndStock` (default true) also hashes
 * price, regular_price, sale_price, currency, stock_status and on_sale.
 *
 * The service puts price and stock into the product's indexed text, so with the default a
 * price or stock edit re-embeds the product and the agent quotes the new price. With `false`,
 * price- or stock-only edits hash the same: the service skips them as unchanged (no embedding
 * cost), and its copy of price and stock stays stale until a descriptive field (name,
 * description, categories…) changes. Choose `false` only for shops whose prices change so often
 * that re-embedding costs more than an out-of-date price in an answer.
 */
export type ProductHashOptions = { includePriceAndStock?: boolean };

type Canonical = string | number | boolean | null | Canonical[] | { [key: string]: Canonical | undefined };

/**
 * JSON with object keys sorted at every level (so the caller's key order never matters).
 * Undefined object properties are left out, as JSON.stringify does.
 */
function canonicalJson(value: Canonical | undefined): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A sorted copy; code-unit order, so every runtime and locale agrees. */
function sortedCopy(list: readonly string[] | undefined): string[] {
  return [...(list ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Lower-case hex SHA-256 of the UTF-8 text, on Web Crypto (Node ≥ 20, Deno, Bun, workers). */
async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * SHA-256 hex over a canonical JSON of the post's descriptive fields: post_type, permalink,
 * title, content_html, excerpt, language and the sorted taxonomy_terms. Not wp_id (the service
 * compares per wp_id) and not modified_at (a save without edits must not re-embed).
 */
export async function postContentHash(post: SitePost): Promise<string> {
  return sha256Hex(
    canonicalJson({
      post_type: post.post_type,
      permalink: post.permalink,
      title: post.title,
      content_html: post.content_html,
      excerpt: post.excerpt,
      language: post.language,
      taxonomy_terms: sortedCopy(post.taxonomy_terms),
    }),
  );
}

/**
 * SHA-256 hex over a canonical JSON of the product's descriptive fields: sku, name, permalink,
 * image_url, short_description, description, sorted categories and sorted attributes; plus
 * price, regular_price, sale_price, currency, stock_status and on_sale unless
 * `includePriceAndStock` is false (see {@link ProductHashOptions} for the trade-off).
 */
export async function productContentHash(
  product: SiteProduct,
  options: ProductHashOptions = {},
): Promise<string> {
  const descriptive: { [key: string]: Canonical | undefined } = {
    sku: product.sku,
    name: product.name,
    permalink: product.permalink,
    image_url: product.image_url,
    short_description: product.short_description,
    description: product.description,
    categories: sortedCopy(product.categories),
    attributes: sortedCopy(product.attributes),
  };
  if (options.includePriceAndStock ?? true) {
    descriptive.price = product.price;
    descriptive.regular_price = product.regular_price;
    descriptive.sale_price = product.sale_price;
    descriptive.currency = product.currency;
    descriptive.stock_status = product.stock_status;
    descriptive.on_sale = product.on_sale;
  }
  return sha256Hex(canonicalJson(descriptive));
}

/** The post with its `content_hash` (see {@link postContentHash}), ready to send. */
export async function postWithContentHash(post: SitePost): Promise<PostRecord> {
  return { ...post, content_hash: await postContentHash(post) };
}

/** The product with its `content_hash` (see {@link productContentHash}), ready to send. */
export async function productWithContentHash(
  product: SiteProduct,
  options: ProductHashOptions = {},
): Promise<ProductRecord> {
  return { ...product, content_hash: await productContentHash(product, options) };
}
