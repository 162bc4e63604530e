// The sync half of the SDK: handshake, resumable full syncs in batches, single-item deltas
// and the coupon list, against the service's /api/v1/wp/* routes (contract section A).
import {
  SYNC_BATCH_MAX,
  type TChangeResult,
  type THandshakeResponse,
  type TSyncFailure,
  ZChangeResult,
  ZCouponsResult,
  ZHandshakeResponse,
  ZSyncResult,
} from '@service/contract';
import { type ProductHashOptions, postWithContentHash, productWithContentHash } from './content-hash.js';
import { createMemoryStore } from './memory-store.js';
import { createServiceHttp } from './service-http.js';
import type { KeyValueStore, PageQuery, SiteCoupon, SitePost, SiteProduct, SiteStore } from './site-store.js';

/** What the handshake answers (`data`): workspace, agents, token with its signing secret. */
export type THandshakeData = THandshakeResponse;

/** The kinds of content a full sync pushes in batches. */
export type SyncKind = 'posts' | 'products';

/** The `state` key holding the last handshake answer (JSON). */
export const HANDSHAKE_STATE_KEY = 'handshake';

/** The `state` key of a full sync's cursor: the last accepted wp_id, as decimal text. */
export function syncCursorKey(kind: SyncKind, agentId: string): string {
  return `cursor:${kind}:${agentId}`;
}

/**
 * The `state` key of a full sync's run id: every batch of one run (resumed or not) carries it in
 * `full_sync.id`, so the service's final batch can remove what the run did not list.
 */
export function syncRunKey(kind: SyncKind, agentId: string): string {
  return `run:${kind}:${agentId}`;
}

/** How to reach the service and how patient to be. */
export type SyncClientOptions = {
  /** Base address of the service, with or without a trailing slash. */
  serviceUrl: string;
  /** The plaintext API token (`svc_…`, ability `wp:integration`); also the signing key. */
  apiToken: string;
  /** This site's address, sent as `site_url` (the service normalises it). */
  siteUrl: string;
  /** The site plugin's version, sent as `plugin_version`. */
  pluginVersion: string;
  /** Where the handshake and the sync cursors are kept; default an in-memory store. */
  state?: KeyValueStore;
  fetch?: typeof fetch;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Retries after a 429, each after its Retry-After; default 3. */
  maxRetries?: number;
  /** A longer Retry-After fails at once with SyncError 429 instead of sleeping; default 60. */
  maxRetryAfterSeconds?: number;
  /** Items per posts/products batch, 1 to 50; default 50. */
  batchSize?: number;
  /** How product hashes are computed; see {@link ProductHashOptions}. */
  productHash?: ProductHashOptions;
  /** Per request, including reading the answer; default 30000. */
  timeoutMs?: number;
};

/**
 * What a full sync did. `resumedAfter` is the wp_id it resumed after, or null for a fresh start;
 * `deleted` counts the items the service removed because this run did not list them; `failures`
 * lists the items the service did not store because their HTML could not be converted to text
 * within its limits (`failed` counts them; the rest of their batches was stored).
 */
export type SyncReport = {
  kind: SyncKind;
  batches: number;
  sent: number;
  queued: number;
  skipped_unchanged: number;
  deleted: number;
  failed: number;
  failures: TSyncFailure[];
  resumedAfter: number | null;
};

/** A post delta: upsert the full post, or delete by id. */
export type PostChange =
  | { agentId: string; action: 'upsert'; post: SitePost }
  | { agentId: string; action: 'delete'; wpId: number };

/** A product delta: upsert the full product, or delete by id. */
export type ProductChange =
  | { agentId: string; action: 'upsert'; product: SiteProduct }
  | { agentId: string; action: 'delete'; wpId: number };

/** Answer of coupons/sync: how many coupons the service now stores. */
export type CouponSyncResult = { stored: number };

/** What {@link SyncClient.syncAll} did; products and coupons are null when commerce is off. */
export type SyncAllReport = {
  posts: SyncReport;
  products: SyncReport | null;
  coupons: CouponSyncResult | null;
};

/** A full sync's arguments. `fromStart` drops a saved cursor and starts over. */
export type FullSyncRequest<K extends keyof SiteStore> = {
  agentId: string;
  store: Pick<SiteStore, K>;
  fromStart?: boolean;
};

