import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openMemoryDatabase, openPostgresDatabase } from '../../src/db/database.js';
import { createPostgresTemplate, ensurePgliteTemplate, withDatabase } from './template.js';

const silent = { info() {}, warn() {} };

/** Which engine the database tests run on: PostgreSQL when TEST_DATABASE_URL is set, else PGlite. */
export const TEST_ENGINE: 'postgres' | 'pglite' = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A fresh database for one test file: by default a migrated clone of the run's template
 * (PGlite from its dump, or a PostgreSQL database created from the template database);
 * with `empty`, a database nothing was ever applied to. PostgreSQL ones are dropped on close.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    if (options.empty) return openMemoryDatabase({ log: silent });
    return openMemoryDatabase({
      log: silent,
      loadDump: process.env.TEST_PGLITE_TEMPLATE ?? (await ensurePgliteTemplate()),
    });
  }
  // Named svc_t_<run>_… so the runner's cleanup drops it even if a test file dies.
  const runId = process.env.TEST_RUN_ID ?? `solo${process.pid}`;
  const name = `svc_t_${runId}_${randomBytes(4).toString('hex')}`;
  if (options.empty) {
    await adminQuery(serverUrl, `create database "${name}"`);
  } else {
    const template = process.env.TEST_PG_TEMPLATE ?? (await createPostgresTemplate(serverUrl, runId));
    await adminQuery(serverUrl, `create database "${name}" template "${template}"`);
  }
  const database = await openPostgresDatabase({
    url: withDatabase(serverUrl, name),
    poolSize: 4,
    log: silent,
  });
  return {
    ...database,
    async close() {
      await database.close();
      await adminQuery(serverUrl, `drop database if exists "${name}" with (force)`);
    },
  };
}

async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
