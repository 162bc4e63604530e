import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { vector } from '@electric-sql/pglite-pgvector';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { cacheMbFor } from './embedded-cache.js';
import type { DB } from './schema.js';
import { withStartupLock } from './startup-lock.js';

/** Optional Postgres features detected at start. */
export type DatabaseFeatures = { vector: boolean; trigram: boolean };

/** One open store: the Kysely handle, the one pool everything shares, and its features. */
export type Database = {
  db: Kysely<DB>;
  pool: pg.Pool;
  mode: 'embedded' | 'postgres';
  features: DatabaseFeatures;
  close(): Promise<void>;
};

type Log = { info(msg: string): void; warn(msg: string): void };

/**
 * Opens the embedded store (PGlite + pgvector + pg_trgm) under `DATA_DIR/pgdata`, with a buffer
 * cache of `cacheMb` (`EMBEDDED_CACHE_MB`) or one sized from the data it holds (db/embedded-cache.ts).
 */
export async function openEmbeddedDatabase(options: {
  dataDir: string;
  log: Log;
  cacheMb?: number | undefined;
}): Promise<Database> {
  const pgdata = join(options.dataDir, 'pgdata');
  const cacheMb = await cacheMbFor(pgdata, options.cacheMb);
  const lite = await PGlite.create(pgdata, {
    extensions: { vector, pg_trgm },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${cacheMb}MB`],
  });
  options.log.info(`embedded store: ${cacheMb} MB buffer cache`);
  return wrapPglite(lite, options.log, true);
}

/** Wraps an open PGlite instance; `ownsInstance` decides whether close() also closes it. */
export async function wrapPglite(lite: PGlite, log: Log, ownsInstance: boolean): Promise<Database> {
  // PGlite is single-connection: ONE pool of size 1 shared by queries, transactions and the queue.
  const pool = new pg.Pool({ ...createPgConfig(lite), max: 1, onConnect: sessionSetup(log) });
  return finishOpen(pool, 'embedded', log, async () => {
    if (ownsInstance) await lite.close();
  });
}

/** Opens PostgreSQL at `url` with a pool of `poolSize` connections. */
export async function openPostgresDatabase(options: {
  url: string;
  poolSize: number;
  log: Log;
}): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    onConnect: sessionSetup(options.log),
  });
  return finishOpen(pool, 'postgres', options.log, async () => {});
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
 */
export function sessionSetup(log: Log): (client: SessionClient) => Promise<void> {
  const reported = new Set<string>();
  return async (client) => {
    for (const setting of VECTOR_SESSION_SETTINGS) {
      try {
        await client.query(setting);
      } catch (error) {
        if (reported.has(setting)) continue;
        reported.add(setting);
        log.warn(`could not apply "${setting}": ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
}

async function finishOpen(
  pool: pg.Pool,
  mode: Database['mode'],
  log: Log,
  afterPoolEnd: () => Promise<void>,
): Promise<Database> {
  // An idle client erroring (server restart) must not crash the process; the next query reconnects.
  pool.on('error', (error) => log.warn(`database connection error: ${error.message}`));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await db.destroy();
    await afterPoolEnd();
  };
  try {
    const features = await withStartupLock(pool, mode, () => ensureExtensions(db, log));
    return { db, pool, mode, features, close };
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
