import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import type { Database } from '../src/db/database.js';
import { loadMigrations, migrate, migrationStatus } from '../src/db/migrate.js';
import { createTestConfig, startTestQueue } from './support/test-app.js';
import { createTestDatabase, TEST_ENGINE } from './support/test-database.js';

async function writeMigrations(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, sql] of Object.entries(files)) await writeFile(join(dir, name), sql);
}

async function tableExists(database: Database, name: string): Promise<boolean> {
  const result = await database.pool.query<{ name: string | null }>('select to_regclass($1)::text as name', [
    name,
  ]);
  return Boolean(result.rows[0]?.name);
}

describe(`migrations (${TEST_ENGINE})`, () => {
  let dir: string;
  /** One never-migrated database (a fresh PGlite takes seconds), shared by the tests below in order. */
  let empty: Database;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-mig-'));
    empty = await createTestDatabase({ empty: true });
  });
  after(async () => {
    await empty.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('migrating an up-to-date database applies nothing', async () => {
    const database = await createTestDatabase();
    try {
      const expected = (await loadMigrations()).length;
      assert.ok(expected >= 1);
      assert.deepEqual(await migrate(database.pool), { applied: [], current: expected, expected });
      assert.deepEqual(await migrationStatus(database.pool, expected), { current: expected, expected });
    } finally {
      await database.close();
    }
  });

  test('loadMigrations orders files and rejects gaps, duplicates and bad names', async () => {
    const ordered = await mkdtemp(join(dir, 'ordered-'));
    await writeMigrations(ordered, {
      '0002_b.sql': 'select 2;',
      '0001_a.sql': 'select 1;',
      'README.md': 'x',
    });
    const loaded = await loadMigrations(ordered);
    assert.deepEqual(
      loaded.map((migration) => [migration.version, migration.name]),
      [
        [1, 'a'],
        [2, 'b'],
      ],
    );
    assert.match(loaded[0]?.checksum ?? '', /^[0-9a-f]{64}$/);

    const gap = await mkdtemp(join(dir, 'gap-'));
    await writeMigrations(gap, { '0001_a.sql': 'select 1;', '0003_c.sql': 'select 3;' });
    await assert.rejects(loadMigrations(gap), /0003_c\.sql is out of sequence/);

    const duplicate = await mkdtemp(join(dir, 'dup-'));
    await writeMigrations(duplicate, { '0001_a.sql': 'select 1;', '0001_b.sql': 'select 1;' });
    await assert.rejects(loadMigrations(duplicate), /out of sequence/);

    const badName = await mkdtemp(join(dir, 'bad-'));
    await writeMigrations(badName, { '0001_Add-Users.sql': 'select 1;' });
    await assert.rejects(loadMigrations(badName), /must be NNNN_name\.sql: 0001_Add-Users\.sql/);

    const noNumber = await mkdtemp(join(dir, 'nonum-'));
    await writeMigrations(noNumber, { 'core.sql': 'select 1;' });
    await assert.rejects(loadMigrations(noNumber), /must be NNNN_name\.sql/);
  });

  test('an empty database reports version 0, and /readyz says not_ready (503)', async () => {
    const database = empty;
    const config = await createTestConfig();
    const expected = (await loadMigrations()).length;
    // The queue keeps its own schema (pgboss), apart from the migrations this test counts.
    const queue = await startTestQueue(database);
    const app = await createApp({
      config,
      database,
      queue,
      clock: systemClock,
      expectedMigrations: expected,
    });
    try {
      assert.deepEqual(await migrationStatus(database.pool, expected), { current: 0, expected });
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      const body = res.json();
      assert.equal(body.status, 'not_ready');
      assert.equal(body.checks.database, 'ok');
      assert.deepEqual(body.checks.migrations, { current: 0, expected });
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
    } finally {
      await app.close();
      await queue.stop(1_000);
      await rm(config.dataDir, { recursive: true, force: true });
    }
  });

  test('applies pending migrations once, and refuses an applied migration that changed', async () => {
    const database = empty;
    const migrations = await mkdtemp(join(dir, 'changed-'));
    await writeMigrations(migrations, { '0001_first.sql': 'create table mig_one (id integer primary key);' });
    assert.deepEqual(await migrate(database.pool, await loadMigrations(migrations)), {
      applied: [1],
      current: 1,
      expected: 1,
    });
    assert.deepEqual(await migrate(database.pool, await loadMigrations(migrations)), {
      applied: [],
      current: 1,
      expected: 1,
    });

    await writeMigrations(migrations, {
      '0001_first.sql': 'create table mig_one (id bigint primary key);',
      '0002_second.sql': 'create table mig_two (id integer primary key);',
    });
    await assert.rejects(
      migrate(database.pool, await loadMigrations(migrations)),
      /migration 1 was changed after it was applied/,
    );
    assert.equal(await tableExists(database, 'mig_two'), false, 'nothing after the check ran');
    assert.deepEqual(await migrationStatus(database.pool, 2), { current: 1, expected: 2 });
  });

  test('a failing migration rolls back and names itself', async () => {
    const database = empty;
    // Start over on the shared database: forget the previous test's migrations.
    await database.pool.query('drop table schema_migrations; drop table mig_one');
    const migrations = await mkdtemp(join(dir, 'failing-'));
    await writeMigrations(migrations, {
      '0001_ok.sql': 'create table mig_ok (id integer primary key);',
      '0002_broken.sql': 'create table mig_half (id integer primary key);\nselect * from no_such_table;',
    });
    await assert.rejects(
      migrate(database.pool, await loadMigrations(migrations)),
      /migration 2_broken failed: .*no_such_table/,
    );
    assert.equal(await tableExists(database, 'mig_ok'), true);
    assert.equal(await tableExists(database, 'mig_half'), false);
    assert.deepEqual(await migrationStatus(database.pool, 2), { current: 1, expected: 2 });
    // The advisory lock was released, so a later run proceeds (and fails the same way).
    const locks = await database.pool.query<{ n: number }>(
      `select count(*)::int as n from pg_locks where locktype = 'advisory'
         and database = (select oid from pg_database where datname = current_database())`,
    );
    assert.equal(locks.rows[0]?.n, 0);
    await assert.rejects(migrate(database.pool, await loadMigrations(migrations)), /2_broken/);
  });
});
