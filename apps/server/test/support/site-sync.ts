import { createHash } from 'node:crypto';
import { after, before } from 'node:test';
import { signRequest, ZAgent } from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { indexDocumentJob } from '../../src/jobs/index-document.js';
import { createLogger } from '../../src/logger.js';
import { expectData, tokenIdOf } from './http.js';
import { createTestApp, injectJson, issueToken, seedTenant, type Tenant, type TestApp } from './test-app.js';

/** Prefix of the site-integration routes. */
export const WP = '/api/v1/wp';

/** The routes that must carry an X-Service-Signature. */
export const SIGNED_ROUTES = [
  'posts/sync',
  'posts/changed',
  'products/sync',
  'products/changed',
  'coupons/sync',
] as const;
export type SignedRoute = (typeof SIGNED_ROUTES)[number];

export const SITE_URL = 'https://shop.example.com';
export const PLUGIN_VERSION = '1.2.0';

/** Env for files that send more than the default 60 requests per token and minute. */
export const UNTHROTTLED = { WP_THROTTLE_PER_MINUTE: '100000' };

/** A loose JSON object: factories return these so tests can break any field. */
export type Json = Record<string, unknown>;

/** Unix seconds of the system clock. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/** A 64-digit hex digest derived from `seed` (a stable content_hash). */
export function hexHash(seed: string | number): string {
  return createHash('sha256').update(String(seed)).digest('hex');
}

/** A copy of `object` without `key`. */
export function without(object: Json, key: string): Json {
  return Object.fromEntries(Object.entries(object).filter(([name]) => name !== key));
}

/** How to sign: the key (default: the bearer), the timestamp, a verbatim header (null: none), other signed bytes. */
export type SignOptions = {
  key?: string;
  timestamp?: number;
  header?: string | null;
  signedBody?: string;
  raw?: string;
};

/** The integers `from`, `from + 1`, … (`count` of them), e.g. wp_ids for a batch. */
export const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/** POSTs `body` to `/api/v1/wp/<path>` with the bearer and (by default) a valid signature. */
export function wpPost(
  t: TestApp,
  path: string,
  token: string | null,
  body: unknown,
  options: SignOptions = {},
): Promise<LightMyRequestResponse> {
  const raw = options.raw ?? JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const header =
    options.header !== undefined
      ? options.header
      : signRequest(options.key ?? token ?? '', options.signedBody ?? raw, options.timestamp ?? unixNow());
  if (header !== null) headers['x-service-signature'] = header;
  return t.app.inject({ method: 'POST', url: `${WP}/${path}`, headers, payload: raw });
}

/** A workspace with an integration token and one agent. */
export type Site = { tenant: Tenant; token: string; tokenId: string; agentId: string };

/** Creates an agent through the admin API; returns its id. */
export async function createAgent(t: TestApp, tenant: Tenant, body: Json = {}): Promise<string> {
  const res = await injectJson(
    t.app,
    'POST',
    '/api/v1/admin/agents',
    { name: 'Shop bot', ...body },
    tenant.auth,
  );
  return expectData(res, 201, ZAgent).id;
}

/** Seeds a workspace, an agent (generic unless told) and a `wp:integration` token. */
export async function createSite(t: TestApp, agent: Json = {}, name?: string): Promise<Site> {
  const tenant = await seedTenant(t, name);
  const agentId = await createAgent(t, tenant, agent);
  const token = (await issueToken(t, tenant, ['wp:integration'])).token;
  return { tenant, token, tokenId: await tokenIdOf(t, token), agentId };
}

/** A valid post; `overrides` may set any field to anything. */
export function samplePost(wpId: number, overrides: Json = {}): Json {
  return {
    wp_id: wpId,
    post_type: 'post',
    permalink: `${SITE_URL}/post-${wpId}`,
    title: `Post ${wpId}`,
    content_html: `<h2>Post ${wpId}</h2><p>Body of post number ${wpId} about returns and refunds.</p>`,
    excerpt: '',
    content_hash: hexHash(`post-${wpId}`),
    modified_at: '2026-11-01T10:00:00+00:00',
    language: 'en',
    taxonomy_terms: ['news'],
    ...overrides,
  };
}

/** A valid product; `overrides` may set any field to anything. */
export function sampleProduct(wpId: number, overrides: Json = {}): Json {
  return {
    wp_id: wpId,
    sku: `SKU-${wpId}`,
    name: `Trail Shoe ${wpId}`,
    permalink: `${SITE_URL}/product/trail-shoe-${wpId}`,
    image_url: `${SITE_URL}/img/${wpId}.jpg`,
    short_description: '<p>Light trail runner.</p>',
    description: '<p>Grippy <strong>Vibram</strong> sole for wet rock.</p>',
    price: '89.90',
    regular_price: '99.90',
    sale_price: '89.90',
    currency: 'EUR',
    stock_status: 'instock',
    on_sale: true,
    content_hash: hexHash(`product-${wpId}`),
    modified_at: '2026-11-01T10:00:00+02:00',
    categories: ['Shoes', 'Running'],
    attributes: ['Size: 40, 41, 42', 'Colour: Red'],
    ...overrides,
  };
}

/** A valid coupon. */
export function sampleCoupon(code: string, overrides: Json = {}): Json {
  return {
    code,
    label: `${code} label`,
    discount: '10%',
    expires_at: '2026-12-31T23:59:59+00:00',
    ...overrides,
  };
}

