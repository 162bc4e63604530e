import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { DATA_COMMANDS } from '../src/cli/commands.js';
import { systemClock } from '../src/clock.js';
import { ConfigError, loadConfig } from '../src/config/config.js';
import type { Database } from '../src/db/database.js';
import {
  AUTOVACUUM_OFF_WARNING,
  autovacuumOn,
  type MaintenanceThresholds,
  maintainStoreJob,
  maintainTables,
  runStoreMaintenance,
  warnIfAutovacuumOff,
} from '../src/jobs/maintain-store.js';
import { createLogger } from '../src/logger.js';
import { createTestConfig } from './support/test-app.js';
import { createTestDatabase, TEST_ENGINE } from './support/test-database.js';

/** Log lines a test can read back. */
function capturingLog() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger('info', {
    write(line: string) {
      lines.push(JSON.parse(line));
    },
  });
  return { log, lines };
}

type Stats = { dead: number; changed: number; vacuumed: boolean; analyzed: boolean };

async function probeStats(database: Database): Promise<Stats> {
  // The backend reports its counters at most once a second, when idle: give it the second.
  await sleep(1_100);
  await sql`select 1`.execute(database.db);
  const result = await sql<{ dead: string; changed: string; vacuumed: boolean; analyzed: boolean }>`
    select n_dead_tup as dead, n_mod_since_analyze as changed, last_vacuum is not null as vacuumed,
      last_analyze is not null as analyzed
    from pg_stat_user_tables where schemaname = 'public' and relname = 'maintenance_probe'`.execute(
    database.db,
  );
  const row = result.rows[0];
  assert.ok(row, 'the probe table has statistics');
  return {
    dead: Number(row.dead),
    changed: Number(row.changed),
    vacuumed: row.vacuumed,
    analyzed: row.analyzed,
  };
}

/** Exact thresholds for the edges: no share of the live rows, only the base counts. */
const EDGES: MaintenanceThresholds = { analyzeBase: 300, analyzeScale: 0, vacuumBase: 200, vacuumScale: 0 };

describe('store maintenance on the embedded store (PGlite has no autovacuum)', {
  skip: TEST_ENGINE === 'pglite' ? false : 'runs on PGlite; PostgreSQL has autovacuum',
}, () => {
  let database: Database;

  before(async () => {
    database = await createTestDatabase();
    await sql`create table maintenance_probe (id int primary key, note text not null)`.execute(database.db);
    await sql`insert into maintenance_probe select g, 'row ' || g from generate_series(1, 2000) g`.execute(
      database.db,
    );
  });
  after(() => database.close());

  test('no autovacuum warning on the embedded store: its own job vacuums', async () => {
    const { log, lines } = capturingLog();
    assert.equal(await warnIfAutovacuumOff(database.db, log), false);
    assert.deepEqual(lines, []);
  });

  test('the job’s first run vacuums and analyzes every table: dead rows of updates and deletes are gone', async () => {
    await sql`update maintenance_probe set note = note || ' changed' where id <= 600`.execute(database.db);
    await sql`delete from maintenance_probe where id > 1800`.execute(database.db);
    const before = await probeStats(database);
    assert.equal(before.dead, 800);
    assert.equal(before.vacuumed, false);

    const { log, lines } = capturingLog();
    await maintainStoreJob.handle(
      { reason: 'manual' },
      { db: database.db, log, clock: systemClock, jobId: 'test', attempt: 1 },
    );
    const afterRun = await probeStats(database);
    assert.equal(afterRun.dead, 0);
    assert.equal(afterRun.changed, 0);
    assert.equal(afterRun.vacuumed, true);
    assert.equal(afterRun.analyzed, true);
    const planner = await sql<{ reltuples: number }>`
      select reltuples from pg_class where oid = 'public.maintenance_probe'::regclass`.execute(database.db);
    assert.equal(Number(planner.rows[0]?.reltuples), 1800, 'the planner knows the live rows');
    const line = lines.find((entry) => entry.table === 'public.maintenance_probe');
    assert.equal(line?.action, 'vacuum analyze');
    assert.equal(line?.deadBefore, 800);
    assert.equal(line?.deadAfter, 0);
    assert.equal(typeof line?.ms, 'number');
    assert.ok(lines.some((entry) => entry.msg === 'store maintenance finished' && entry.sweep === true));
  });

  test('later runs go by thresholds: 199 dead rows are left, 200 are vacuumed', async () => {
    await sql`delete from maintenance_probe where id <= 199`.execute(database.db);
    assert.equal((await probeStats(database)).dead, 199);
    const skipped = await maintainTables({ db: database.db, thresholds: EDGES });
    assert.equal(
      skipped.find((row) => row.table === 'public.maintenance_probe'),
      undefined,
    );
    assert.equal((await probeStats(database)).dead, 199);

    await sql`delete from maintenance_probe where id = 200`.execute(database.db);
    assert.equal((await probeStats(database)).dead, 200);
    const done = await maintainTables({ db: database.db, thresholds: EDGES });
    const probe = done.find((row) => row.table === 'public.maintenance_probe');
    assert.equal(probe?.action, 'vacuum analyze');
    assert.equal(probe?.deadBefore, 200);
    assert.equal(probe?.deadAfter, 0);
    assert.equal((await probeStats(database)).dead, 0);
  });

  test('ANALYZE alone once changed rows reach the threshold: 299 inserts are left, 300 analyzed', async () => {
    await sql`insert into maintenance_probe select g, 'new' from generate_series(3001, 3299) g`.execute(
      database.db,
    );
    assert.equal((await probeStats(database)).changed, 299);
    const skipped = await maintainTables({ db: database.db, thresholds: EDGES });
    assert.equal(
      skipped.find((row) => row.table === 'public.maintenance_probe'),
      undefined,
    );

    await sql`insert into maintenance_probe values (3300, 'new')`.execute(database.db);
    assert.equal((await probeStats(database)).changed, 300);
    const done = await maintainTables({ db: database.db, thresholds: EDGES });
    assert.equal(done.find((row) => row.table === 'public.maintenance_probe')?.action, 'analyze');
    const stats = await probeStats(database);
    assert.equal(stats.changed, 0);
    const planner = await sql<{ reltuples: number }>`
      select reltuples from pg_class where oid = 'public.maintenance_probe'::regclass`.execute(database.db);
    assert.equal(Number(planner.rows[0]?.reltuples), 1900);
  });

  test('the CLI `maintenance` command vacuums and analyzes every table now', async () => {
    await sql`delete from maintenance_probe where id <= 210`.execute(database.db);
    assert.equal((await probeStats(database)).dead, 10);
    const config = await createTestConfig();
    const result = await DATA_COMMANDS.maintenance({
      config,
      database,
      clock: systemClock,
      log: createLogger('silent'),
    });
    await rm(config.dataDir, { recursive: true, force: true });
    const probe = result.tables.find((row) => row.table === 'public.maintenance_probe');
    assert.equal(probe?.action, 'vacuum analyze');
    assert.equal(probe?.deadBefore, 10);
    assert.equal((await probeStats(database)).dead, 0);
  });

  test('nothing over a threshold: nothing runs', async () => {
    const done = await maintainTables({
      db: database.db,
      thresholds: { analyzeBase: 1e9, analyzeScale: 0, vacuumBase: 1e9, vacuumScale: 0 },
    });
    assert.deepEqual(done, []);
  });
});

