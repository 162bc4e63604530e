import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  COMMERCE_INACTIVE_NOTE,
  DEFAULT_PLUGIN_PREFIX,
  SIGNATURE_HEADER,
  type SignatureCheck,
  STAGED_COUPON_TTL_SECONDS,
  type TOrder,
  type TPluginRoute,
  verifySignature,
  ZCartCouponRequest,
  ZLeadPushRequest,
  ZOrdersLookupRequest,
} from '@service/contract';
import { newId } from '../../src/security/ids.js';
import { createSite, type Site, samplePost, sampleProduct, target, wpPost } from './site-sync.js';
import type { TestApp } from './test-app.js';

// A loopback stand-in for a customer's site running the plugin: the three routes of contract
// section B with the plugin's verification order, real coupon staging, and a request log. It
// binds to 127.0.0.1 only; tests reach it through SAFE_URL_ALLOW.

/** A request the site verified and answered (refused ones are only counted). */
export type AcceptedRequest = { route: string; body: unknown; signature: string };

/** What a test can set and read on the fake site. */
export type FakeSite = {
  /** `http://127.0.0.1:<port>`: the site_url a sync reports. */
  siteUrl: string;
  /** The SAFE_URL_ALLOW entry that lets the guard through to it. */
  allowEntry: string;
  /** `{plugin_base}` of the site. */
  pluginBase: string;
  /** The plugin's stored shopper_signing_secret; '' answers plugin_unconfigured. */
  secret: string;
  commerceActive: boolean;
  /** Coupon codes that exist on the site. */
  coupons: Set<string>;
  /** Orders by wp_user_id; a lookup returns only the asked user's. */
  orders: Map<number, TOrder[]>;
  /** The site's clock (unix seconds): signature window and coupon staging. */
  now: () => number;
  /** Routes that take the request and never answer (timeout tests). */
  hang: Set<TPluginRoute>;
  /** A canned answer for a route, after the signature check passed (5xx, garbage, …). */
  canned: Map<TPluginRoute, Answer>;
  /** Every request the site verified and answered, in order. */
  accepted: AcceptedRequest[];
  /** How many requests reached the site at all (refused ones included). */
  received: () => number;
  /** Site users created by lead pushes, by lower-cased email. */
  users: Map<string, number>;
  /** The coupon staged for a conversation, or null (none, or its 15 minutes are over). */
  stagedCoupon(conversationId: string): string | null;
  /** Closes every open connection (e.g. one a hanging route holds) and keeps listening. */
  dropConnections(): void;
  close(): Promise<void>;
};

