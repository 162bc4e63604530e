import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type TSource, ZSearchResult, ZSource } from '@service/contract';
import { sql } from 'kysely';
import mysql from 'mysql2/promise';
import pg from 'pg';
import pino from 'pino';
import { expectData, expectValidation } from './support/http.js';
import {
  localPostgresUrl,
  LOCAL_MARIADB as MARIADB,
  LOCAL_MARIADB_ALLOW as MARIADB_ALLOW,
  LOCAL_POSTGRES as PG,
  LOCAL_POSTGRES_ALLOW as PG_ALLOW,
  unreachable,
} from './support/local-databases.js';
import { createAgent } from './support/site-sync.js';
import {
  completeJobs,
  documentsOfSource,
  indexSource,
  jobsFor,
  runFetchJob,
  sourceRow,
} from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

// Both databases are the machine's own, on loopback; SAFE_URL_ALLOW lets the guard through to them.
// A server that does not answer skips its tests by name (checked before the suite starts, so
// nothing waits on a client that never connected).
const PG_SKIP = await unreachable('PostgreSQL', PG);
const MARIADB_SKIP = await unreachable('MariaDB', MARIADB);
/** A loopback port neither server listens on, and so not in SAFE_URL_ALLOW. */
const UNLISTED_PORT = [5433, 5434, 5435].find((port) => port !== PG.port && port !== MARIADB.port) ?? 5436;
const PASSWORD = 'Sekrit-Pa55word-9c1f';
const SCHEMA = `sqlsrc_${process.pid}_${Date.now()}`;

