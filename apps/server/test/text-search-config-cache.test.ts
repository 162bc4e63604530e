import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Kysely, type KyselyPlugin, PostgresDialect } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { createLogger } from '../src/logger.js';
import { textSearchConfig } from '../src/retrieval/text-search-config.js';
import { indexDocumentApp } from './support/index-document.js';
import { TEST_ENGINE } from './support/test-database.js';

const f = indexDocumentApp();
const { insertDocument, chunksVectorisedWith } = f;

describe(`textSearchConfig cache (${TEST_ENGINE})`, () => {
  /**
   * A second Kysely handle on the same pool (a database of its own for the cache) whose first
   * `queries` statements fail as they would while the database restarts; counts what it runs.
   */
  function flakyDatabase(failures: number): { db: Kysely<DB>; ran: () => number } {
    let remaining = failures;
    let ran = 0;
    const plugin: KyselyPlugin = {
      transformQuery(args) {
        ran += 1;
        if (remaining > 0) {
          remaining -= 1;
          throw new Error('the database system is starting up');
        }
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool: f.t.database.pool }),
      plugins: [plugin],
    });
    return { db, ran: () => ran };
  }

  test('a failed read is not cached: the next call asks again and succeeds', async () => {
    const flaky = flakyDatabase(1);
    await assert.rejects(textSearchConfig(flaky.db, 'de'), /starting up/);
    assert.equal(await textSearchConfig(flaky.db, 'de'), 'german');
    // Inside a transaction of the same database too (the index job reads through its trx).
    assert.equal(await flaky.db.transaction().execute((trx) => textSearchConfig(trx, 'fr')), 'french');
    assert.equal(flaky.ran(), 2, 'one failed read, one successful read, then the cached answer');
  });

  test('a success is cached per database, not process-wide', async () => {
    const first = flakyDatabase(0);
    assert.equal(await textSearchConfig(first.db, 'sv'), 'swedish');
    assert.equal(await textSearchConfig(first.db, 'en'), 'english');
    assert.equal(first.ran(), 1, 'read once for this database');
    const second = flakyDatabase(1);
    await assert.rejects(textSearchConfig(second.db, 'sv'), /starting up/, 'another database reads its own');
    assert.equal(await textSearchConfig(second.db, 'sv'), 'swedish');
    assert.equal(await textSearchConfig(first.db, 'nl'), 'dutch');
    assert.equal(first.ran(), 1);
  });

  test('an index job after a failed read indexes with the right configuration', async () => {
    const flaky = flakyDatabase(1);
    await assert.rejects(textSearchConfig(flaky.db, 'de'), /starting up/);
    const id = await insertDocument({
      language: 'de',
      text: 'Die Versandkosten werden erstattet.',
      hash: 'fafa0001',
    });
    await indexDocumentJob.handle(
      { documentId: id },
      {
        db: flaky.db,
        clock: f.t.clock,
        log: createLogger('silent'),
        jobId: 'test-job',
        attempt: 1,
        queue: f.t.queue,
      },
    );
    assert.equal(await chunksVectorisedWith(id, 'german'), 1);
  });
});
