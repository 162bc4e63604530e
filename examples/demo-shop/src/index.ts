// startDemoShop: a small coffee shop on node:http with its own embedded database, the SDK's plugin
// routes mounted first, its content pushed to the service and the widget on every page.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import {
  createSitePlugin,
  createSyncClient,
  type SitePlugin,
  type SyncAllReport,
  type SyncClient,
  SyncError,
  type THandshakeData,
} from '@service/site-plugin';
import { openShopDatabase } from './database.js';
import { createDatabaseKvStore } from './kv-store.js';
import { DEFAULT_SEED, type SeedSize, seedShop } from './seed.js';
import { type Customer, listCustomers } from './shop-queries.js';
import { createShopHandler } from './shop-server.js';
import { type CartRef, createShopStore } from './store.js';

// The types a caller of startDemoShop meets.
export type { Customer } from './shop-queries.js';
export type { CartRef } from './store.js';

/** How to start the demo shop. */
export type DemoShopOptions = {
  /** The service's base address, e.g. `http://localhost:8080`. */
  serviceUrl: string;
  /** A plaintext API token with the `wp:integration` ability. */
  apiToken: string;
  /** The agent to sync to and embed; default the handshake's first published agent, else its first. */
  agentId?: string;
  /** 0 picks a free port; default 4100. */
  port?: number;
  /**
   * Default `127.0.0.1`. `localhost` listens on 127.0.0.1 and, when available, ::1, and names
   * the shop `http://localhost:<port>`: the widget's origin check needs the name the browser shows.
   */
  host?: string;
  /** Where the database lives; default `examples/demo-shop/data/`; null keeps it in memory. */
  dataDir?: string | null;
  /** How much content to seed into an empty database; default 12 products and 20 posts. */
  seed?: SeedSize;
  /** Whether the shop sells (orders, coupons); default true. */
  commerceActive?: boolean;
  /** Handshake and push everything at start; default true. When false, nothing is sent until syncNow(). */
  syncOnStart?: boolean;
  /** Passed to the sync client (tests inject failures here). */
  fetch?: typeof fetch;
  now?: () => Date;
  log?: (line: string) => void;
  /** Test hook: the shopper_signing_secret to use instead of the handshake's. */
  signingSecret?: string;
  /** Test hook: session ids. */
  randomId?: () => string;
};

/** A running demo shop. */
export type DemoShop = {
  /** `http://<host>:<port>`: the shop's address and its `site_url`. */
  readonly url: string;
  /** The shop's origin (the entry the agent's allowed origins need). */
  readonly origin: string;
  /** The agent the shop syncs to and embeds ('' until a handshake when none was given). */
  readonly agentId: string;
  sync: SyncClient;
  plugin: SitePlugin<CartRef>;
  /** Handshakes (once per process), then pushes posts, products and coupons. */
  syncNow(): Promise<SyncAllReport>;
  /** The shop's customers, oldest first. */
  customers(): Promise<Customer[]>;
  /** Stops the HTTP server and closes the database. */
  close(): Promise<void>;
};

/** The shop's version, from its package.json (same relative path from src/ and dist/). */
export const SHOP_VERSION = readVersion();

function readVersion(): string {
  try {
    const parsed: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    if (parsed && typeof parsed === 'object' && 'version' in parsed && typeof parsed.version === 'string')
      return parsed.version;
  } catch {
    // Fall through: a version is informative only.
  }
  return '0.0.0';
}

/** `examples/demo-shop/data/` (git-ignored). */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../data/', import.meta.url));

