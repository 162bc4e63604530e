import { z } from 'zod';
import { storable, zText } from './text.js';

/** Most items a posts or products batch may carry. */
export const SYNC_BATCH_MAX = 50;

/** The default route prefix of the plugin routes on a site (the WordPress REST layout). */
export const DEFAULT_PLUGIN_PREFIX = '/wp-json/service/v1/';

const ZHttpUrl = storable(z.url({ protocol: /^https?$/ }).max(2048));
/**
 * ISO 8601 date-time with an offset. `+0000` (PHP's DATE_ISO8601) is read as `+00:00`; a time
 * without an offset is rejected, since the service cannot know which zone the site meant.
 */
const ZIsoWithOffset = z.preprocess(
  (value) => (typeof value === 'string' ? value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2') : value),
  z.iso.datetime({ offset: true }),
);
const ZHash = zText().regex(/^[0-9a-fA-F]{8,128}$/, 'Must be a hex digest.');
const ZDecimal = zText().regex(/^-?\d+(?:\.\d+)?$/, 'Must be a decimal amount such as 19.90.');
const ZOptionalDecimal = z.union([ZDecimal, z.literal('')]);
const ZLanguage = zText()

  .regex(/^[a-zA-Z]{2,3}(?:[-_][a-zA-Z0-9]{2,8})*$/, 'Must be a language tag such as en or pt-br.')
  .transform((tag) => tag.toLowerCase().replace(/_/g, '-'));

/** A post as the plugin sends it. */
export const ZPost = z.object({
  wp_id: z.number().int().positive(),
  post_type: zText().min(1).max(64),
  permalink: ZHttpUrl,
  title: zText().max(1000),
  content_html: zText().max(5_000_000),
  excerpt: zText().max(20_000).default(''),
  content_hash: ZHash,
  modified_at: ZIsoWithOffset,
  language: ZLanguage.nullable().optional(),
  taxonomy_terms: z.array(zText().max(200)).max(500).default([]),
});
export type TPost = z.infer<typeof ZPost>;

/** A product as the plugin sends it. */
export const ZProduct = z.object({
  wp_id: z.number().int().positive(),
  sku: zText().max(200).default(''),
  name: zText().min(1).max(1000),
  permalink: ZHttpUrl,
  image_url: z.union([ZHttpUrl, z.literal('')]).default(''),
  short_description: zText().max(100_000).default(''),
  description: zText().max(5_000_000).default(''),
  price: ZOptionalDecimal.default(''),
  regular_price: ZOptionalDecimal.default(''),
  sale_price: ZOptionalDecimal.default(''),
  currency: zText()

    .regex(/^[A-Za-z]{3}$/, 'Must be a currency code such as EUR.')
    .optional(),
  stock_status: zText().min(1).max(64),
  on_sale: z.boolean().default(false),
  content_hash: ZHash,
  modified_at: ZIsoWithOffset,
  categories: z.array(zText().max(200)).max(500).default([]),
  attributes: z.array(zText().max(1000)).max(500).default([]),
});
export type TProduct = z.infer<typeof ZProduct>;

/** A coupon as the plugin sends it; codes are later given to the model verbatim. */
export const ZCoupon = z.object({
  code: zText().trim().min(1).max(100),
  label: zText().max(300).default(''),
  discount: zText().max(50).default(''),
  expires_at: ZIsoWithOffset.nullable().default(null),
});
export type TCoupon = z.infer<typeof ZCoupon>;

const syncCommon = {
  agent_id: zText().min(1).max(64),
  site_url: ZHttpUrl,
  plugin_version: zText().min(1).max(50),
};

/** Body of `POST /api/v1/wp/handshake`. */
export const ZHandshakeRequest = z.object({
  site_url: ZHttpUrl,
  plugin_version: zText().min(1).max(50),
  commerce_active: z.boolean().default(false),
  cms_version: zText().max(50).default(''),
});

/** Answer of the handshake. */
export const ZHandshakeResponse = z.object({
  workspace: z.object({ id: zText(), name: zText() }),
  agents: z.array(
    z.object({
      id: zText(),
      name: zText(),
      site_type: zText(),
      language_default: zText().nullable(),
      is_published: z.boolean(),
    }),
  ),
  token: z.object({
    id: zText(),
    name: zText(),
    abilities: z.array(zText()),
    shopper_signing_secret: zText(),
  }),
  recommended_site_type: z.literal('ecommerce').nullable(),
  echo: z.object({ site_url: zText(), plugin_version: zText() }),
});
export type THandshakeResponse = z.infer<typeof ZHandshakeResponse>;

/** Longest full-sync run id. */
export const FULL_SYNC_ID_MAX = 100;

const fullSyncFields = {
  id: zText()
    .regex(
      /^[A-Za-z0-9._:-]+$/,
      'Must be letters, digits, dot, underscore, colon or hyphen (one fresh id per full sync run).',
    )
    .min(1)
    .max(FULL_SYNC_ID_MAX)
    .describe('The run: every batch of one full sync carries the same id, a new run a new one'),
  final: z
    .boolean()
    .default(false)
    .describe('The last batch: what this run did not list is removed (answered in `deleted`)'),
};

/** `full_sync` of a posts/sync batch: the run, whether it is its last batch, and optionally its post types. */
export const ZFullSyncPosts = z.strictObject({
  ...fullSyncFields,
  post_types: z
    .array(zText().min(1).max(64))
    .min(1)
    .max(50)
    .optional()
    .describe('The post types this run covers; the final batch removes only posts of these types'),
});

/** `full_sync` of a products/sync batch. */
export const ZFullSyncProducts = z.strictObject(fullSyncFields);

/**
 * A batch holds 1 to 50 items; only the final batch of a full sync may be empty (a run whose
 * item count is a multiple of the batch size, or a site that has none left).
 */
function requireItemsUnlessFinal(list: string) {
  return (
    body: Record<string, unknown> & { full_sync?: { final: boolean } | undefined },
    ctx: z.RefinementCtx,
  ) => {
    const items = body[list];
    if (Array.isArray(items) && items.length === 0 && body.full_sync?.final !== true) {
      ctx.addIssue({
        code: 'custom',
        path: [list],
        message: `Send 1 to ${SYNC_BATCH_MAX} ${list} (an empty list only in the final batch of a full sync).`,
      });
    }
  };
}

/** Body of `posts/sync`: 1 to 50 posts, optionally a batch of a full sync run (`full_sync`). */
export const ZPostsSync = z
  .object({ ...syncCommon, posts: z.array(ZPost).max(SYNC_BATCH_MAX), full_sync: ZFullSyncPosts.optional() })
  .superRefine(requireItemsUnlessFinal('posts'));

/** Body of `products/sync`: 1 to 50 products, optionally a batch of a full sync run (`full_sync`). */
export const ZProductsSync = z
  .object({
    ...syncCommon,
    products: z.array(ZProduct).max(SYNC_BATCH_MAX),
    full_sync: ZFullSyncProducts.optional(),
  })
  .superRefine(requireItemsUnlessFinal('products'));

/** Body of `coupons/sync`: the whole list, replacing the stored one. */
export const ZCouponsSync = z.object({ ...syncCommon, coupons: z.array(ZCoupon).max(1000) });

/** Action of a `*\/changed` delta. */
export const ZChangeAction = z.enum(['upsert', 'delete']);

/** What a delete delta must carry: the item's id. */
export const ZItemRef = z.object({ wp_id: z.number().int().positive() });

/**
 * A `*\/changed` body: the common fields, `action`, and ONE item, given either as a list of
 * length 1 (`posts: [...]`) or as a singular object (`post: {...}`, which existing plugins
 * send). Upserts validate the full item; deletes need only `wp_id`.
 */
function changedSchema<T extends z.ZodType>(item: T, plural: string, singular: string) {
  return z.looseObject({ ...syncCommon, action: ZChangeAction }).transform((body, ctx) => {
    const record: Record<string, unknown> = body;
    const list = record[plural];
    const single = record[singular];
    if ((list === undefined) === (single === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [plural],
        message: `Send exactly one of ${plural} (a list of one) or ${singular}.`,
      });
      return z.NEVER;
    }
    if (list !== undefined && (!Array.isArray(list) || list.length !== 1)) {
      ctx.addIssue({ code: 'custom', path: [plural], message: `Send exactly one item in ${plural}.` });
      return z.NEVER;
    }
    const raw: unknown = Array.isArray(list) ? list[0] : single;
    const path: PropertyKey[] = Array.isArray(list) ? [plural, 0] : [singular];
    const fail = (issues: readonly z.core.$ZodIssue[]) => {
      for (const issue of issues)
        ctx.addIssue({ code: 'custom', path: [...path, ...issue.path], message: issue.message });
      return z.NEVER;
    };
    const common = { agent_id: body.agent_id, site_url: body.site_url, plugin_version: body.plugin_version };
    if (body.action === 'delete') {
      const ref = ZItemRef.safeParse(raw);
      return ref.success
        ? { ...common, change: { action: 'delete' as const, wp_id: ref.data.wp_id } }
        : fail(ref.error.issues);
    }
    const parsed = item.safeParse(raw);
    return parsed.success
      ? { ...common, change: { action: 'upsert' as const, item: parsed.data } }
      : fail(parsed.error.issues);
  });
}