/** The client a site uses to push its content to the service. */
export type SyncClient = {
  /** POST handshake (bearer, unsigned); stores the answer in `state` under {@link HANDSHAKE_STATE_KEY}. */
  handshake(info: { commerceActive: boolean; cmsVersion: string }): Promise<THandshakeData>;
  /** The stored `shopper_signing_secret`, for `createSitePlugin({signingSecret})`; null before a handshake. */
  signingSecret(): Promise<string | null>;
  /** The last stored handshake answer, or null. */
  storedHandshake(): Promise<THandshakeData | null>;
  /** Full, resumable sync of every post, in batches, through `store.listPosts`. */
  syncPosts(request: FullSyncRequest<'listPosts'>): Promise<SyncReport>;
  /** Full, resumable sync of every product, in batches, through `store.listProducts`. */
  syncProducts(request: FullSyncRequest<'listProducts'>): Promise<SyncReport>;
  /** Replaces the service's coupon list with this one (an empty list clears it). */
  syncCoupons(request: { agentId: string; coupons: SiteCoupon[] }): Promise<CouponSyncResult>;
  /** Posts, then (when commerce is active) products and coupons. */
  syncAll(request: {
    agentId: string;
    store: Pick<SiteStore, 'listPosts' | 'listProducts' | 'listCoupons' | 'isCommerceActive'>;
    commerceActive?: boolean;
  }): Promise<SyncAllReport>;
  /** One post saved or deleted: POST posts/changed. */
  postChanged(change: PostChange): Promise<TChangeResult>;
  /** One product saved or deleted: POST products/changed. */
  productChanged(change: ProductChange): Promise<TChangeResult>;
};

/** A run id: 128 random bits, hex (the service takes letters, digits and `._:-`, up to 100). */
function newRunId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function requireUrl(name: string, value: string): void {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw new TypeError(`createSyncClient: ${name} must be an http(s) URL, got "${value}".`);
}

function requireInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new TypeError(`createSyncClient: ${name} must be an integer from ${min} to ${max}, got ${value}.`);
  return value;
}

