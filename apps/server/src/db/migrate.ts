import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { sha256Hex } from '../security/hashing.js';
import { withProcessLock } from './process-lock.js';

/** Where the numbered SQL migrations live (same relative path from src/ and dist/). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** Any fixed number: serialises migration runs across processes sharing one PostgreSQL. */
const MIGRATION_LOCK_KEY = 7_204_113_901;

/** A migration file: `NNNN_name.sql`. */
export type Migration = { version: number; name: string; sql: string; checksum: string };

/** Reads and orders the migration files; rejects gaps and duplicate numbers. */
export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!match?.[1] || !match[2]) throw new Error(`migration file name must be NNNN_name.sql: ${file}`);
    const text = await readFile(`${dir}/${file}`, 'utf8');
    const version = Number(match[1]);
    if (version !== migrations.length + 1) throw new Error(`migration ${file} is out of sequence`);
    migrations.push({ version, name: match[2], sql: text, checksum: sha256Hex(text) });
  }
  return migrations;
}

/** What a migration run did. */
export type MigrationResult = { applied: number[]; current: number; expected: number };

/**
 * Applies pending migrations, forward only, each in its own transaction, under an advisory
 * lock so concurrent starts take turns (and an in-process lock, the only one that excludes
 * anybody on the embedded store's shared backend session). An applied migration whose file
 * changed is an error.
 */
export async function migrate(pool: pg.Pool, migrations?: Migration[]): Promise<MigrationResult> {
  const all = migrations ?? (await loadMigrations());
  return withProcessLock(pool, MIGRATION_LOCK_KEY, () => migrateLocked(pool, all));
}

async function migrateLocked(pool: pg.Pool, all: Migration[]): Promise<MigrationResult> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now())`);
      const done = await client.query<{ version: number; checksum: string }>(
        'select version, checksum from schema_migrations order by version',
      );
      const applied = new Map(done.rows.map((row) => [row.version, row.checksum]));
      for (const [version, checksum] of applied) {
        const file = all.find((migration) => migration.version === version);
        if (file && file.checksum !== checksum) {
          throw new Error(
            `migration ${version} was changed after it was applied; add a new migration instead`,
          );
        }
      }
      const ran: number[] = [];
      for (const migration of all) {
        if (applied.has(migration.version)) continue;
        await client.query('begin');
        try {
          await client.query(migration.sql);
          await client.query('insert into schema_migrations (version, name, checksum) values ($1, $2, $3)', [
            migration.version,
            migration.name,
            migration.checksum,
          ]);
          await client.query('commit');
        } catch (error) {
          await client.query('rollback');
          throw new Error(
            `migration ${migration.version}_${migration.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        ran.push(migration.version);
      }
      const current = Math.max(0, ...applied.keys(), ...ran);
      return { applied: ran, current, expected: all.length };
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

/** Reads which migration the database is at, without changing anything. */
export async function migrationStatus(
  pool: pg.Pool,
  expected: number,
): Promise<{ current: number; expected: number }> {
  const table = await pool.query<{ name: string | null }>(
    "select to_regclass('schema_migrations')::text as name",
  );
  if (!table.rows[0]?.name) return { current: 0, expected };
  const result = await pool.query<{ current: number | null }>(
    'select max(version) as current from schema_migrations',
  );
  return { current: result.rows[0]?.current ?? 0, expected };
}