/** Starts the fake site on 127.0.0.1 with a random port. */
export async function startFakeSite(options: {
  secret: string;
  commerceActive?: boolean;
  coupons?: string[];
  orders?: Record<number, TOrder[]>;
  now?: () => number;
}): Promise<FakeSite> {
  const staged = new Map<string, { code: string; expiresAt: number }>();
  let received = 0;
  let nextUserId = 1000;
  const site: Omit<FakeSite, 'siteUrl' | 'allowEntry' | 'pluginBase' | 'dropConnections' | 'close'> = {
    secret: options.secret,
    commerceActive: options.commerceActive ?? true,
    coupons: new Set(options.coupons ?? []),
    orders: new Map(Object.entries(options.orders ?? {}).map(([id, list]) => [Number(id), list])),
    now: options.now ?? (() => Math.floor(Date.now() / 1000)),
    hang: new Set(),
    canned: new Map(),
    accepted: [],
    received: () => received,
    users: new Map(),
    stagedCoupon(conversationId) {
      const entry = staged.get(conversationId);
      if (!entry) return null;
      if (entry.expiresAt <= site.now()) {
        staged.delete(conversationId);
        return null;
      }
      return entry.code;
    },
  };

  const routes: Record<TPluginRoute, (body: unknown) => Answer> = {
    'orders/lookup'(body) {
      const request = ZOrdersLookupRequest.safeParse(body);
      if (!request.success) return invalid();
      if (!site.commerceActive) {
        return ok({ count: 0, orders: [], note: COMMERCE_INACTIVE_NOTE });
      }
      const { wp_user_id: userId, limit, order_number: number } = request.data;
      const mine = (site.orders.get(userId) ?? []).filter((order) => !number || order.number === number);
      const orders = mine.slice(0, limit);
      return ok({ count: orders.length, orders });
    },
    leads(body) {
      const request = ZLeadPushRequest.safeParse(body);
      if (!request.success) return invalid();
      const email = request.data.email.toLowerCase();
      let userId = site.users.get(email);
      if (userId === undefined) {
        nextUserId += 1;
        userId = nextUserId;
        site.users.set(email, userId);
      }
      return ok({ user_id: userId });
    },
    'cart/coupon'(body) {
      const request = ZCartCouponRequest.safeParse(body);
      if (!request.success) return invalid();
      if (!site.commerceActive) return error(400, 'commerce_inactive', 'The shop is not active.');
      const { code, conversation_id: conversationId } = request.data;
      if (!site.coupons.has(code)) return error(400, 'invalid_coupon', 'The coupon code does not exist.');
      staged.set(conversationId, { code, expiresAt: site.now() + STAGED_COUPON_TTL_SECONDS });
      return ok({ applied: false, pending: true, message: `${code} will be applied to your next cart.` });
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    received += 1;
    const raw = await readBody(req);
    const route = routeOf(req);
    if (route === null || req.method !== 'POST') return send(res, error(404, 'rest_no_route', 'No route.'));
    // The plugin's verification order (contract, "Authentication").
    const header = req.headers[SIGNATURE_HEADER];
    const signature = typeof header === 'string' ? header : '';
    if (signature === '') return send(res, error(401, 'missing_signature', 'Signature missing.'));
    if (site.secret === '') return send(res, error(401, 'plugin_unconfigured', 'No signing secret.'));
    const check: SignatureCheck = verifySignature({
      header: signature,
      key: site.secret,
      body: raw,
      now: site.now,
    });
    if (check !== 'ok') return send(res, error(401, 'signature_mismatch', 'Signature mismatch.'));
    if (site.hang.has(route)) return; // keeps the socket open; close() ends it
    const canned = site.canned.get(route);
    const answer = canned ?? routes[route](parseJson(raw));
    site.accepted.push({ route, body: parseJson(raw), signature });
    send(res, answer);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const siteUrl = `http://127.0.0.1:${address.port}`;
  return Object.assign(site, {
    siteUrl,
    allowEntry: `127.0.0.1:${address.port}`,
    pluginBase: `${siteUrl}${DEFAULT_PLUGIN_PREFIX}`,
    dropConnections: () => server.closeAllConnections(),
    close: () => closeServer(server),
  });
}

/** What a webhook endpoint received, with the signature verified against its secret. */
export type ReceivedDelivery = {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: unknown;
  signature: SignatureCheck;
};

/** A loopback webhook endpoint: answers `status`, verifies X-Service-Signature with `secret`. */
export type WebhookReceiver = {
  url: string;
  allowEntry: string;
  /** The webhook's secret, set once the webhook is created. */
  secret: string;
  status: number;
  deliveries: ReceivedDelivery[];
  close(): Promise<void>;
};

/** Starts a webhook receiver on 127.0.0.1 answering 200 until told otherwise. */
export async function startWebhookReceiver(path = '/hooks/leads'): Promise<WebhookReceiver> {
  const receiver: Omit<WebhookReceiver, 'url' | 'allowEntry' | 'close'> = {
    secret: '',
    status: 200,
    deliveries: [],
  };
  const server = createServer((req, res) => {
    readBody(req)
      .then((raw) => {
        const header = req.headers[SIGNATURE_HEADER];
        receiver.deliveries.push({
          headers: req.headers,
          raw,
          body: parseJson(raw),
          signature: verifySignature({
            header: typeof header === 'string' ? header : undefined,
            key: receiver.secret,
            body: raw,
          }),
        });
        res.writeHead(receiver.status, { 'content-type': 'text/plain' });
        res.end('ok');
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${address.port}${path}`,
    allowEntry: `127.0.0.1:${address.port}`,
    close: () => closeServer(server),
  });
}

/** An answer of the fake site: status, body and extra headers (e.g. `location`). */
export type Answer = { status: number; body: string; headers?: Record<string, string> };

function ok(data: unknown): Answer {
  return { status: 200, body: JSON.stringify({ data }) };
}

function error(status: number, code: string, message: string): Answer {
  return { status, body: JSON.stringify({ error: { code, message } }) };
}

function invalid(): Answer {
  return error(400, 'rest_invalid_param', 'Invalid parameter(s).');
}

function send(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, { 'content-type': 'application/json; charset=UTF-8', ...answer.headers });
  res.end(answer.body);
}

function routeOf(req: IncomingMessage): TPluginRoute | null {
  const path = new URL(req.url ?? '/', 'http://site.invalid').pathname;
  if (!path.startsWith(DEFAULT_PLUGIN_PREFIX)) return null;
  const rest = path.slice(DEFAULT_PLUGIN_PREFIX.length);
  return rest === 'orders/lookup' || rest === 'leads' || rest === 'cart/coupon' ? rest : null;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** A contract-shaped order with id (and number) `id`; `overrides` may change each field. */
export function sampleOrder(id: number, overrides: Partial<TOrder> = {}): TOrder {
  return {
    id,
    number: String(id),
    status: 'processing',
    total: '59.80',
    currency: 'EUR',
    date_created: '2026-10-01T09:30:00+02:00',
    items: [{ name: 'Trail Shoe', qty: 2, sku: 'SKU-1', total: '59.80' }],
    tracking_url: '',
    order_url: `https://shop.example.com/my-account/view-order/${id}/`,
    ...overrides,
  };
}

/** A workspace and agent whose site (the fake) synced once, so the service can call it. */
export type ConnectedSite = Site & { secret: string; sourceId: string };

/**
 * Seeds a workspace, an agent and a `wp:integration` token (`createSite`), syncs one post from
 * `site.siteUrl` (or `products` with `type`) so a source with its plugin_base exists, and gives
 * the fake site the token's shopper_signing_secret.
 */
export async function connectSite(
  t: TestApp,
  site: FakeSite,
  options: { existing?: Site; type?: 'site' | 'products' } = {},
): Promise<ConnectedSite> {
  const created = options.existing ?? (await createSite(t));
  const isProducts = options.type === 'products';
  const res = await wpPost(t, isProducts ? 'products/sync' : 'posts/sync', created.token, {
    ...target(created.agentId, site.siteUrl),
    ...(isProducts ? { products: [sampleProduct(1)] } : { posts: [samplePost(1)] }),
  });
  assert.equal(res.statusCode, 200, res.body);
  const token = await t.database.db
    .selectFrom('api_tokens')
    .select('shopper_signing_secret')
    .where('id', '=', created.tokenId)
    .executeTakeFirstOrThrow();
  const source = await t.database.db
    .selectFrom('sources')
    .select('id')
    .where('agent_id', '=', created.agentId)
    .where('site_url', '=', site.siteUrl)
    .where('type', '=', isProducts ? 'products' : 'site')
    .executeTakeFirstOrThrow();
  site.secret = token.shopper_signing_secret;
  return { ...created, secret: token.shopper_signing_secret, sourceId: source.id };
}

/** A visitor with one conversation for an agent, as widget init would leave them. */
export async function seedVisitor(
  t: TestApp,
  site: Site,
): Promise<{ visitorId: string; conversationId: string }> {
  const visitorId = newId();
  const conversationId = newId();
  const workspaceId = site.tenant.workspace.id;
  await t.database.db
    .insertInto('visitors')
    .values({
      id: visitorId,
      workspace_id: workspaceId,
      agent_id: site.agentId,
      anon_id: `anon-${visitorId}`,
    })
    .execute();
  await t.database.db
    .insertInto('conversations')
    .values({ id: conversationId, workspace_id: workspaceId, agent_id: site.agentId, visitor_id: visitorId })
    .execute();
  return { visitorId, conversationId };
}