/** Creates a sync client; misconfiguration (bad URL, empty token, batchSize 51) throws at once. */
export function createSyncClient(options: SyncClientOptions): SyncClient {
  requireUrl('serviceUrl', options.serviceUrl);
  requireUrl('siteUrl', options.siteUrl);
  if (options.apiToken.trim() === '') throw new TypeError('createSyncClient: apiToken is empty.');
  if (options.pluginVersion.trim() === '') throw new TypeError('createSyncClient: pluginVersion is empty.');
  const batchSize = requireInteger('batchSize', options.batchSize ?? SYNC_BATCH_MAX, 1, SYNC_BATCH_MAX);
  const state = options.state ?? createMemoryStore();
  const http = createServiceHttp({
    serviceUrl: options.serviceUrl,
    apiToken: options.apiToken,
    pluginVersion: options.pluginVersion,
    fetch: options.fetch ?? globalThis.fetch,
    now: options.now ?? (() => new Date()),
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    maxRetries: requireInteger('maxRetries', options.maxRetries ?? 3, 0, 100),
    maxRetryAfterSeconds: requireInteger(
      'maxRetryAfterSeconds',
      options.maxRetryAfterSeconds ?? 60,
      0,
      86_400,
    ),
    timeoutMs: requireInteger('timeoutMs', options.timeoutMs ?? 30_000, 1, 3_600_000),
  });
  const common = (agentId: string) => ({
    agent_id: agentId,
    site_url: options.siteUrl,
    plugin_version: options.pluginVersion,
  });

  async function fullSync<TItem extends { wp_id: number }>(
    kind: SyncKind,
    agentId: string,
    list: (query: PageQuery) => Promise<TItem[]>,
    toRecord: (item: TItem) => Promise<TItem & { content_hash: string }>,
    fromStart: boolean,
  ): Promise<SyncReport> {
    const key = syncCursorKey(kind, agentId);
    const runKey = syncRunKey(kind, agentId);
    if (fromStart) {
      await state.delete(key);
      await state.delete(runKey);
    }
    const saved = Number((await state.get(key)) ?? Number.NaN);
    const savedRun = await state.get(runKey);
    const resumedAfter = Number.isSafeInteger(saved) && saved > 0 && savedRun !== null ? saved : null;
    // A fresh run gets a fresh id, saved before its first batch so a resumed run keeps it.
    const runId = resumedAfter !== null && savedRun !== null ? savedRun : newRunId();
    if (runId !== savedRun) await state.set(runKey, runId);
    const report: SyncReport = {
      kind,
      batches: 0,
      sent: 0,
      queued: 0,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 0,
      failures: [],
      resumedAfter,
    };
    let afterId = resumedAfter ?? 0;
    // One page is read ahead, so the last batch with items is the one marked final (an empty
    // listing sends one empty final batch: the site has none of these items left).
    let page = (await list({ afterId, limit: batchSize })).slice(0, batchSize);
    for (;;) {
      // Extra items are left for the next page rather than sent as an oversized batch.
      const items = page;
      let previous = afterId;
      for (const item of items) {
        if (!(item.wp_id > previous))
          throw new TypeError(
            `store.list${kind === 'posts' ? 'Posts' : 'Products'} must return wp_id greater than afterId, ` +
              `ascending (PageQuery); got ${item.wp_id} after ${previous}.`,
          );
        previous = item.wp_id;
      }
      const next =
        items.length === 0 ? [] : (await list({ afterId: previous, limit: batchSize })).slice(0, batchSize);
      const final = next.length === 0;
      const records = await Promise.all(items.map(toRecord));
      const result = await http.post(
        `/api/v1/wp/${kind}/sync`,
        { ...common(agentId), [kind]: records, full_sync: { id: runId, final } },
        ZSyncResult,
        {
          signed: true,
          agentId,
          describeItem: (listName, index) => {
            const record = listName === kind ? records[index] : undefined;
            return record ? `wp_id ${record.wp_id}` : undefined;
          },
        },
      );
      report.batches += 1;
      report.sent += records.length;
      report.queued += result.queued;
      report.skipped_unchanged += result.skipped_unchanged;
      report.deleted += result.deleted;
      report.failed += result.failed;
      report.failures.push(...result.failures);
      afterId = previous;
      if (final) break;
      // Saved only once the service accepted the batch, so a crash resends at most this batch.
      await state.set(key, String(afterId));
      page = next;
    }
    await state.delete(key);
    await state.delete(runKey);
    return report;
  }

  const client: SyncClient = {
    async handshake(info) {
      const data = await http.post(
        '/api/v1/wp/handshake',
        {
          site_url: options.siteUrl,
          plugin_version: options.pluginVersion,
          commerce_active: info.commerceActive,
          cms_version: info.cmsVersion,
        },
        ZHandshakeResponse,
        { signed: false },
      );
      await state.set(HANDSHAKE_STATE_KEY, JSON.stringify(data));
      return data;
    },

    async storedHandshake() {
      const stored = await state.get(HANDSHAKE_STATE_KEY);
      if (stored === null) return null;
      try {
        const parsed = ZHandshakeResponse.safeParse(JSON.parse(stored));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    },

    async signingSecret() {
      const secret = (await client.storedHandshake())?.token.shopper_signing_secret;
      return secret ? secret : null;
    },

    syncPosts({ agentId, store, fromStart = false }) {
      return fullSync('posts', agentId, (query) => store.listPosts(query), postWithContentHash, fromStart);
    },

    syncProducts({ agentId, store, fromStart = false }) {
      const toRecord = (product: SiteProduct) => productWithContentHash(product, options.productHash);
      return fullSync('products', agentId, (query) => store.listProducts(query), toRecord, fromStart);
    },

    syncCoupons({ agentId, coupons }) {
      return http.post('/api/v1/wp/coupons/sync', { ...common(agentId), coupons }, ZCouponsResult, {
        signed: true,
        agentId,
      });
    },

    async syncAll({ agentId, store, commerceActive }) {
      const posts = await client.syncPosts({ agentId, store });
      if (!(commerceActive ?? (await store.isCommerceActive())))
        return { posts, products: null, coupons: null };
      const products = await client.syncProducts({ agentId, store });
      const coupons = await client.syncCoupons({ agentId, coupons: await store.listCoupons() });
      return { posts, products, coupons };
    },

    async postChanged(change) {
      const item =
        change.action === 'upsert' ? await postWithContentHash(change.post) : { wp_id: change.wpId };
      return http.post(
        '/api/v1/wp/posts/changed',
        { ...common(change.agentId), action: change.action, posts: [item] },
        ZChangeResult,
        { signed: true, agentId: change.agentId, describeItem: () => `wp_id ${item.wp_id}` },
      );
    },

    async productChanged(change) {
      const item =
        change.action === 'upsert'
          ? await productWithContentHash(change.product, options.productHash)
          : { wp_id: change.wpId };
      return http.post(
        '/api/v1/wp/products/changed',
        { ...common(change.agentId), action: change.action, products: [item] },
        ZChangeResult,
        { signed: true, agentId: change.agentId, describeItem: () => `wp_id ${item.wp_id}` },
      );
    },
  };
  return client;
}