describe('STORE_MAINTENANCE_INTERVAL_MINUTES', () => {
  test('defaults to 60; 0 turns the job off; 10080 (a week) is the most', () => {
    assert.equal(loadConfig({}).storeMaintenanceIntervalMinutes, 60);
    assert.equal(loadConfig({ STORE_MAINTENANCE_INTERVAL_MINUTES: '0' }).storeMaintenanceIntervalMinutes, 0);
    assert.equal(
      loadConfig({ STORE_MAINTENANCE_INTERVAL_MINUTES: '10080' }).storeMaintenanceIntervalMinutes,
      10_080,
    );
    for (const bad of ['-1', '10081', '1.5', 'hourly']) {
      assert.throws(() => loadConfig({ STORE_MAINTENANCE_INTERVAL_MINUTES: bad }), ConfigError, bad);
    }
  });
});

describe('store maintenance on PostgreSQL', {
  skip: TEST_ENGINE === 'postgres' ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  let database: Database;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.close());

  test('autovacuum is PostgreSQL’s: the job does nothing there and says so once, as a warning when it is off; the CLI sweeps only when it is off', async () => {
    const { log, lines } = capturingLog();
    assert.equal(await runStoreMaintenance({ db: database.db, log }), null);
    assert.equal(await runStoreMaintenance({ db: database.db, log }), null);
    // The test server's own setting decides which line is right (this machine's runs it off).
    const on = await autovacuumOn(database.db);
    const setting = await sql<{ value: string }>`select current_setting('autovacuum') as value`.execute(
      database.db,
    );
    assert.equal(on, setting.rows[0]?.value === 'on');
    const said = lines.filter((entry) => /PostgreSQL has autovacuum/.test(String(entry.msg)));
    assert.equal(said.length, 1);
    if (on) assert.equal(said[0]?.level, 30);
    else assert.deepEqual([said[0]?.level, said[0]?.msg], [40, AUTOVACUUM_OFF_WARNING]);
    const again = capturingLog();
    assert.equal(await warnIfAutovacuumOff(database.db, again.log), !on);
    assert.equal(again.lines.length, on ? 0 : 1);
    const config = await createTestConfig();
    const result = await DATA_COMMANDS.maintenance({ config, database, clock: systemClock, log });
    await rm(config.dataDir, { recursive: true, force: true });
    if (on) assert.deepEqual(result, { skipped: 'PostgreSQL runs autovacuum', tables: [] });
    else {
      // Off: the command is the operator's sweep, every table with pages vacuumed and analyzed.
      assert.equal('skipped' in result, false);
      const tables = result.tables.map((row) => row.table);
      for (const table of ['public.agents', 'public.documents', 'pgboss.queue'])
        assert.ok(tables.includes(table), `${table} in ${tables.join(', ')}`);
      assert.ok(result.tables.every((row) => row.action === 'vacuum analyze'));
    }
  });
});
