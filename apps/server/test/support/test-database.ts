import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openPostgresDatabase, wrapPglite } from '../../src/db/database.js';
import {
  createPostgresTemplate,
  ensurePgliteTemplate,
  loadPgliteTemplate,
  withDatabase,
} from './template.js';

const silent = { info() {}, warn() {} };

/** Which engine the database tests run on: PostgreSQL when TEST_DATABASE_URL is set, else PGlite. */
export const TEST_ENGINE: 'postgres' | 'pglite' = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A fresh, migrated database for one test file: a PGlite clone of the run's template, or a
 * PostgreSQL database created from the run's template database (dropped on close).
 */
export async function createTestDatabase(): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const lite = await loadPgliteTemplate(process.env.TEST_PGLITE_TEMPLATE ?? (await ensurePgliteTemplate()));
    return wrapPglite(lite, silent, true);
  }
  const runId = process.env.TEST_RUN_ID ?? `solo${process.pid}`;
  const template = process.env.TEST_PG_TEMPLATE ?? (await createPostgresTemplate(serverUrl, runId));
  const name = `svc_t_${runId}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database "${name}" template "${template}"`);
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
