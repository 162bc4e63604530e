import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { vector } from '@electric-sql/pglite-pgvector';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
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

/** Opens the embedded store (PGlite + pgvector + pg_trgm) under `DATA_DIR/pgdata`. */
export async function openEmbeddedDatabase(options: { dataDir: string; log: Log }): Promise<Database> {
  const lite = await PGlite.create(join(options.dataDir, 'pgdata'), { extensions: { vector, pg_trgm } });
  return wrapPglite(lite, options.log, true);
}

/** Wraps an open PGlite instance; `ownsInstance` decides whether close() also closes it. */
export async function wrapPglite(lite: PGlite, log: Log, ownsInstance: boolean): Promise<Database> {
  // PGlite is single-connection: ONE pool of size 1 shared by queries, transactions and the queue.
  const pool = new pg.Pool({ ...createPgConfig(lite), max: 1 });
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
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize });
  return finishOpen(pool, 'postgres', options.log, async () => {});
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
