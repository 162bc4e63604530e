// A loopback fake of the service's /api/v1/wp/* routes for the sync client's tests. It checks
// what the real one checks, in the same order (bearer, signature over the raw bytes with the
// contract's verifier, body schema, agent id), and records every request and accepted batch.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';
import {
  type SignatureCheck,
  verifySignature,
  ZCouponsSync,
  ZHandshakeRequest,
  ZPostsChanged,
  ZPostsSync,
  ZProductsChanged,
  ZProductsSync,
} from '@service/contract';
import type { SiteCoupon, SitePost, SiteProduct } from '../src/site-store.js';

/** The token the fake accepts, and the agent it knows. */
export const TEST_TOKEN = 'svc_TestTokenForTheSyncClient_0123456789abcdef';
export const TEST_SECRET = 'a'.repeat(64);
export const AGENT_ID = '01JBX8Q3V2M7K9T4R6W1Y5Z0AC';
export const SITE_URL = 'https://shop.example.com';

/** One request as the fake received it. */
export type RecordedRequest = {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  json: unknown;
  signature: SignatureCheck | null;
};

/** A canned answer a test forces instead of the normal handling. */
export type Override = { status: number; body?: string | object; headers?: Record<string, string> };

/** A running fake service. */
export type FakeService = {
  url: string;
  requests: RecordedRequest[];
  /** wp_ids of every accepted posts/sync or products/sync batch, in order, with its `full_sync`. */
  batches: {
    kind: 'posts' | 'products';
    ids: number[];
    fullSync: { id: string; final: boolean } | null;
  }[];
  /** Accepted delta bodies, as parsed by the contract. */
  changes: unknown[];
  coupons: unknown[] | null;
  /** Called for each request (after recording, before auth); an Override answers it. */
  intercept: ((request: RecordedRequest) => Override | undefined) | null;
  close(): Promise<void>;
};

type Issue = { path: readonly PropertyKey[]; message: string };

function validationEnvelope(issues: readonly Issue[]) {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    errors[path] = [...(errors[path] ?? []), `The ${path} field is invalid: ${issue.message}`];
  }
  return { message: 'The given data was invalid.', code: 'validation_failed', errors };
}

const envelope = (code: string, message: string) => ({ message, code, errors: {} });