/** Starts the shop: database, seed, HTTP server, then (unless `syncOnStart` is false) handshake and sync. */
export async function startDemoShop(options: DemoShopOptions): Promise<DemoShop> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? (() => new Date());
  const host = options.host ?? '127.0.0.1';
  const commerceActive = options.commerceActive ?? true;
  const database = await openShopDatabase({
    dataDir: options.dataDir === undefined ? DEFAULT_DATA_DIR : options.dataDir,
  });
  const { db } = database;
  const servers: Server[] = [];
  const close = async () => {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            // Keep-alive connections would hold close() open; the demo has nothing to drain.
            server.closeAllConnections();
          }),
      ),
    );
    await database.close();
  };
  try {
    const seeded = await db.transaction((tx) => seedShop(tx, options.seed ?? DEFAULT_SEED, now()));
    if (seeded.products + seeded.posts + seeded.customers > 0) {
      log(
        `seeded ${seeded.products} products, ${seeded.posts} posts, ${seeded.customers} customers with ${seeded.orders} orders, ${seeded.coupons} coupons`,
      );
    }
    const server = createServer();
    servers.push(server);
    const port = await listen(server, host === 'localhost' ? '127.0.0.1' : host, options.port ?? 4100);
    if (host === 'localhost') {
      // Browsers may resolve localhost to ::1 first; answer there too when the machine has IPv6.
      const v6 = createServer();
      await listen(v6, '::1', port).then(
        () => servers.push(v6),
        () => log(`not listening on [::1]:${port} (no IPv6 here?); 127.0.0.1 only`),
      );
    }
    const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const kv = createDatabaseKvStore(db, now);
    const store = createShopStore({ db, siteUrl: origin, commerceActive, now });
    const sync = createSyncClient({
      serviceUrl: options.serviceUrl,
      apiToken: options.apiToken,
      siteUrl: origin,
      pluginVersion: SHOP_VERSION,
      state: kv,
      now,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const signingSecret = async () => options.signingSecret ?? (await sync.signingSecret());
    const plugin = createSitePlugin<CartRef>({
      store,
      signingSecret,
      staging: kv,
      now,
      onError: (error) =>
        log(`plugin route error: ${error instanceof Error ? error.message : String(error)}`),
    });
    let agentId = options.agentId ?? '';
    const handler = createShopHandler({
      db,
      plugin,
      origin,
      serviceUrl: options.serviceUrl,
      agentId: () => agentId,
      signingSecret,
      now,
      randomId: options.randomId ?? (() => randomBytes(24).toString('base64url')),
      log,
    });
    for (const listening of servers) listening.on('request', handler);

    let handshake: Promise<void> | null = null;
    const ensureHandshake = () => {
      handshake ??= (async () => {
        const answer = await handshakeOrExplain(sync, options.serviceUrl, commerceActive);
        agentId = chooseAgent(answer, options.agentId);
        log(`connected to ${options.serviceUrl}: workspace "${answer.workspace.name}", agent ${agentId}`);
      })().catch((error: unknown) => {
        handshake = null;
        throw error;
      });
      return handshake;
    };
    const syncNow = async (): Promise<SyncAllReport> => {
      await ensureHandshake();
      const report = await sync.syncAll({ agentId, store, commerceActive });
      log(
        `synced ${report.posts.sent} posts (${report.posts.queued} queued, ${report.posts.skipped_unchanged} unchanged)` +
          (report.products
            ? `, ${report.products.sent} products (${report.products.queued} queued, ${report.products.skipped_unchanged} unchanged)`
            : '') +
          (report.coupons ? `, ${report.coupons.stored} coupons` : ''),
      );
      return report;
    };
    if (options.syncOnStart ?? true) await syncNow();

    return {
      url: origin,
      origin,
      get agentId() {
        return agentId;
      },
      sync,
      plugin,
      syncNow,
      customers: () => listCustomers(db),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      // A TCP server's address is an AddressInfo; a string would be a pipe, which we never use.
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

async function handshakeOrExplain(
  sync: SyncClient,
  serviceUrl: string,
  commerceActive: boolean,
): Promise<THandshakeData> {
  try {
    return await sync.handshake({ commerceActive, cmsVersion: `demo-shop/${SHOP_VERSION}` });
  } catch (error) {
    const status = error instanceof SyncError ? error.status : -1;
    const hint =
      status === 0
        ? 'Is it running? Start it with `npm start` in another terminal.'
        : status === 401
          ? 'It refused the API token: check SERVICE_API_TOKEN, or unset it so `npm run demo` creates one.'
          : status === 403
            ? 'The API token lacks the wp:integration ability: issue one that has it.'
            : 'The reason:';
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`The demo shop could not connect to the service at ${serviceUrl}. ${hint}\n  ${detail}`, {
      cause: error,
    });
  }
}

function chooseAgent(answer: THandshakeData, wanted: string | undefined): string {
  if (wanted) {
    if (!answer.agents.some((agent) => agent.id === wanted)) {
      throw new Error(
        `Agent ${wanted} is not in the workspace "${answer.workspace.name}" of this API token.`,
      );
    }
    return wanted;
  }
  const chosen = answer.agents.find((agent) => agent.is_published) ?? answer.agents[0];
  if (!chosen)
    throw new Error(`The workspace "${answer.workspace.name}" has no agent: create one in the admin first.`);
  return chosen.id;
}
