import { join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { cacheMbFor } from './embedded-cache.js';
import { type EmbeddedStoreThread, startStoreThread } from './embedded-store.js';
import { embeddedNotifications, postgresNotifications, type StoreNotifications } from './notifications.js';
import { preparingPool } from './prepared.js';
import type { DB } from './schema.js';
import { withStartupLock } from './startup-lock.js';
import type { StoreLane, StoreScheduling, StoreWorkerData } from './store-messages.js';
import { WorkerConnection } from './worker-connection.js';

/** Optional Postgres features detected at start. */
export type DatabaseFeatures = { vector: boolean; trigram: boolean };

/** A pool and the Kysely handle over it. */
export type StorePool = { db: Kysely<DB>; pool: pg.Pool };

/** One open store: the Kysely handle and pool requests use, the background pool, and its features. */
export type Database = {
  db: Kysely<DB>;
  pool: pg.Pool;
  /**
   * The pool the job queue and job handlers' bulk writes use. On the embedded store it is its own
   * connection (one), whose statements wait while interactive ones are ready
   * (`EMBEDDED_STORE_SCHEDULING`); on PostgreSQL it is the same pool as `db`.
   */
  background: StorePool;
  mode: 'embedded' | 'postgres';
  features: DatabaseFeatures;
  /** LISTEN on a channel of this store (db/notifications.ts): every NOTIFY committed on it, by any instance. */
  listen: StoreNotifications['listen'];
  /** Embedded store only: a tar of its data dir, taken between two groups of statements (cli backup). */
  dumpDataDir?(): Promise<Uint8Array>;
  close(): Promise<void>;
};

/** An open embedded store, which can also dump its data dir (test templates), and its thread. */
export type EmbeddedDatabase = Database & { dumpDataDir(): Promise<Uint8Array>; thread: EmbeddedStoreThread };

type Log = { info(msg: string): void; warn(msg: string): void; error?(msg: string): void };

/** Connections of the interactive pool (requests): the store thread runs one group at a time anyway. */
export const EMBEDDED_INTERACTIVE_POOL = 4;
/** Connections of the background pool (queue and jobs). */
export const EMBEDDED_BACKGROUND_POOL = 1;

type EmbeddedOptions = {
  log: Log;
  cacheMb?: number | undefined;
  scheduling?: StoreScheduling | undefined;
  /** Called when the store's thread stops unexpectedly (after the error is logged). */
  onCrash?: ((error: Error) => void) | undefined;
};

/**
 * Opens the embedded store (PGlite + pgvector + pg_trgm, in its own thread) under
 * `DATA_DIR/pgdata`, with a buffer cache of `cacheMb` (`EMBEDDED_CACHE_MB`) or one sized from the
 * data it holds (db/embedded-cache.ts). With `loadDump` (a tar made by `dumpDataDir`) an empty
 * `pgdata` is first filled from that dump (cli restore).
 */
export async function openEmbeddedDatabase(
  options: EmbeddedOptions & { dataDir: string; loadDump?: string },
): Promise<EmbeddedDatabase> {
  const pgdata = join(options.dataDir, 'pgdata');
  const cacheMb = options.loadDump ? (options.cacheMb ?? 16) : await cacheMbFor(pgdata, options.cacheMb);
  const database = await openStoreThread({ pgdata, loadDump: options.loadDump ?? null, cacheMb }, options);
  options.log.info(`embedded store: ${cacheMb} MB buffer cache`);
  return database;
}

/**
 * An embedded store in memory (tests), empty or loaded from a data-dir dump (a tar file made by
 * `dumpDataDir`), on the same thread and pools as the service's.
 */
export function openMemoryDatabase(
  options: EmbeddedOptions & { loadDump?: string },
): Promise<EmbeddedDatabase> {
  return openStoreThread({ pgdata: null, loadDump: options.loadDump ?? null, cacheMb: null }, options);
}

async function openStoreThread(
  data: Omit<StoreWorkerData, 'scheduling'>,
  options: EmbeddedOptions,
): Promise<EmbeddedDatabase> {
  const { log } = options;
  let deliver: (channel: string, payload: string) => void = () => undefined;
  const thread = await startStoreThread(
    { ...data, scheduling: options.scheduling ?? 'interactive-first' },
    (error) => {
      (log.error ?? log.warn)(`${error.message}; pending queries failed`);
      options.onCrash?.(error);
    },
    (channel, payload) => deliver(channel, payload),
  );
  const poolOf = (lane: StoreLane, max: number) => {
    // Each client gets its own connection to the thread (the `connection` option would share one).
    class StoreClient extends pg.Client {
      constructor(config: pg.ClientConfig = {}) {
        const withConnection: pg.ClientConfig & { connection: WorkerConnection } = {
          ...config,
          connection: new WorkerConnection(thread, lane),
        };
        super(withConnection);
        // A checked-out client's queries already reject when the store stops; without a listener
        // its 'error' event would also end the process before the crash is reported.
        this.on('error', () => undefined);
      }
    }
    const pool = new pg.Pool({
      Client: StoreClient,
      max,
      idleTimeoutMillis: 0,
      onConnect: sessionSetup(log),
    });
    pool.on('error', (error) => log.warn(`database connection error: ${error.message}`));
    return pool;
  };
  const background = poolOf('background', EMBEDDED_BACKGROUND_POOL);
  const backgroundDb = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparingPool(background) }) });
  const interactive = poolOf('interactive', EMBEDDED_INTERACTIVE_POOL);
  const notifications = embeddedNotifications((statement) => interactive.query(statement));
  deliver = notifications.deliver;
  const database = await finishOpen(interactive, 'embedded', log, {
    prepare: true,
    background: { db: backgroundDb, pool: background },
    notifications,
    afterPoolEnd: async () => {
      await backgroundDb.destroy();
      await thread.close();
    },
  });
  return { ...database, dumpDataDir: () => thread.dump(), thread };
}