/** Starts the fake on 127.0.0.1 and a free port. `now` is the verifier's clock (unix seconds). */
export async function startFakeService(options: { now?: () => number } = {}): Promise<FakeService> {
  const hashes = new Map<string, string>();
  const runs = new Map<string, Set<string>>();
  const fake: FakeService = {
    url: '',
    requests: [],
    batches: [],
    changes: [],
    coupons: null,
    intercept: null,
    close: async () => {},
  };

  const handle = (request: RecordedRequest): Override => {
    const forced = fake.intercept?.(request);
    if (forced) return forced;
    if (request.headers.authorization !== `Bearer ${TEST_TOKEN}`)
      return { status: 401, body: envelope('unauthenticated', 'Unauthenticated.') };
    const route = request.path.replace(/^\/api\/v1\/wp\//, '');
    if (route !== 'handshake') {
      const check = verifySignature({
        header: request.headers['x-service-signature']?.toString() ?? null,
        key: TEST_TOKEN,
        body: request.rawBody,
        ...(options.now ? { now: options.now } : {}),
      });
      request.signature = check;
      if (check === 'missing') return { status: 401, body: envelope('missing_signature', 'Missing.') };
      if (check === 'mismatch') return { status: 401, body: envelope('signature_mismatch', 'Mismatch.') };
    }
    if (request.json === undefined) return { status: 400, body: envelope('malformed_json', 'Bad JSON.') };
    const schemas = {
      handshake: ZHandshakeRequest,
      'posts/sync': ZPostsSync,
      'products/sync': ZProductsSync,
      'posts/changed': ZPostsChanged,
      'products/changed': ZProductsChanged,
      'coupons/sync': ZCouponsSync,
    };
    const schema = Object.entries(schemas).find(([name]) => name === route)?.[1];
    if (!schema) return { status: 404, body: envelope('not_found', 'Not found.') };
    const parsed = schema.safeParse(request.json);
    if (!parsed.success) return { status: 422, body: validationEnvelope(parsed.error.issues) };
    const body: Record<string, unknown> = parsed.data;
    if (route === 'handshake') {
      return {
        status: 200,
        body: {
          data: {
            workspace: { id: 'ws_1', name: 'Acme' },
            agents: [
              {
                id: AGENT_ID,
                name: 'Support',
                site_type: 'generic',
                language_default: 'en',
                is_published: true,
              },
            ],
            token: {
              id: 'tok_1',
              name: 'site plugin',
              abilities: ['wp:integration'],
              shopper_signing_secret: TEST_SECRET,
            },
            recommended_site_type: body.commerce_active ? 'ecommerce' : null,
            echo: { site_url: body.site_url, plugin_version: body.plugin_version },
          },
        },
      };
    }
    if (body.agent_id !== AGENT_ID) return { status: 404, body: envelope('not_found', 'Not found.') };
    if (route === 'posts/sync' || route === 'products/sync') {
      const kind = route === 'posts/sync' ? 'posts' : 'products';
      const parsed = kind === 'posts' ? ZPostsSync.parse(request.json) : ZProductsSync.parse(request.json);
      const items: { wp_id: number; content_hash: string }[] =
        'posts' in parsed ? parsed.posts : parsed.products;
      const fullSync = parsed.full_sync ? { id: parsed.full_sync.id, final: parsed.full_sync.final } : null;
      let queued = 0;
      for (const item of items) {
        const key = `${kind}:${item.wp_id}`;
        if (hashes.get(key) === item.content_hash) continue;
        hashes.set(key, item.content_hash);
        queued += 1;
      }
      fake.batches.push({ kind, ids: items.map((item) => item.wp_id), fullSync });
      // Full sync runs as the service keeps them: the final batch removes what the run did not list.
      let deleted = 0;
      if (fullSync) {
        const listed = runs.get(fullSync.id) ?? new Set<string>();
        for (const item of items) listed.add(`${kind}:${item.wp_id}`);
        runs.set(fullSync.id, listed);
        if (fullSync.final) {
          for (const key of [...hashes.keys()]) {
            if (key.startsWith(`${kind}:`) && !listed.has(key)) {
              hashes.delete(key);
              deleted += 1;
            }
          }
          runs.delete(fullSync.id);
        }
      }
      return {
        status: 200,
        body: { data: { queued, skipped_unchanged: items.length - queued, deleted } },
      };
    }
    if (route === 'coupons/sync') {
      const coupons = ZCouponsSync.parse(request.json).coupons;
      fake.coupons = coupons;
      return { status: 200, body: { data: { stored: coupons.length } } };
    }
    fake.changes.push(body);
    const kind = route === 'posts/changed' ? 'posts' : 'products';
    const change = (kind === 'posts' ? ZPostsChanged : ZProductsChanged).parse(request.json).change;
    const counts = { queued: 0, skipped_unchanged: 0, deleted: 0 };
    if (change.action === 'delete') {
      const key = `${kind}:${change.wp_id}`;
      const existed = hashes.delete(key);
      return {
        status: 200,
        body: {
          data: {
            ...counts,
            deleted: existed ? 1 : 0,
            action: 'delete',
            result: existed ? 'deleted' : 'not_found',
          },
        },
      };
    }
    const key = `${kind}:${change.item.wp_id}`;
    const isSame = hashes.get(key) === change.item.content_hash;
    hashes.set(key, change.item.content_hash);
    const result = isSame ? 'skipped_unchanged' : 'queued';
    return { status: 200, body: { data: { ...counts, [result]: 1, action: 'upsert', result } } };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(rawBody.toString('utf8'));
      } catch {
        json = undefined;
      }
      const recorded: RecordedRequest = {
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        json,
        signature: null,
      };
      fake.requests.push(recorded);
      const answer = handle(recorded);
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status, {
        'content-type': typeof answer.body === 'string' ? 'text/html' : 'application/json',
        'x-request-id': `req_${fake.requests.length}`,
        ...answer.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  fake.url = `http://127.0.0.1:${address.port}`;
  fake.close = () =>
    new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  return fake;
}

/** The fake's requests to one route (`posts/sync`). */
export function requestsTo(fake: FakeService, route: string): RecordedRequest[] {
  return fake.requests.filter((request) => request.path === `/api/v1/wp/${route}`);
}

/** A valid post with id `id`. */
export function makePost(id: number, overrides: Partial<SitePost> = {}): SitePost {
  return {
    wp_id: id,
    post_type: 'post',
    permalink: `${SITE_URL}/p/${id}/`,
    title: `Post ${id}`,
    content_html: `<p>Body of post ${id}: café ✓</p>`,
    excerpt: '',
    modified_at: '2026-11-01T10:00:00+00:00',
    language: 'en',
    taxonomy_terms: ['news', 'shop'],
    ...overrides,
  };
}

/** A valid product with id `id`. */
export function makeProduct(id: number, overrides: Partial<SiteProduct> = {}): SiteProduct {
  return {
    wp_id: id,
    sku: `SKU-${id}`,
    name: `Product ${id}`,
    permalink: `${SITE_URL}/product/${id}/`,
    image_url: `${SITE_URL}/img/${id}.jpg`,
    short_description: '<p>Short</p>',
    description: '<p>Long description</p>',
    price: '19.90',
    regular_price: '24.90',
    sale_price: '19.90',
    currency: 'EUR',
    stock_status: 'instock',
    on_sale: true,
    modified_at: '2026-11-01T10:00:00+00:00',
    categories: ['shoes', 'sale'],
    attributes: ['Color: red, blue', 'Size: 42'],
    ...overrides,
  };
}

/** A site store over fixed lists, listing by cursor as {@link PageQuery} says. */
export function makeStore(content: {
  posts?: SitePost[];
  products?: SiteProduct[];
  coupons?: SiteCoupon[];
  commerce?: boolean;
}) {
  const page = <T extends { wp_id: number }>(items: T[], query: { afterId: number; limit: number }) =>
    items.filter((item) => item.wp_id > query.afterId).slice(0, query.limit);
  const listed: { kind: string; afterId: number; limit: number }[] = [];
  return {
    listed,
    isCommerceActive: () => content.commerce ?? false,
    listPosts: async (query: { afterId: number; limit: number }) => {
      listed.push({ kind: 'posts', ...query });
      return page(content.posts ?? [], query);
    },
    listProducts: async (query: { afterId: number; limit: number }) => {
      listed.push({ kind: 'products', ...query });
      return page(content.products ?? [], query);
    },
    listCoupons: async () => content.coupons ?? [],
  };
}

/** Posts 1..n. */
export function posts(n: number): SitePost[] {
  return Array.from({ length: n }, (_, index) => makePost(index + 1));
}

/**
 * Starts one fake service for a test file (hands it to `use`), closes it after, and clears what
 * it recorded (requests, batches, an interception) before each test.
 */
export function useFakeService(use: (service: FakeService) => void): void {
  let started: FakeService | null = null;
  before(async () => {
    started = await startFakeService();
    use(started);
  });
  after(() => started?.close());
  beforeEach(() => {
    if (!started) return;
    started.requests.length = 0;
    started.batches.length = 0;
    started.intercept = null;
  });
}
