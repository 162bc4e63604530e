import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import { loadMigrations } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { prepareStore } from '../src/service.js';
import { createTestDatabase } from './support/test-database.js';

const database = await createTestDatabase({ empty: true });
after(() => database.close());

test('processes starting together on one empty database all come up (migrations, queue schema)', {
  timeout: 60_000,
}, async () => {
  const log = createLogger('silent');
  // On PostgreSQL these run on separate connections, like separate processes; unserialised,
  // the queue's schema creation collides ("duplicate key … pg_namespace").
  const started = await Promise.all([1, 2, 3].map(() => prepareStore(database, log, [])));
  try {
    const expected = (await loadMigrations()).length;
    for (const { migrations } of started) assert.equal(migrations.length, expected);
    const applied = await sql<{ n: string }>`select count(*) as n from schema_migrations`.execute(
      database.db,
    );
    assert.equal(Number(applied.rows[0]?.n), expected);
    const schema = await sql<{ n: string }>`
      select count(*) as n from information_schema.schemata where schema_name = 'pgboss'`.execute(
      database.db,
    );
    assert.equal(Number(schema.rows[0]?.n), 1);
  } finally {
    for (const { queue } of started) await queue.stop(1_000);
  }
});
