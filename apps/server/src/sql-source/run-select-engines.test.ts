import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  localPostgresUrl,
  LOCAL_MARIADB as MARIADB,
  LOCAL_MARIADB_ALLOW as MARIADB_ALLOW,
  LOCAL_POSTGRES as PG,
  LOCAL_POSTGRES_ALLOW as PG_ALLOW,
  unreachable,
} from '../../test/support/local-databases.js';
import { type RunSelectOptions, runSelect } from './run-select.js';

// Integration tests against the machine's own servers, on loopback only (allowed through the
// guard with SAFE_URL_ALLOW-style entries); each test skips when its server is not running
// (TEST_SQL_POSTGRES_URL / TEST_SQL_MYSQL_URL move them to another port on 127.0.0.1).
const SUFFIX = `${process.env.TEST_RUN_ID ?? Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

describe(`runSelect on PostgreSQL (127.0.0.1:${PG.port})`, () => {
  const schema = `sqlsrc_${SUFFIX}`;
  let admin: pg.Client | undefined;
  const run = (query: string, options: RunSelectOptions = {}) =>
    runSelect({ ...PG, query }, { allow: PG_ALLOW, ...options });

  before(async () => {
    if (await unreachable('PostgreSQL', PG)) return;
    const client = new pg.Client({ connectionString: localPostgresUrl(), connectionTimeoutMillis: 10_000 });
    await client.connect();
    admin = client;
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(
      `CREATE TABLE ${schema}.items (id int PRIMARY KEY, name text, added timestamptz, data bytea)`,
    );
    await client.query(
      `INSERT INTO ${schema}.items SELECT g, 'item ' || g, '2026-01-01T00:00:00Z'::timestamptz, '\\x00ff' FROM generate_series(1, 5) g`,
    );
    await client.query(`CREATE SEQUENCE ${schema}.seq`);
  });

  after(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  test('returns the rows and columns, typed', async (t) => {
    if (!admin) return t.skip(`PostgreSQL is not reachable at 127.0.0.1:${PG.port}`);
    const result = await run(`SELECT id, name, added, data FROM ${schema}.items ORDER BY id;`);
    assert.ok(result.ok, result.ok ? '' : result.reason);
    assert.deepEqual(result.columns, ['id', 'name', 'added', 'data']);
    assert.equal(result.rows.length, 5);
    assert.equal(result.truncated, false);
    assert.deepEqual(result.rows[0], {
      id: 1,
      name: 'item 1',
      added: new Date('2026-01-01T00:00:00Z'),
      data: Buffer.from([0, 255]),
    });
  });

  test('the row cap is enforced and reported: 3 of 5 rows', async (t) => {
    if (!admin) return t.skip(`PostgreSQL is not reachable at 127.0.0.1:${PG.port}`);
    const result = await run(`SELECT id FROM ${schema}.items ORDER BY id`, { rowCap: 3 });
    assert.ok(result.ok);
    assert.deepEqual(result.rows, [{ id: 1 }, { id: 2 }, { id: 3 }]);
    assert.equal(result.truncated, true);
    const exact = await run(`SELECT id FROM ${schema}.items`, { rowCap: 5 });
    assert.ok(exact.ok);
    assert.equal(exact.truncated, false);
  });

  test('is refused without the allow entry, and connects with it', async (t) => {
    if (!admin) return t.skip(`PostgreSQL is not reachable at 127.0.0.1:${PG.port}`);
    const refused = await runSelect({ ...PG, query: 'SELECT 1 AS one' });
    assert.deepEqual(refused, { ok: false, reason: 'refused: 127.0.0.1 is a loopback address' });
    const allowed = await runSelect({ ...PG, query: 'SELECT 1 AS one' }, { allow: PG_ALLOW });
    assert.deepEqual(allowed, { ok: true, columns: ['one'], rows: [{ one: 1 }], truncated: false });
  });

  test('the transaction is read-only: nextval() fails and changes nothing', async (t) => {
    if (!admin) return t.skip(`PostgreSQL is not reachable at 127.0.0.1:${PG.port}`);
    const result = await run(`SELECT nextval('${schema}.seq')`);
    assert.deepEqual(result, {
      ok: false,
      reason: 'failed: cannot execute nextval() in a read-only transaction',
    });
    const seq = await admin.query(`SELECT last_value, is_called FROM ${schema}.seq`);
    assert.equal(seq.rows[0]?.is_called, false);
  });

  test('a smuggled second statement is refused by the server (extended protocol)', async (t) => {
    if (!admin) return t.skip(`PostgreSQL is not reachable at 127.0.0.1:${PG.port}`);
    const result = await run(`SELECT 1) AS x; DELETE FROM ${schema}.items; SELECT * FROM (SELECT 1`);
    assert.equal(result.ok, false);
    assert.match(
      result.ok ? '' : result.reason,
      /^failed: cannot insert multiple commands into a prepared statement$/,
    );
    const count = await admin.query(`SELECT count(*)::int AS n FROM ${schema}.items`);
    assert.equal(count.rows[0]?.n, 5);
  });

  test('the statement timeout stops a slow query', async (t) => {
    if (!admin) return t.skip(`PostgreSQL is not reachable at 127.0.0.1:${PG.port}`);
    const started = Date.now();
    const result = await run('SELECT pg_sleep(5)', { statementTimeoutMs: 200 });
    assert.deepEqual(result, { ok: false, reason: 'failed: canceling statement due to statement timeout' });
    assert.ok(Date.now() - started < 3_000, 'stopped well before the 5 s sleep');
  });

  test('a wrong password or user fails without echoing the password', async (t) => {
    if (!admin) return t.skip(`PostgreSQL is not reachable at 127.0.0.1:${PG.port}`);
    const result = await runSelect(
      { ...PG, user: `nobody_${SUFFIX}`, password: 'hunter2-wrong', query: 'SELECT 1' },
      { allow: PG_ALLOW },
    );
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /^failed: /);
    assert.ok(!(result.ok ? '' : result.reason).includes('hunter2'));
  });
});

describe(`runSelect on MariaDB (127.0.0.1:${MARIADB.port})`, () => {
  const table = `sqlsrc_${SUFFIX}`;
  let admin: mysql.Connection | undefined;
  const run = (query: string, options: RunSelectOptions = {}) =>
    runSelect({ ...MARIADB, query }, { allow: MARIADB_ALLOW, ...options });

  before(async () => {
    if (await unreachable('MariaDB', MARIADB)) return;
    admin = await mysql.createConnection({
      host: MARIADB.host,
      port: MARIADB.port,
      user: MARIADB.user,
      password: MARIADB.password,
      database: MARIADB.database,
      connectTimeout: 10_000,
    });
    await admin.query(
      `CREATE TABLE ${table} (id int PRIMARY KEY, name varchar(50), big bigint, added datetime)`,
    );
    await admin.query(
      `INSERT INTO ${table} VALUES (1,'one',9007199254740993,'2026-01-01 00:00:00'),(2,'two',2,NULL),(3,'three',3,NULL),(4,'four',4,NULL),(5,'five',5,NULL)`,
    );
  });

  after(async () => {
    await admin?.query(`DROP TABLE IF EXISTS ${table}`);
    await admin?.end();
  });

  test('returns the rows and columns; big integers stay exact', async (t) => {
    if (!admin) return t.skip(`MariaDB is not reachable at 127.0.0.1:${MARIADB.port}`);
    const result = await run(`SELECT id, name, big FROM ${table} ORDER BY id`);
    assert.ok(result.ok, result.ok ? '' : result.reason);
    assert.deepEqual(result.columns, ['id', 'name', 'big']);
    assert.equal(result.rows.length, 5);
    assert.deepEqual(result.rows[0], { id: 1, name: 'one', big: '9007199254740993' });
  });

  test('the row cap is enforced and reported: 3 of 5 rows', async (t) => {
    if (!admin) return t.skip(`MariaDB is not reachable at 127.0.0.1:${MARIADB.port}`);
    const result = await run(`SELECT id FROM ${table} ORDER BY id`, { rowCap: 3 });
    assert.ok(result.ok);
    assert.deepEqual(result.rows, [{ id: 1 }, { id: 2 }, { id: 3 }]);
    assert.equal(result.truncated, true);
  });

  test('is refused without the allow entry', async (t) => {
    if (!admin) return t.skip(`MariaDB is not reachable at 127.0.0.1:${MARIADB.port}`);
    const refused = await runSelect({ ...MARIADB, query: 'SELECT 1' });
    assert.deepEqual(refused, { ok: false, reason: 'refused: 127.0.0.1 is a loopback address' });
  });

  test('a smuggled second statement fails (multipleStatements off) and writes nothing', async (t) => {
    if (!admin) return t.skip(`MariaDB is not reachable at 127.0.0.1:${MARIADB.port}`);
    const result = await run(`SELECT 1) AS x; DELETE FROM ${table}; SELECT * FROM (SELECT 1`);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /^failed: You have an error in your SQL syntax/);
    const [rows] = await admin.query(`SELECT count(*) AS n FROM ${table}`);
    assert.deepEqual(rows, [{ n: 5 }]);
  });

  test('the statement time limit stops a slow query', async (t) => {
    if (!admin) return t.skip(`MariaDB is not reachable at 127.0.0.1:${MARIADB.port}`);
    const started = Date.now();
    const result = await run('SELECT SLEEP(5) AS s FROM DUAL', { statementTimeoutMs: 200 });
    assert.equal(result.ok, false, 'a sleep interrupted by max_statement_time must not pass as a row');
    assert.match(result.ok ? '' : result.reason, /^failed: .*max_statement_time/);
    assert.ok(Date.now() - started < 3_000, 'stopped well before the 5 s sleep');
  });

  test('a wrong password fails without echoing it', async (t) => {
    if (!admin) return t.skip(`MariaDB is not reachable at 127.0.0.1:${MARIADB.port}`);
    const result = await runSelect(
      { ...MARIADB, password: 'wrong', query: 'SELECT 1' },
      { allow: MARIADB_ALLOW },
    );
    assert.equal(result.ok, false);
    const reason = result.ok ? '' : result.reason;
    assert.match(reason, /^failed: Access denied for user 'root'/);
    assert.ok(!reason.includes('wrong'));
  });
});