/** How long opening a PostgreSQL connection may take before the query that needed it fails. */
export const POSTGRES_CONNECT_TIMEOUT_MS = 10_000;

/** Opens PostgreSQL at `url` with a pool of `poolSize` connections. */
export async function openPostgresDatabase(options: {
  url: string;
  poolSize: number;
  log: Log;
}): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // A connect that gets no answer fails instead of leaving the request waiting.
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    onConnect: sessionSetup(options.log),
  });
  // pg-pool listens for errors only on idle clients. A server that goes away (restart, failover)
  // ends every connection with an error, also on a client that is checked out between two
  // statements (a transaction, a job's lease): unheard, that 'error' event would end the process.
  // Logged here; the statement in flight fails on its own, and the pool drops the broken client
  // when it is released.
  pool.on('connect', (client) => {
    client.on('error', (error) => options.log.warn(`database connection lost: ${error.message}`));
  });
  const notifications = postgresNotifications(options.url, options.log);
  return finishOpen(pool, 'postgres', options.log, { notifications, afterPoolEnd: async () => {} });
}

/**
 * Session settings of every connection, for vector search (retrieval/search.ts): an HNSW scan
 * keeps 100 candidates, and scans on (pgvector ≥ 0.8) while the agent filter drops them, so an
 * agent sharing the index with larger ones still gets its nearest chunks. Set once per
 * connection rather than in a transaction around each search. Without pgvector they are inert
 * placeholders; a pgvector older than 0.8 rejects the second with a warning, and its scans
 * simply stop at the first 100.
 */
export const VECTOR_SESSION_SETTINGS: readonly string[] = [
  'set hnsw.ef_search = 100',
  "set hnsw.iterative_scan = 'relaxed_order'",
];

/** What the session setup needs of a new connection. */
export type SessionClient = { query(text: string): Promise<unknown> };

/**
 * Applies VECTOR_SESSION_SETTINGS to each new connection before the pool hands it out. A setting
 * the server refuses is reported once and skipped: search still works, with pgvector's default.
 * Any other failure (the connection or the store's thread is gone) fails the connect.
 */
export function sessionSetup(log: Log): (client: SessionClient) => Promise<void> {
  const reported = new Set<string>();
  return async (client) => {
    for (const setting of VECTOR_SESSION_SETTINGS) {
      try {
        await client.query(setting);
      } catch (error) {
        // Only the server's refusal is skipped; a lost connection fails the connect.
        if (!(error instanceof pg.DatabaseError)) throw error;
        if (reported.has(setting)) continue;
        reported.add(setting);
        log.warn(`could not apply "${setting}": ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
}

/** How long closing the store waits for queries in flight or queued on a pool before ending it. */
export const POOL_DRAIN_MS = 5_000;

/**
 * Resolves once no query holds or waits for one of `pool`'s clients, or after `ms`: what must be
 * true before `pool.end()`, which leaves a queued query pending for good.
 */
export async function drainPool(pool: pg.Pool, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  const busy = () => pool.waitingCount > 0 || pool.totalCount > pool.idleCount;
  while (busy()) {
    if (performance.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

async function finishOpen(
  pool: pg.Pool,
  mode: Database['mode'],
  log: Log,
  options: {
    background?: StorePool;
    notifications: StoreNotifications;
    afterPoolEnd: () => Promise<void>;
    /** Run statements marked by `prepared` as named prepared statements (db/prepared.ts). */
    prepare?: boolean;
  },
): Promise<Database> {
  // An idle client erroring (server restart) must not crash the process; the next query reconnects.
  pool.on('error', (error) => log.warn(`database connection error: ${error.message}`));
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: options.prepare ? preparingPool(pool) : pool }),
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await options.notifications.close();
    // pg's Pool.end() never answers a query still waiting for a client: it would wait forever
    // (a job worker's last fetch, queued behind another on the one background connection, kept
    // the process from exiting). Queries in flight and queued are let finish first, within a bound.
    const pools = new Set([pool, options.background?.pool ?? pool]);
    await Promise.all([...pools].map((one) => drainPool(one, POOL_DRAIN_MS)));
    await db.destroy();
    await options.afterPoolEnd();
  };
  try {
    const features = await withStartupLock(pool, mode, () => ensureExtensions(db, log));
    const listen = options.notifications.listen;
    return { db, pool, background: options.background ?? { db, pool }, mode, features, listen, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Creates pgvector and pg_trgm when the server offers them; boots without them otherwise. */
async function ensureExtensions(db: Kysely<DB>, log: Log): Promise<DatabaseFeatures> {
  const available = await sql<{ name: string }>`
    select name from pg_available_extensions where name in ('vector', 'pg_trgm')`.execute(db);
  const names = new Set(available.rows.map((row) => row.name));
  const features: DatabaseFeatures = { vector: false, trigram: false };
  for (const [name, key] of [
    ['vector', 'vector'],
    ['pg_trgm', 'trigram'],
  ] as const) {
    if (!names.has(name)) continue;
    try {
      await sql`create extension if not exists ${sql.id(name)}`.execute(db);
      features[key] = true;
    } catch (error) {
      log.warn(
        `could not create extension ${name}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if (!features.vector)
    log.warn('pgvector is not available on this database: vector search is off (full-text only)');
  if (!features.trigram) log.warn('pg_trgm is not available on this database: typo-tolerant search is off');
  return features;
}