/** The common part of every sync body. */
export function target(agentId: string, siteUrl: string = SITE_URL): Json {
  return { agent_id: agentId, site_url: siteUrl, plugin_version: PLUGIN_VERSION };
}

/** How many `index-document` jobs wait in state `created`. */
export async function queuedJobs(t: TestApp): Promise<number> {
  return t.queue.countJobs('index-document', 'created');
}

/** The documents of an agent, by external id. */
export function documentsOf(t: TestApp, agentId: string) {
  return t.database.db
    .selectFrom('documents')
    .selectAll()
    .where('agent_id', '=', agentId)
    .orderBy('source_id')
    .orderBy('external_id')
    .execute();
}

/** The sources of an agent. */
export function sourcesOf(t: TestApp, agentId: string) {
  return t.database.db
    .selectFrom('sources')
    .selectAll()
    .where('agent_id', '=', agentId)
    .orderBy('id')
    .execute();
}

/** The chunks of a document, in order. */
export function chunksOf(t: TestApp, documentId: string) {
  return t.database.db
    .selectFrom('chunks')
    .selectAll()
    .where('document_id', '=', documentId)
    .orderBy('ordinal')
    .execute();
}

/** An agent's stored site_type. */
export async function siteTypeOf(t: TestApp, agentId: string): Promise<string> {
  const row = await t.database.db
    .selectFrom('agents')
    .select('site_type')
    .where('id', '=', agentId)
    .executeTakeFirstOrThrow();
  return row.site_type;
}

/** Runs the index job's handler in-process, as a worker would. */
export function runIndexJob(t: TestApp, documentId: string): Promise<void> {
  return indexDocumentJob.handle(
    { documentId },
    {
      db: t.database.db,
      clock: t.clock,
      log: createLogger('silent'),
      jobId: 'test',
      attempt: 1,
      queue: t.queue,
    },
  );
}

/**
 * Everything a site-integration request could change (tokens without `last_used_at`, which
 * authentication itself touches), for before/after comparisons.
 */
export async function snapshot(t: TestApp) {
  const db = t.database.db;
  const [sources, documents, chunks, agents, tokens, audit, workspaces] = await Promise.all([
    db.selectFrom('sources').selectAll().orderBy('id').execute(),
    db.selectFrom('documents').selectAll().orderBy('id').execute(),
    db.selectFrom('chunks').selectAll().orderBy('id').execute(),
    db.selectFrom('agents').selectAll().orderBy('id').execute(),
    db.selectFrom('api_tokens').selectAll().orderBy('id').execute(),
    db.selectFrom('audit_logs').selectAll().orderBy('id').execute(),
    db.selectFrom('workspaces').selectAll().orderBy('id').execute(),
  ]);
  return {
    sources,
    documents,
    chunks,
    agents,
    tokens: tokens.map((row) => ({ ...row, last_used_at: null })),
    audit,
    workspaces,
    jobs: await queuedJobs(t),
  };
}

/** The kinds of item a sync route takes, by route: `posts/sync` takes `posts`, and so on. */
export type SyncKind = 'posts' | 'products' | 'coupons';

/** A site-sync test file's app and site, with its requests; the functions are safe to destructure. */
export type SiteSyncApp = {
  readonly t: TestApp;
  readonly site: Site;
  /** A new agent in the site's workspace, so a test starts from no documents. */
  freshAgent(body?: Json): Promise<string>;
  /** {@link wpPost} with the site's token: `body` as given, signed unless `options` say otherwise. */
  post(path: string, body: unknown, options?: SignOptions): Promise<LightMyRequestResponse>;
  /** POSTs `<kind>/sync` for `agentId` with the site's token, signed; `extra` adds or overrides fields. */
  sync(kind: SyncKind, agentId: string, items: unknown[], extra?: Json): Promise<LightMyRequestResponse>;
  /** POSTs `<kind>/changed` (`posts` or `products`) with `action` and `item`'s fields, signed. */
  changed(
    kind: 'posts' | 'products',
    agentId: string,
    action: string,
    item: Json,
  ): Promise<LightMyRequestResponse>;
};

/**
 * Registers the `before`/`after` hooks of a site-sync test file (or describe block): a test app
 * (env {@link UNTHROTTLED} unless `env` is given), and a site from {@link createSite} made with
 * `agent` and `workspace`. Hooks the caller registers afterwards run once the site exists.
 */
export function siteSyncApp(
  options: { env?: Record<string, string>; now?: () => Date; agent?: Json; workspace?: string } = {},
): SiteSyncApp {
  let started: { t: TestApp; site: Site } | undefined;
  const state = () => {
    if (!started)
      throw new Error('the site-sync test app is not started yet (use it inside tests and hooks)');
    return started;
  };
  before(async () => {
    const t = await createTestApp({
      env: options.env ?? UNTHROTTLED,
      ...(options.now ? { clock: { now: options.now } } : {}),
    });
    started = { t, site: await createSite(t, options.agent, options.workspace) };
  });
  after(() => started?.t.close());
  return {
    get t() {
      return state().t;
    },
    get site() {
      return state().site;
    },
    freshAgent: (body: Json = {}) => createAgent(state().t, state().site.tenant, body),
    post: (path, body, signing) => wpPost(state().t, path, state().site.token, body, signing),
    sync: (kind, agentId, items, extra = {}) =>
      wpPost(state().t, `${kind}/sync`, state().site.token, { ...target(agentId), [kind]: items, ...extra }),
    changed: (kind, agentId, action, item) =>
      wpPost(state().t, `${kind}/changed`, state().site.token, { ...target(agentId), action, ...item }),
  };
}
