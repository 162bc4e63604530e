import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ZSource } from '@service/contract';
import { sql } from 'kysely';
import { maintainStoreJob } from '../src/jobs/maintain-store.js';
import { createLogger } from '../src/logger.js';
import { expectData } from './support/http.js';
import { createAgent } from './support/site-sync.js';
import { indexSource } from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';

/** Paragraphs of distinct words, about 1,000 characters each: one chunk apiece. */
function manual(paragraphs: number): string {
  return Array.from({ length: paragraphs }, (_, i) =>
    Array.from({ length: 40 }, (_, j) => `word${i}x${j} lantern${j}`).join(' '),
  ).join('.\n\n');
}

/**
 * A source that finishes indexing queues the store's maintenance (`indexed`) in the same
 * transaction; on the embedded store (no autovacuum) that run gives the filled tables planner
 * statistics at once instead of at the next scheduled run, and leaves the first run's sweep of
 * every table to the schedule. On PostgreSQL the run does nothing (autovacuum's work).
 */
describe(`a source that finishes indexing queues the store's maintenance (${TEST_ENGINE})`, () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme');
    agentId = await createAgent(t, acme, { language_default: 'en' });
  });
  after(() => t?.close());

  const maintenanceJobs = async () =>
    (
      await sql<{ reason: string; state: string }>`
        select data->>'reason' as reason, state::text from pgboss.job where name = 'maintain-store'
        order by created_on`.execute(t.database.db)
    ).rows;
  const chunkStats = async () => {
    // The backend reports its counters at most once a second, when idle: give it the second.
    await sleep(1_100);
    await sql`select 1`.execute(t.database.db);
    const result = await sql<{ changed: string; reltuples: number }>`
      select s.n_mod_since_analyze as changed, c.reltuples from pg_stat_user_tables s
      join pg_class c on c.oid = s.relid where s.schemaname = 'public' and s.relname = 'chunks'`.execute(
      t.database.db,
    );
    const row = result.rows[0];
    assert.ok(row);
    return { changed: Number(row.changed), reltuples: Number(row.reltuples) };
  };

  test('indexing a 700-chunk text source queues one `indexed` maintenance run when it settles', async () => {
    const created = expectData(
      await injectJson(
        t.app,
        'POST',
        `/api/v1/admin/agents/${agentId}/sources`,
        { type: 'text', name: 'Manual', text: manual(700) },
        acme.auth,
      ),
      201,
      ZSource,
    );
    assert.deepEqual(await maintenanceJobs(), [], 'nothing queued before the source is indexed');
    await indexSource(t, created.id);
    const source = expectData(
      await t.app.inject({ url: `/api/v1/admin/sources/${created.id}`, headers: acme.auth }),
      200,
      ZSource,
    );
    assert.equal(source.status, 'indexed');
    assert.ok(source.progress.chunks_total >= 700, `chunks: ${source.progress.chunks_total}`);
    assert.deepEqual(await maintenanceJobs(), [{ reason: 'indexed', state: 'created' }]);
  });

  test('the run analyzes the tables the source filled (embedded store): ANALYZE only, no sweep of every table', async () => {
    const before = await chunkStats();
    assert.ok(before.changed >= 700, `chunks changed since their last statistics: ${before.changed}`);
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    await maintainStoreJob.handle(
      { reason: 'indexed' },
      { db: t.database.db, log, clock: t.clock, jobId: 'test', attempt: 1 },
    );
    const afterRun = await chunkStats();
    if (TEST_ENGINE !== 'pglite') {
      assert.deepEqual(lines, [], 'PostgreSQL: autovacuum keeps the statistics; the run does nothing');
      return;
    }
    assert.equal(afterRun.changed, 0, 'chunks analyzed');
    assert.ok(afterRun.reltuples >= 700, `the planner counts the chunks: ${afterRun.reltuples}`);
    const finished = lines.find((line) => line.msg === 'store maintenance finished');
    assert.equal(finished?.reason, 'indexed');
    assert.equal(finished?.sweep, undefined, 'not the first run’s sweep of every table');
    assert.equal(lines.find((line) => line.table === 'public.chunks')?.action, 'analyze');
    assert.ok(
      lines.every((line) => line.action !== 'vacuum analyze'),
      'never a VACUUM, which may hold the store for minutes on a large one',
    );
  });
});
