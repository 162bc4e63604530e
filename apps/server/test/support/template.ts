import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type Database, openMemoryDatabase } from '../../src/db/database.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { ensureOptionalSchema, OPTIONAL_SCHEMA_FINGERPRINT } from '../../src/db/optional-schema.js';
import { createLogger } from '../../src/logger.js';
import { JobQueue } from '../../src/queue/job-queue.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CACHE_DIR = join(ROOT, '.cache');
const silent = { info() {}, warn() {} };

/** Fingerprint of everything that shapes a migrated database: migrations, optional indexes, engine versions. */
async function templateFingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const migration of await loadMigrations()) hash.update(migration.checksum);
  hash.update(OPTIONAL_SCHEMA_FINGERPRINT);
  for (const pkg of ['@electric-sql/pglite', 'pg-boss']) {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8'));
    hash.update(`${pkg}@${manifest.version}`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** Migrates a database and installs the queue schema, so each test file starts from a complete store. */
async function prepareSchema(database: Database): Promise<void> {
  await migrate(database.pool);
  await ensureOptionalSchema(database.db, database.features);
  const queue = await JobQueue.start({
    pool: database.pool,
    db: database.db,
    log: createLogger('silent'),
    definitions: [],
    maintenance: false,
  });
  await queue.stop(1_000);
}

/**
 * Path of a dump of a migrated PGlite data dir, made once per fingerprint and reused
 * (PGlite takes seconds to create and migrate; loading a dump takes a fraction of that).
 */
export async function ensurePgliteTemplate(): Promise<string> {
  const file = join(CACHE_DIR, `pglite-template-${await templateFingerprint()}.tar`);
  if (await stat(file).catch(() => null)) return file;
  const database = await openMemoryDatabase({ log: silent });
  let dump: Uint8Array;
  try {
    await prepareSchema(database);
    dump = await database.dumpDataDir();
  } finally {
    await database.close();
  }
  await mkdir(CACHE_DIR, { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, dump);
  await rename(partial, file);
  return file;
}

/** Replaces the database name in a PostgreSQL URL. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Creates and migrates a PostgreSQL template database for this run; returns its name. */
export async function createPostgresTemplate(serverUrl: string, runId: string): Promise<string> {
  const name = `svc_tpl_${runId}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const { openPostgresDatabase } = await import('../../src/db/database.js');
  const database = await openPostgresDatabase({
    url: withDatabase(serverUrl, name),
    poolSize: 2,
    log: silent,
  });
  try {
    await prepareSchema(database);
  } finally {
    await database.close();
  }
  return name;
}

/** Drops this run's template and any per-file databases left behind. */
export async function dropPostgresDatabases(serverUrl: string, runId: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const rows = await admin.query<{ datname: string }>(
      'select datname from pg_database where datname like $1 or datname = $2',
      [`svc_t_${runId}_%`, `svc_tpl_${runId}`],
    );
    for (const row of rows.rows) await admin.query(`drop database if exists "${row.datname}" with (force)`);
  } finally {
    await admin.end();
  }
}
