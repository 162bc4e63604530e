import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type EmbeddedDatabase, openMemoryDatabase } from '../src/db/database.js';

// The embedded store runs in its own thread, shared by several pooled connections; these tests
// run on it whatever TEST_DATABASE_URL says (PostgreSQL has none of this), so CI's PostgreSQL
// pass leaves the file out:
// engine-files: embedded only
const silent = { info() {}, warn() {} };

describe('embedded store thread', { timeout: 300_000 }, () => {
  let database: EmbeddedDatabase;
  before(async () => {
    database = await openMemoryDatabase({ log: silent });
    await database.pool.query('create table items (id int primary key, body text not null)');
  });
  after(() => database.close());

  test('timers keep firing while a long statement runs', async () => {
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 20);
    let ticks = 0;
    const counter = setInterval(() => {
      ticks += 1;
    }, 50);
    try {
      // Six seconds of work inside the store: on the main thread it blocked every timer as long.
      await database.pool.query('select pg_sleep(6)');
    } finally {
      clearInterval(ticker);
      clearInterval(counter);
    }
    assert.ok(ticks > 10, `the 50 ms timer fired ${ticks} times during the statement`);
    // Very generous for a loaded machine; the statement alone would have taken 6 s.
    assert.ok(longestGap < 3_000, `the event loop stalled for ${Math.round(longestGap)} ms`);
  });

  test('many parallel extended-protocol queries with big binds, on several connections, get their own rows', async () => {
    const payloads = Array.from({ length: 48 }, (_, index) => `${index}:${'x'.repeat(20_000 + index * 997)}`);
    const results = await Promise.all(
      payloads.map((payload, index) =>
        database.pool.query<{ echo: string; n: number; len: number }>(
          'select $1::text as echo, $2::int * 2 as n, length($1::text) as len',
          [payload, index],
        ),
      ),
    );
    results.forEach((result, index) => {
      assert.equal(result.rows.length, 1);
      assert.equal(result.rows[0]?.echo, payloads[index]);
      assert.equal(result.rows[0]?.n, index * 2);
      assert.equal(result.rows[0]?.len, payloads[index]?.length);
    });
    // And writes from both pools, interleaved at will, land once each.
    await Promise.all(
      payloads.map((payload, index) =>
        (index % 2 === 0 ? database.pool : database.background.pool).query(
          'insert into items (id, body) values ($1, $2)',
          [index, payload],
        ),
      ),
    );
    const stored = await database.pool.query<{ id: number; body: string }>(
      'select id, body from items order by id',
    );
    assert.deepEqual(
      stored.rows.map((row) => row.body),
      payloads,
    );
    await database.pool.query('delete from items');
  });

  test("a transaction on one connection neither sees nor takes in another connection's statements", async () => {
    const holder = await database.pool.connect();
    try {
      await holder.query('begin');
      await holder.query("insert into items (id, body) values (1, 'in the transaction')");
      // Sent while the transaction is open: they wait for it, never run inside it.
      const otherInsert = database.pool.query("insert into items (id, body) values (2, 'outside')");
      const otherCount = database.background.pool.query<{ n: string }>(
        'select count(*) as n from items where id = 1',
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const inside = await holder.query<{ id: number }>('select id from items order by id');
      assert.deepEqual(
        inside.rows.map((row) => row.id),
        [1],
      );
      await holder.query('rollback');
      await otherInsert;
      // Had it run inside the transaction it would have seen row 1 (and the rollback would have taken row 2).
      assert.equal((await otherCount).rows[0]?.n, '0');
    } finally {
      holder.release();
    }
    const after = await database.pool.query<{ id: number }>('select id from items order by id');
    assert.deepEqual(
      after.rows.map((row) => row.id),
      [2],
    );
    await database.pool.query('delete from items');
  });

  test('a connection dropped inside a transaction is rolled back and frees the store', async () => {
    const holder = await database.pool.connect();
    await holder.query('begin');
    await holder.query("insert into items (id, body) values (3, 'dropped')");
    const waiting = database.pool.query<{ n: string }>('select count(*) as n from items where id = 3');
    // Released with an error: the pool closes the connection instead of reusing it.
    holder.release(new Error('dropped by the test'));
    assert.equal((await waiting).rows[0]?.n, '0');
    const status = await database.pool.query<{ tx: string }>('select txid_current_if_assigned()::text as tx');
    assert.equal(status.rows[0]?.tx, null);
  });
});

describe('embedded store thread that stops', { timeout: 300_000 }, () => {
  test('pending queries fail with a clear error, the crash is logged and reported, new queries fail too', async () => {
    const errors: string[] = [];
    const crashes: Error[] = [];
    const database = await openMemoryDatabase({
      log: { ...silent, error: (message) => errors.push(message) },
      onCrash: (error) => crashes.push(error),
    });
    try {
      const pending = database.pool.query('select pg_sleep(30)');
      const queued = database.background.pool.query('select 1');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await database.thread.kill();
      await assert.rejects(pending, /embedded store stopped unexpectedly/);
      await assert.rejects(queued, /embedded store stopped unexpectedly/);
      await assert.rejects(database.pool.query('select 1'), /embedded store stopped unexpectedly/);
      assert.equal(crashes.length, 1);
      assert.equal(errors.length, 1);
      assert.match(errors[0] ?? '', /embedded store stopped unexpectedly.*pending queries failed/);
    } finally {
      await database.close();
    }
  });
});
