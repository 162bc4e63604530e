import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import {
  type Database,
  openEmbeddedDatabase,
  sessionSetup,
  VECTOR_SESSION_SETTINGS,
} from '../src/db/database.js';
import { cacheMbFor, directoryBytes, embeddedCacheMb } from '../src/db/embedded-cache.js';
import { createTestDatabase, TEST_ENGINE } from './support/test-database.js';

const MB = 1024 * 1024;
const GB = 1024 * MB;

describe('embedded store: buffer cache sized from the data', () => {
  test('60 % of the data, in 16 MB steps, between 128 MB and min(1 GB, a quarter of the memory)', () => {
    const cases: Array<[data: number, memory: number, cache: number]> = [
      [0, 24 * GB, 128], // a new store keeps PGlite's default
      [150 * MB, 24 * GB, 128], // 90 MB wanted: the floor
      [250 * MB, 24 * GB, 160], // 150 MB, rounded up to 160
      [673 * MB, 24 * GB, 416], // the 100k-chunk benchmark store
      [5 * GB, 24 * GB, 1024], // the WebAssembly heap's ceiling
      [5 * GB, 2 * GB, 512], // a quarter of a small machine
      [5 * GB, 256 * MB, 128], // never below the default, even on a tiny machine
    ];
    for (const [data, memory, cache] of cases) {
      assert.equal(
        embeddedCacheMb(data, memory),
        cache,
        `${data / MB} MB of data, ${memory / MB} MB of memory`,
      );
    }
  });

  test('counts the bytes of the tables and indexes, not the write-ahead log', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-cache-'));
    try {
      assert.equal(await directoryBytes(join(dir, 'missing')), 0);
      await mkdir(join(dir, 'base', '5'), { recursive: true });
      await mkdir(join(dir, 'pg_wal'), { recursive: true });
      await writeFile(join(dir, 'base', '5', '16384'), Buffer.alloc(300 * 1024));
      await writeFile(join(dir, 'base', '5', '16385'), Buffer.alloc(200 * 1024));
      await writeFile(join(dir, 'pg_wal', '000000010000000000000001'), Buffer.alloc(900 * 1024));
      assert.equal(await directoryBytes(join(dir, 'base')), 500 * 1024);
      assert.equal(await cacheMbFor(dir), 128, 'a small store keeps the default');
      assert.equal(await cacheMbFor(dir, 48), 48, 'EMBEDDED_CACHE_MB wins');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('the store opens with the configured cache, or the sized one', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-cache-'));
    const silent = { info() {}, warn() {} };
    const shared = async (database: Database) =>
      (await sql<{ cache: string }>`select current_setting('shared_buffers') as cache`.execute(database.db))
        .rows[0]?.cache;
    try {
      const sized = await openEmbeddedDatabase({ dataDir, log: silent });
      try {
        assert.equal(await shared(sized), '128MB');
      } finally {
        await sized.close();
      }
      const configured = await openEmbeddedDatabase({ dataDir, log: silent, cacheMb: 160 });
      try {
        assert.equal(await shared(configured), '160MB');
      } finally {
        await configured.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe(`session settings for vector search (${TEST_ENGINE})`, () => {
  let database: Database;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.close());

  test('every connection has them before its first query, with or without pgvector', async () => {
    // Several connections on PostgreSQL (the pool makes new ones), the one on PGlite.
    const rows = await Promise.all(
      [1, 2, 3].map(() =>
        sql<{ ef: string; scan: string }>`
          select current_setting('hnsw.ef_search') as ef,
            current_setting('hnsw.iterative_scan') as scan`.execute(database.db),
      ),
    );
    for (const result of rows) {
      assert.equal(result.rows[0]?.ef, '100');
      assert.equal(result.rows[0]?.scan, 'relaxed_order');
    }
  });

  test('a setting the server refuses is reported once and does not stop the others', async () => {
    const warnings: string[] = [];
    const setup = sessionSetup({ info() {}, warn: (message) => warnings.push(message) });
    const applied: string[] = [];
    const client = {
      async query(text: string) {
        if (text.includes('iterative_scan'))
          throw new pg.DatabaseError('unrecognized configuration parameter', 0, 'error');
        applied.push(text);
        return { rows: [] };
      },
    };
    await setup(client);
    await setup(client);
    assert.deepEqual(applied, [VECTOR_SESSION_SETTINGS[0], VECTOR_SESSION_SETTINGS[0]]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /iterative_scan.*unrecognized configuration parameter/);
  });

  test('a connection lost during the settings fails the connect', async () => {
    const setup = sessionSetup({ info() {}, warn() {} });
    const client = {
      async query(): Promise<unknown> {
        throw new Error('the embedded store stopped unexpectedly');
      },
    };
    await assert.rejects(setup(client), /stopped unexpectedly/);
  });

  test("chunks keep their full-text vector in the row (storage 'main')", async () => {
    const result = await sql<{ storage: string }>`
      select attstorage as storage from pg_attribute
      where attrelid = 'chunks'::regclass and attname = 'tsv'`.execute(database.db);
    assert.equal(result.rows[0]?.storage, 'm');
  });
});