/** Every row of every table of the service's store, as text, that contains `needle`. */
async function storeRowsContaining(t: TestApp, needle: string): Promise<string[]> {
  const tables = await sql<{ schema: string; name: string }>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_schema in ('public', 'pgboss') and table_type = 'BASE TABLE'`.execute(t.database.db);
  const found: string[] = [];
  for (const table of tables.rows) {
    const rows = await sql<{
      row: string;
    }>`select r::text as row from ${sql.table(`${table.schema}.${table.name}`)} r`.execute(t.database.db);
    for (const row of rows.rows)
      if (row.row.includes(needle)) found.push(`${table.schema}.${table.name}: ${row.row}`);
  }
  return found;
}

describe('admin API: sql sources (PostgreSQL and MariaDB on loopback)', () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;
  let admin: pg.Client | undefined;
  const logLines: string[] = [];
  const log = pino(
    { level: 'trace' },
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );

  const create = (body: unknown) =>
    injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/sources`, body, acme.auth);
  const pgSource = (query: string, extra: Record<string, unknown> = {}) => ({
    type: 'sql',
    engine: 'postgres',
    host: '127.0.0.1',
    port: PG.port,
    database: PG.database,
    user: PG.user,
    password: PASSWORD,
    query,
    title_column: 'name',
    id_column: 'sku',
    url_column: 'link',
    ...extra,
  });
  const search = async (query: string) =>
    expectData(
      await injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/search`, { query }, acme.auth),
      200,
      ZSearchResult,
    );

  /** The seeding connection to PostgreSQL (only the tests that run with it reachable use it). */
  const seeded = (): pg.Client => {
    if (!admin) throw new Error('PostgreSQL was not seeded');
    return admin;
  };

  before(async () => {
    t = await createTestApp({ env: { SAFE_URL_ALLOW: [...PG_ALLOW, ...MARIADB_ALLOW].join(',') } });
    acme = await seedTenant(t, 'Acme');
    agentId = await createAgent(t, acme);
    if (PG_SKIP) return;
    const client = new pg.Client({ connectionString: localPostgresUrl(), connectionTimeoutMillis: 10_000 });
    await client.connect();
    admin = client;
    await client.query(`create schema ${SCHEMA}`);
    await client.query(
      `create table ${SCHEMA}.products (sku text primary key, name text, description text, link text, price numeric)`,
    );
    await client.query(
      `insert into ${SCHEMA}.products values
        ('TT-1', 'Ridge Runner', 'Trail shoe with a rock plate and deep lugs for muddy descents.', 'https://shop.example.com/ridge', 129),
        ('TT-2', 'Harbour Slip', 'Canvas deck shoe, machine washable at thirty degrees.', 'https://shop.example.com/harbour', 59),
        ('TT-3', 'Summit Boot', 'Waterproof leather boot with a membrane lining.', 'javascript:alert(1)', 189)`,
    );
  });
  after(async () => {
    await admin?.query(`drop schema if exists ${SCHEMA} cascade`);
    await admin?.end();
    await t.close();
  });

  test('rows become documents, searchable; the password is sealed and never stored, shown or logged', {
    skip: PG_SKIP,
  }, async () => {
    const res = await create(
      pgSource(`SELECT sku, name, description, link, price FROM ${SCHEMA}.products ORDER BY sku;`),
    );
    const source = expectData(res, 201, ZSource);
    assert.equal(source.type, 'sql');
    assert.equal(source.status, 'queued');
    assert.equal(source.name, `postgres://127.0.0.1/${PG.database}`);
    assert.deepEqual(source.config, {
      engine: 'postgres',
      host: '127.0.0.1',
      port: PG.port,
      database: PG.database,
      user: PG.user,
      query: `SELECT sku, name, description, link, price FROM ${SCHEMA}.products ORDER BY sku`,
      ssl: false,
      title_column: 'name',
      id_column: 'sku',
      url_column: 'link',
    });
    assert.ok(!res.body.includes(PASSWORD));
    const stored = await sourceRow(t, source.id);
    assert.match(String(stored.config.password_sealed), /^v1\./);

    await runFetchJob(t, source.id, log);
    const fetched = await sourceRow(t, source.id);
    assert.equal(fetched.error, null);
    assert.equal(fetched.status, 'indexing');
    const docs = await documentsOfSource(t, source.id);
    assert.deepEqual(docs.map((doc) => doc.external_id).sort(), ['TT-1', 'TT-2', 'TT-3']);
    const ridge = docs.find((doc) => doc.external_id === 'TT-1');
    assert.equal(ridge?.title, 'Ridge Runner');
    assert.equal(ridge?.url, 'https://shop.example.com/ridge');
    assert.match(ridge?.content_text ?? '', /description: Trail shoe with a rock plate/);
    assert.match(ridge?.content_text ?? '', /price: 129/);
    assert.equal(docs.find((doc) => doc.external_id === 'TT-3')?.url, null, 'a javascript: link is no URL');

    assert.equal(await indexSource(t, source.id), 3);
    const shown = expectData(
      await injectJson(t.app, 'GET', `/api/v1/admin/sources/${source.id}`, undefined, acme.auth),
      200,
      ZSource,
    );
    assert.equal(shown.status, 'indexed');
    assert.equal(shown.document_count, 3);
    assert.equal(shown.progress.documents_indexed, 3);
    assert.equal(shown.progress.last_run?.fetched, 3);
    assert.equal(shown.progress.last_run?.stopped_by, 'done');
    const hits = await search('muddy descents');
    assert.equal(hits.hits[0]?.title, 'Ridge Runner');

    assert.deepEqual(await storeRowsContaining(t, PASSWORD), [], 'the password is nowhere in the store');
    assert.ok(!logLines.join('').includes(PASSWORD), 'nor in the logs');
    const list = await injectJson(
      t.app,
      'GET',
      `/api/v1/admin/agents/${agentId}/sources`,
      undefined,
      acme.auth,
    );
    assert.ok(!list.body.includes(PASSWORD) && !list.body.includes('password_sealed'));
  });

  test('re-index re-reads the rows: a changed row is re-indexed, a deleted row removed, others untouched', {
    skip: PG_SKIP,
  }, async () => {
    const source = expectData(
      await create(pgSource(`SELECT sku, name, description, link FROM ${SCHEMA}.products`)),
      201,
      ZSource,
    );
    await runFetchJob(t, source.id);
    await indexSource(t, source.id);
    await completeJobs(t, 'fetch-source', source.id);
    const before = new Map((await documentsOfSource(t, source.id)).map((doc) => [doc.external_id, doc]));

    await seeded().query(
      `update ${SCHEMA}.products set description = 'Now with a wider toe box.' where sku = 'TT-2'`,
    );
    await seeded().query(`delete from ${SCHEMA}.products where sku = 'TT-3'`);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${source.id}/reindex`,
      headers: acme.auth,
    });
    assert.equal(expectData(res, 202, ZSource).status, 'queued');
    await runFetchJob(t, source.id);
    const after = await documentsOfSource(t, source.id);
    assert.deepEqual(after.map((doc) => doc.external_id).sort(), ['TT-1', 'TT-2']);
    const pending = after.filter((doc) => doc.index_status !== 'indexed').map((doc) => doc.external_id);
    assert.deepEqual(pending, ['TT-2'], 'only the changed row waits for indexing');
    assert.equal(after.find((doc) => doc.external_id === 'TT-1')?.id, before.get('TT-1')?.id);
    const shown = expectData(
      await injectJson(t.app, 'GET', `/api/v1/admin/sources/${source.id}`, undefined, acme.auth),
      200,
      ZSource,
    );
    assert.equal(shown.progress.last_run?.removed, 1);
  });

  test('anything but one read-only SELECT is 422 with the reason, and nothing is stored', {
    skip: PG_SKIP,
  }, async () => {
    const count = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('sources')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    for (const query of [
      `DELETE FROM ${SCHEMA}.products`,
      `UPDATE ${SCHEMA}.products SET price = 0`,
      `SELECT 1; DELETE FROM ${SCHEMA}.products`,
      `SELECT 1 /* harmless */; DROP TABLE ${SCHEMA}.products`,
      `SELECT 1 -- comment\n; DROP TABLE ${SCHEMA}.products`,
      `WITH d AS (DELETE FROM ${SCHEMA}.products RETURNING *) SELECT * FROM d`,
      `SELECT * FROM ${SCHEMA}.products FOR UPDATE`,
      `SELECT * INTO ${SCHEMA}.copy FROM ${SCHEMA}.products`,
      'SELECT pg_sleep(60)',
      "SELECT pg_read_file('/etc/passwd')",
      `INSERT INTO ${SCHEMA}.products (sku) VALUES ('x')`,
      'not sql at all',
    ]) {
      const res = await create(pgSource(query));
      const { errors } = expectValidation(res, ['query']);
      assert.ok((errors.query?.[0] ?? '').length > 10, `${query}: ${res.body}`);
      assert.ok(!res.body.includes(PASSWORD));
    }
    assert.equal(await count(), before);
    const rows = await seeded().query(`select count(*)::int as n from ${SCHEMA}.products`);
    assert.ok(rows.rows[0].n >= 2, 'the table is intact');
  });

  test('a private or metadata host is refused by the guard when the job runs; nothing is contacted', async () => {
    for (const [host, pattern] of [
      ['10.0.0.5', /^refused: .*private/i],
      ['169.254.169.254', /^refused: /],
      ['127.0.0.1', /^refused: /], // loopback on a port SAFE_URL_ALLOW does not list
      ['db.internal', /^refused: /],
    ] as const) {
      const port = host === '127.0.0.1' ? UNLISTED_PORT : 5432;
      const source = expectData(await create(pgSource('SELECT 1 AS sku', { host, port })), 201, ZSource);
      await runFetchJob(t, source.id);
      const row = await sourceRow(t, source.id);
      assert.equal(row.status, 'failed', host);
      assert.match(row.error ?? '', pattern, `${host}: ${row.error}`);
      assert.ok(!(row.error ?? '').includes(PASSWORD));
      assert.equal((await documentsOfSource(t, source.id)).length, 0);
    }
  });

  test('a wrong APP_KEY cannot open the password: the source fails with a clear reason', async () => {
    const source = expectData(
      await create(pgSource(`SELECT sku, name FROM ${SCHEMA}.products`)),
      201,
      ZSource,
    );
    // The sealed value is bound to its source: copied to another source it does not open.
    const other = expectData(
      await create(pgSource(`SELECT sku, name FROM ${SCHEMA}.products`)),
      201,
      ZSource,
    );
    const sealed = (await sourceRow(t, source.id)).config.password_sealed;
    const config = { ...(await sourceRow(t, other.id)).config, password_sealed: sealed };
    await t.database.db
      .updateTable('sources')
      .set({ config: JSON.stringify(config) })
      .where('id', '=', other.id)
      .execute();
    await runFetchJob(t, other.id);
    const row = await sourceRow(t, other.id);
    assert.equal(row.status, 'failed');
    assert.match(row.error ?? '', /cannot be decrypted/);
  });

  test('MariaDB: rows become documents through the mysql protocol', { skip: MARIADB_SKIP }, async (ctx) => {
    let conn: mysql.Connection;
    try {
      conn = await mysql.createConnection({
        host: MARIADB.host,
        port: MARIADB.port,
        user: MARIADB.user,
        password: MARIADB.password,
        database: MARIADB.database,
        connectTimeout: 10_000,
      });
    } catch (error) {
      ctx.skip(`MariaDB is not reachable: ${String(error)}`);
      return;
    }
    const table = `faq_${process.pid}_${Date.now()}`;
    try {
      await conn.query(`create table ${table} (id int primary key, question text, answer text)`);
      await conn.query(
        `insert into ${table} values (1, 'Do you ship abroad?', 'Yes, to forty countries with tracked parcels.'), (2, 'Gift wrap?', 'Free gift wrapping on request.')`,
      );
      const source = expectData(
        await create({
          type: 'sql',
          engine: 'mysql',
          host: '127.0.0.1',
          port: MARIADB.port,
          database: MARIADB.database,
          user: MARIADB.user,
          password: MARIADB.password,
          query: `SELECT id, question, answer FROM ${table}`,
          id_column: 'id',
          title_column: 'question',
        }),
        201,
        ZSource,
      );
      assert.equal((source as TSource).config.port, MARIADB.port);
      await runFetchJob(t, source.id);
      const row = await sourceRow(t, source.id);
      assert.equal(row.error, null);
      const docs = await documentsOfSource(t, source.id);
      assert.deepEqual(docs.map((doc) => doc.title).sort(), ['Do you ship abroad?', 'Gift wrap?']);
      await indexSource(t, source.id);
      assert.equal((await search('tracked parcels countries')).hits[0]?.title, 'Do you ship abroad?');
      assert.equal(await jobsFor(t, 'fetch-source', source.id), 1);
    } finally {
      await conn.query(`drop table if exists ${table}`);
      await conn.end();
    }
  });
});
