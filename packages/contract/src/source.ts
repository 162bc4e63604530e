import { z } from 'zod';

/** A knowledge source as the admin API shows it. */
export const ZSource = z.object({
  id: z.string(),
  agent_id: z.string(),
  type: z
    .string()
    .describe(
      'site (synced posts), products (synced products and coupons), text (pasted), url (one page), …',
    ),
  name: z.string(),
  status: z.string().describe('ready (synced sites); queued → indexing → indexed | failed (text, url)'),
  error: z.string().nullable().describe('Why the source failed, verbatim (e.g. a refused URL)'),
  site_url: z.string().nullable(),
  plugin_version: z.string().nullable(),
  plugin_base: z.string().nullable().describe('Where the service calls the site plugin routes'),
  last_synced_at: z.string().nullable(),
  document_count: z.number().int(),
  coupon_count: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TSource = z.infer<typeof ZSource>;

/**
 * Body of `PATCH /api/v1/admin/sources/{id}`: the plugin routes' base URL of a synced site,
 * for sites whose REST prefix is not the default. http(s), no query or fragment, ends in `/`.
 */
export const ZSourceUpdate = z.strictObject({
  plugin_base: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .refine((value) => !/[?#]/.test(value), 'Must not contain a query or fragment.')
    .transform((value) => (value.endsWith('/') ? value : `${value}/`)),
});
export type TSourceUpdate = z.infer<typeof ZSourceUpdate>;

/** Source types an admin creates (site plugin sources are created by their syncs only). */
export const ZSourceCreateText = z.strictObject({
  type: z.literal('text'),
  name: z.string().trim().max(200).optional(),
  text: z.string().min(1).max(2_000_000).describe('Pasted text, indexed as one document'),
});

/** A single web page, fetched through the crawl-safety guard. */
export const ZSourceCreateUrl = z.strictObject({
  type: z.literal('url'),
  name: z.string().trim().max(200).optional(),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .describe('http(s) URL of one page (HTML or plain text)'),
});

/** Body of `POST /api/v1/admin/agents/{id}/sources`: a `text` or `url` source. */
export const ZSourceCreate = z.discriminatedUnion('type', [ZSourceCreateText, ZSourceCreateUrl]);
export type TSourceCreate = z.infer<typeof ZSourceCreate>;
