import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { type EmbeddedDatabase, openMemoryDatabase, openPostgresDatabase } from '../src/db/database.js';
import { PREPARED, prepared, preparingPool } from '../src/db/prepared.js';

// Statements marked `prepared` run as named prepared statements on the embedded store, whose
// pooled connections share one backend session: names must not collide between connections,
// values must stay parameters, and a connection keeps a bounded number of them.
const silent = { info() {}, warn() {} };

type Named = { name: string; statement: string };

async function namedStatements(database: EmbeddedDatabase, marker: string): Promise<Named[]> {
  const result = await database.pool.query<Named>(
    'select name, statement from pg_prepared_statements where statement like $1 order by name',
    [`%${marker}%`],
  );
  return result.rows;
}

/** The same, through `db` (inside a transaction, which holds the embedded store's one backend). */
async function namedIn(db: Kysely<Record<string, never>>, marker: string): Promise<string[]> {
  const result = await sql<{ name: string }>`select name from pg_prepared_statements
    where statement like ${`%${marker}%`} and statement not like '%pg_prepared_statements%'`.execute(db);
  return result.rows.map((row) => row.name);
}

describe('prepared statements on the embedded store', { timeout: 300_000 }, () => {
  let database: EmbeddedDatabase;
  before(async () => {
    database = await openMemoryDatabase({ log: silent });
    await database.pool.query('create table notes (id int primary key, body text not null)');
    await database.pool.query("insert into notes select n, 'note ' || n from generate_series(1, 50) as n");
  });
  after(() => database.close());

  test('a marked statement answers with its own values on every connection, prepared once per connection', async () => {
    const byId = (id: number) =>
      prepared(sql<{ body: string; twice: number }>`select body, ${id}::int * 2 as twice
        from notes where id = ${id} /* marker-a */`).execute(database.db);
    // More at once than the pool has connections, so several connections prepare it.
    const ids = Array.from({ length: 40 }, (_, n) => n + 1);
    const results = await Promise.all(ids.map(byId));
    results.forEach((result, index) => {
      assert.deepEqual(result.rows, [{ body: `note ${index + 1}`, twice: (index + 1) * 2 }]);
    });
    const named = await namedStatements(database, 'marker-a');
    assert.ok(named.length >= 1, 'the statement was prepared');
    // One statement per connection: forty different values did not prepare forty statements.
    assert.ok(named.length <= 8, `${named.length} statements prepared for one text`);
    assert.equal(new Set(named.map((row) => row.name)).size, named.length);
    assert.equal(new Set(named.map((row) => row.name.split('_')[0])).size, 1, 'one text, one hash');
    // Again: nothing new is prepared, and the answers follow the new values.
    const again = await Promise.all(ids.map((id) => byId(51 - id)));
    for (const [index, result] of again.entries()) assert.equal(result.rows[0]?.body, `note ${50 - index}`);
    const after = await namedStatements(database, 'marker-a');
    assert.ok(after.length <= 8);
  });

  test('a marked query-builder select is prepared too; unmarked statements are not', async () => {
    const notes = database.db as unknown as Kysely<{ notes: { id: number; body: string } }>;
    const rows = await notes
      .selectFrom('notes')
      .modifyFront(PREPARED)
      .select('id')
      .where('body', '=', 'marker-b-none')
      .execute();
    assert.deepEqual(rows, []);
    const named = await database.pool.query<Named>(
      "select name, statement from pg_prepared_statements where statement like '%marker-b-none%'",
    );
    assert.equal(named.rows.length, 0, 'the value is a parameter, not in the text');
    const withAgents = await database.pool.query<Named>(
      'select name from pg_prepared_statements where statement like \'select /* prepared */%from "notes"%\'',
    );
    assert.equal(withAgents.rows.length, 1);
    await sql`select id from notes where id = ${3} /* marker-c */`.execute(database.db);
    assert.deepEqual(await namedStatements(database, 'marker-c'), []);
  });

  test('a failing run leaves the statement usable, also after a rolled-back transaction', async () => {
    const ratio = (d: number) =>
      prepared(sql<{ q: number }>`select 100 / ${d}::int as q /* marker-d */`).execute(database.db);
    await assert.rejects(ratio(0), /division by zero/);
    assert.deepEqual((await ratio(4)).rows, [{ q: 25 }]);
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        const inside = await prepared(sql<{ q: number }>`select 100 / ${5}::int as q /* marker-d */`).execute(
          trx,
        );
        assert.deepEqual(inside.rows, [{ q: 20 }]);
        await prepared(sql`select 100 / ${0}::int as q /* marker-d */`).execute(trx);
      }),
      /division by zero/,
    );
    assert.deepEqual((await ratio(10)).rows, [{ q: 10 }]);
  });

  test('a connection keeps at most its capacity: the least recently used is deallocated', async () => {
    const db = new Kysely<Record<string, never>>({
      dialect: new PostgresDialect({ pool: preparingPool(database.pool, 2) }),
    });
    // A transaction holds one connection, so all of these run on the same one.
    await db.transaction().execute(async (trx) => {
      const run = async (marker: string, id: number) => {
        const result = await prepared(
          sql<{ body: string }>`select body from notes where id = ${id} ${sql.raw(`/* ${marker} */`)}`,
        ).execute(trx);
        assert.equal(result.rows[0]?.body, `note ${id}`);
      };
      await run('marker-e1', 1);
      await run('marker-e2', 2);
      await run('marker-e1', 3); // e1 is now the most recently used
      await run('marker-e3', 4); // the connection is full: e2 goes
      assert.equal((await namedIn(trx, 'marker-e1')).length, 1);
      assert.deepEqual(await namedIn(trx, 'marker-e2'), []);
      assert.equal((await namedIn(trx, 'marker-e3')).length, 1);
      // The deallocated one is prepared again when it is used again (e1 goes this time).
      await run('marker-e2', 5);
      assert.equal((await namedIn(trx, 'marker-e2')).length, 1);
      assert.deepEqual(await namedIn(trx, 'marker-e1'), []);
    });
    // Not db.destroy(): it would end the shared pool.
  });
});

describe('prepared statements on PostgreSQL', { skip: !process.env.TEST_DATABASE_URL }, () => {
  test('a marked statement runs as an ordinary one: nothing is prepared on the server', async () => {
    const database = await openPostgresDatabase({
      url: process.env.TEST_DATABASE_URL ?? '',
      poolSize: 2,
      log: silent,
    });
    try {
      const result = await prepared(sql<{ n: number }>`select ${21}::int * 2 as n /* marker-pg */`).execute(
        database.db,
      );
      assert.deepEqual(result.rows, [{ n: 42 }]);
      const client = await database.pool.connect();
      try {
        const named = await client.query(
          "select name from pg_prepared_statements where statement like '%marker-pg%'",
        );
        assert.equal(named.rows.length, 0);
      } finally {
        client.release();
      }
    } finally {
      await database.close();
    }
  });
});