/** Body of `posts/changed`. */
export const ZPostsChanged = changedSchema(ZPost, 'posts', 'post');

/** Body of `products/changed`. */
export const ZProductsChanged = changedSchema(ZProduct, 'products', 'product');

/**
 * An item of a sync that was not stored because its HTML could not be converted to text within
 * the service's limits (time, memory, text length) or at all; the rest of the batch was stored.
 * `reason` is for the site's admin, such as `its HTML has more than 2,000,000 characters of text`.
 */
export const ZSyncFailure = z.object({ wp_id: z.number().int(), reason: zText() });
export type TSyncFailure = z.infer<typeof ZSyncFailure>;

/**
 * Answer of `posts/sync` and `products/sync`. `failed` counts the items in `failures` (nothing
 * is written for them; an earlier stored version stays); both default when an older service
 * leaves them out.
 */
export const ZSyncResult = z.object({
  queued: z.number().int(),
  skipped_unchanged: z.number().int(),
  deleted: z.number().int(),
  failed: z.number().int().default(0),
  failures: z.array(ZSyncFailure).default([]),
});
export type TSyncResult = z.infer<typeof ZSyncResult>;

/** What one delta did to its item. */
export const ZChangeOutcome = z.enum(['queued', 'skipped_unchanged', 'deleted', 'not_found', 'failed']);

/** Answer of `posts/changed` and `products/changed`: the counts plus the action and its outcome. */
export const ZChangeResult = ZSyncResult.extend({ action: ZChangeAction, result: ZChangeOutcome });
export type TChangeResult = z.infer<typeof ZChangeResult>;

/** Answer of `coupons/sync`. */
export const ZCouponsResult = z.object({ stored: z.number().int() });

/**
 * Normalises a site URL for matching: scheme and host lower case, no credentials, query or fragment, no trailing slash,
 * default port dropped (`HTTPS://Shop.example.com/` → `https://shop.example.com`).
 */
export function normalizeSiteUrl(input: string): string {
  const url = new URL(input.trim());
  url.hash = '';
  url.search = '';
  url.username = '';
  url.password = '';
  // The URL parser lower-cases scheme and host; the path keeps its case, since a site in a
  // subdirectory may live on a case-sensitive server.
  return url.toString().replace(/\/+$/, '');
}

/** The plugin routes' base for a site: the site URL plus the default prefix. */
export function defaultPluginBase(siteUrl: string): string {
  return `${normalizeSiteUrl(siteUrl)}${DEFAULT_PLUGIN_PREFIX}`;
}
