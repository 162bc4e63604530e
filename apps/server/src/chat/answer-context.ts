import { type TCoupon, type TSearchHit, ZCoupon } from '@service/contract';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { z } from 'zod';
import type { DatabaseFeatures } from '../db/database.js';
import type { AgentRow, DB } from '../db/schema.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { searchWithDocuments } from '../retrieval/search.js';

/** How many retrieved chunks an answer is grounded on. */
export const ANSWER_SOURCES = 6;

/** A retrieved chunk numbered for the prompt: `[N]` in the answer cites source `id` N. */
export type AnswerSource = {
  id: number;
  hit: TSearchHit;
  /** Found by words (full-text or typo match), not only by vector similarity: real evidence. */
  fromText: boolean;
  /** The synced product behind the chunk, when it is one. */
  product: ProductCard | null;
  /** That product's categories (none for other chunks): what kind of thing it is. */
  categories?: readonly string[];
};

/** What a product card shows. */
export type ProductCard = {
  name: string;
  url: string | null;
  image_url: string | null;
  price: string | null;
  regular_price: string | null;
  sale_price: string | null;
  currency: string | null;
  on_sale: boolean;
  in_stock: boolean;
};

const ZProductMetadata = z.object({
  image_url: z.string().nullable().catch(null),
  price: z.string().nullable().catch(null),
  regular_price: z.string().nullable().catch(null),
  sale_price: z.string().nullable().catch(null),
  currency: z.string().nullable().catch(null),
  on_sale: z.boolean().catch(false),
  stock_status: z.string().catch(''),
});

const ZCategories = z.object({ categories: z.array(z.string()).catch([]) }).catch({ categories: [] });

/**
 * `url` made absolute against `baseUrl` when it is a path on the service (`/kb/…`); other URLs
 * as they are. A base that is not a bare http(s) origin (say, a Host header carrying a path or
 * quotes) is not used: the path stays relative rather than pointing somewhere made up.
 */
export function absoluteUrl(url: string | null, baseUrl: string | undefined): string | null {
  if (url === null || baseUrl === undefined || !url.startsWith('/') || url.startsWith('//')) return url;
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return url;
  }
  const isBare =
    (base.protocol === 'http:' || base.protocol === 'https:') &&
    base.username === '' &&
    base.password === '' &&
    base.search === '' &&
    base.hash === '' &&
    // PUBLIC_BASE_URL may carry a plain path prefix (`https://example.com/chat`); nothing else.
    /^(\/[\w.~-]+)*\/?$/.test(base.pathname);
  return isBare ? `${base.origin}${base.pathname.replace(/\/$/, '')}${url}` : url;
}

/** The knowledge an answer may use: numbered sources and the agent's current coupons. */
export type AnswerContext = {
  sources: AnswerSource[];
  coupons: TCoupon[];
  /** The shop's currency (ISO 4217) from its synced products, for coupon cards; null when unknown. */
  currency?: string | null;
};

/**
 * Retrieves what an answer is grounded on: the best chunks for the question (a retrieval
 * failure means no sources, never a made-up one) and the products behind them, read with the
 * chunks. The agent's coupons come with the turn's first statement (`agentCouponLists`).
 */
export async function loadAnswerSources(options: {
  db: Kysely<DB>;
  agent: AgentRow;
  question: string;
  features: DatabaseFeatures;
  embeddings: EmbeddingProvider | null;
  onError: (error: unknown, what: string) => void;
  /** Where visitors reach the service (`https://chat.example.com`): the service's own pages,
   * stored as paths when PUBLIC_BASE_URL is unset (`/kb/…`), are cited as absolute URLs on it. */
  baseUrl?: string | undefined;
}): Promise<AnswerSource[]> {
  const { db, agent } = options;
  const found = await searchWithDocuments({
    db,
    workspaceId: agent.workspace_id,
    agentId: agent.id,
    query: options.question,
    limit: ANSWER_SOURCES,
    features: options.features,
    embeddings: options.embeddings,
    knownAgent: agent,
    onVectorError: (error) => options.onError(error, 'query not embedded'),
  }).catch((error: unknown) => {
    options.onError(error, 'retrieval failed');
    return [];
  });
  return found.map(({ hit, productMetadata }, index) => ({
    id: index + 1,
    hit: { ...hit, url: absoluteUrl(hit.url, options.baseUrl) },
    fromText: hit.ranks.fulltext !== undefined || hit.ranks.trigram !== undefined,
    product:
      productMetadata === null || productMetadata === undefined ? null : productCard(hit, productMetadata),
    categories: ZCategories.parse(productMetadata ?? {}).categories,
  }));
}

/** The card of a product hit, from its document's title, URL and stored metadata. */
function productCard(hit: TSearchHit, metadata: unknown): ProductCard {
  const meta = ZProductMetadata.parse(metadata);
  return {
    name: hit.title,
    url: hit.url,
    image_url: meta.image_url || null,
    price: meta.price || null,
    regular_price: meta.regular_price || null,
    sale_price: meta.sale_price || null,
    currency: meta.currency || null,
    on_sale: meta.on_sale,
    in_stock: meta.stock_status === 'instock',
  };
}

const ZCouponList = z.array(z.unknown()).catch([]);

/**
 * SQL for the coupon lists the agent's products sources hold (`config.coupons` of each, null
 * where there is none), as one jsonb array: a scalar subquery, so the answer pipeline reads
 * them within a statement it sends anyway. {@link couponsFromLists} makes coupons of them.
 */
export function agentCouponLists(agentId: string): RawBuilder<unknown[]> {
  return sql<unknown[]>`(
    select coalesce(jsonb_agg(s.config -> 'coupons'), '[]'::jsonb)
    from sources s
    where s.agent_id = ${agentId} and s.type = 'products')`;
}

/** SQL for the currency of one of the agent's synced products (null when none has one). */
export function agentCurrency(workspaceId: string, agentId: string): RawBuilder<string | null> {
  return sql<string | null>`(
    select d.metadata ->> 'currency' from documents d
    where d.workspace_id = ${workspaceId} and d.agent_id = ${agentId} and d.kind = 'product'
      and coalesce(d.metadata ->> 'currency', '') <> ''
    limit 1)`;
}

/** An ISO 4217 code, upper case, or null. */
export function currencyCode(value: unknown): string | null {
  return typeof value === 'string' && /^[a-z]{3}$/i.test(value.trim()) ? value.trim().toUpperCase() : null;
}

/** The valid, unexpired coupons of the lists `agentCouponLists` read, each code once. */
export function couponsFromLists(lists: readonly unknown[], now: Date): TCoupon[] {
  const coupons: TCoupon[] = [];
  for (const stored of lists) {
    const list = ZCouponList.parse(stored ?? []);
    for (const item of list) {
      const coupon = ZCoupon.safeParse(item);
      if (!coupon.success) continue;
      const expires = coupon.data.expires_at ? Date.parse(coupon.data.expires_at) : Number.POSITIVE_INFINITY;
      if (expires > now.getTime() && !coupons.some((known) => known.code === coupon.data.code)) {
        coupons.push(coupon.data);
      }
    }
  }
  return coupons;
}
