import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kysely, type KyselyPlugin, PostgresDialect, sql } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { createLogger } from '../src/logger.js';
import { textSearchConfig } from '../src/retrieval/text-search-config.js';
import { newId } from '../src/security/ids.js';
import { createAgent, updateAgent } from '../src/services/agents/agents.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';

let t: TestApp;
let workspaceId: string;
let agentId: string;
let sourceId: string;

before(async () => {
  t = await createTestApp();
  const tenant = await seedTenant(t);
  workspaceId = tenant.workspace.id;
  const agent = await createAgent(
    { db: t.database.db, clock: t.clock, workspaceId, actor: { type: 'cli', id: null }, queue: t.queue },
    { name: 'Index bot' },
  );
  agentId = agent.id;
  sourceId = newId();
  await t.database.db
    .insertInto('sources')
    .values({
      id: sourceId,
      workspace_id: workspaceId,
      agent_id: agentId,
      type: 'site',
      name: 'https://shop.example.com (site content)',
      error: null,
      site_url: 'https://shop.example.com',
      plugin_version: '1.2.0',
      plugin_base: 'https://shop.example.com/wp-json/service/v1/',
      api_token_id: null,
      last_synced_at: new Date(),
    })
    .execute();
});
after(() => t.close());

let externalCounter = 0;

/** Inserts a pending document as a sync would leave it, and returns its id. */
async function insertDocument(input: {
  language: string | null;
  text: string;
  hash: string;
}): Promise<string> {
  externalCounter += 1;
  const id = newId();
  await t.database.db
    .insertInto('documents')
    .values({
      id,
      workspace_id: workspaceId,
      agent_id: agentId,
      source_id: sourceId,
      external_id: String(externalCounter),
      kind: 'post',
      title: `Post ${externalCounter}`,
      url: `https://shop.example.com/p/${externalCounter}`,
      language: input.language,
      content_text: input.text,
      content_hash: input.hash,
      metadata: '{}',
      modified_at: '2026-01-01T10:00:00+00:00',
      indexed_hash: null,
      indexed_at: null,
    })
    .execute();
  return id;
}

function runIndex(documentId: string): Promise<void> {
  return indexDocumentJob.handle(
    { documentId },
    {
      db: t.database.db,
      clock: t.clock,
      log: createLogger('silent'),
      jobId: 'test-job',
      attempt: 1,
      queue: t.queue,
    },
  );
}

type ChunkView = { id: string; ordinal: number; content: string; tsv: string };

async function chunksOf(documentId: string): Promise<ChunkView[]> {
  const result = await sql<ChunkView>`
    select id, ordinal, content, tsv::text as tsv from chunks
    where document_id = ${documentId} order by ordinal`.execute(t.database.db);
  return result.rows;
}

/** How many of the document's chunks a `websearch_to_tsquery(config, query)` finds. */
async function matches(documentId: string, config: string, query: string): Promise<number> {
  const result = await sql<{ n: number }>`
    select count(*)::int as n from chunks
    where document_id = ${documentId} and tsv @@ websearch_to_tsquery(${config}::regconfig, ${query})`.execute(
    t.database.db,
  );
  return result.rows[0]?.n ?? 0;
}

/** How many of the document's chunks carry exactly `to_tsvector(config, content)`. */
async function chunksVectorisedWith(documentId: string, config: string): Promise<number> {
  const result = await sql<{ n: number }>`
    select count(*)::int as n from chunks
    where document_id = ${documentId} and tsv = to_tsvector(${config}::regconfig, content)`.execute(
    t.database.db,
  );
  return result.rows[0]?.n ?? 0;
}

async function documentState(documentId: string) {
  return t.database.db
    .selectFrom('documents')
    .select(['index_status', 'indexed_hash', 'content_hash', 'indexed_at'])
    .where('id', '=', documentId)
    .executeTakeFirstOrThrow();
}

/** Long enough for several chunks at the default 1200 characters. */
function longEnglish(topic: string, sentences: number): string {
  return Array.from(
    { length: sentences },
    (_, i) => `Sentence ${i} about ${topic}: customers asked about the ${topic} and we answered them.`,
  ).join(' ');
}

describe(`index-document job (${TEST_ENGINE})`, () => {
  test('an English document is chunked with the english configuration: stemming applies', async () => {
    const id = await insertDocument({
      language: 'en',
      text: 'Returns policy\n\nRefunds are issued within 30 days of receiving the returned items.',
      hash: 'aaaa0001',
    });
    await runIndex(id);
    const chunks = await chunksOf(id);
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0]?.ordinal, 0);
    assert.match(chunks[0]?.content ?? '', /^Returns policy\n\nRefunds are issued/);
    // 'refunds' is stored as the stem 'refund'; stop words are gone.
    assert.match(chunks[0]?.tsv ?? '', /'refund'/);
    assert.doesNotMatch(chunks[0]?.tsv ?? '', /'the'|'are'/);
    assert.equal(await matches(id, 'english', 'refund'), 1);
    assert.equal(await matches(id, 'english', 'returning'), 1);
    assert.equal(await matches(id, 'english', 'warranty'), 0);
    assert.equal(await chunksVectorisedWith(id, 'english'), 1);
    const state = await documentState(id);
    assert.equal(state.index_status, 'indexed');
    assert.equal(state.indexed_hash, 'aaaa0001');
    assert.ok(state.indexed_at instanceof Date);
  });

  test('a regional tag uses its language (en-gb → english)', async () => {
    assert.equal(await textSearchConfig(t.database.db, 'en-gb'), 'english');
    const id = await insertDocument({ language: 'en-gb', text: 'Refunds take five days.', hash: 'aaaa0002' });
    await runIndex(id);
    assert.equal(await chunksVectorisedWith(id, 'english'), 1);
    assert.equal(await matches(id, 'english', 'refund'), 1);
  });

  test('a German document uses the german configuration', async () => {
    assert.equal(await textSearchConfig(t.database.db, 'de'), 'german');
    const text = 'Rückerstattungen\n\nDie Versandkosten werden innerhalb von vierzehn Tagen erstattet.';
    const id = await insertDocument({ language: 'de', text, hash: 'bbbb0001' });
    await runIndex(id);
    const chunks = await chunksOf(id);
    assert.equal(chunks.length, 1);
    assert.equal(await chunksVectorisedWith(id, 'german'), 1);
    assert.equal(await chunksVectorisedWith(id, 'simple'), 0, 'stemmed, not the simple configuration');
    assert.doesNotMatch(chunks[0]?.tsv ?? '', /'die'|'von'/, 'German stop words removed');
    assert.equal(await matches(id, 'german', 'Versandkosten'), 1);
    assert.equal(await matches(id, 'german', 'Tag'), 1, 'Tagen is stemmed to tag');
    assert.match(chunks[0]?.tsv ?? '', /'tag'/);
    assert.doesNotMatch(chunks[0]?.tsv ?? '', /'tagen'/);
  });

  test('an unknown or missing language uses the simple configuration', async () => {
    assert.equal(await textSearchConfig(t.database.db, 'xx'), 'simple');
    assert.equal(await textSearchConfig(t.database.db, null), 'simple');
    const cases: Array<{ language: string | null; hash: string }> = [
      { language: 'xx', hash: 'cccc0001' },
      { language: null, hash: 'cccc0002' },
    ];
    for (const { language, hash } of cases) {
      const id = await insertDocument({ language, text: 'Refunds are issued within the week.', hash });
      await runIndex(id);
      assert.equal(await chunksVectorisedWith(id, 'simple'), 1, `language ${language}`);
      // No stemming and no stop words removed: 'refunds' and 'the' stay as they are.
      const [chunk] = await chunksOf(id);
      assert.match(chunk?.tsv ?? '', /'refunds'/);
      assert.match(chunk?.tsv ?? '', /'the'/);
      assert.equal(await matches(id, 'simple', 'refund'), 0);
    }
  });

  test("a document without a language takes its agent's; changing the agent's language re-indexes it", async () => {
    const agents = {
      db: t.database.db,
      clock: t.clock,
      workspaceId,
      actor: { type: 'cli' as const, id: null },
      queue: t.queue,
    };
    const french = await createAgent(agents, { name: 'Bot FR', language_default: 'fr' });
    const source = newId();
    await t.database.db
      .insertInto('sources')
      .values({ id: source, workspace_id: workspaceId, agent_id: french.id, type: 'text', name: 'Texte' })
      .execute();
    const id = newId();
    await t.database.db
      .insertInto('documents')
      .values({
        id,
        workspace_id: workspaceId,
        agent_id: french.id,
        source_id: source,
        external_id: 'text',
        kind: 'text',
        language: null,
        content_text: 'Les remboursements sont effectués sous trente jours.',
        content_hash: 'ffff0001',
      })
      .execute();
    await runIndex(id);
    assert.equal(await chunksVectorisedWith(id, 'french'), 1, 'indexed in the agent language');
    await updateAgent(agents, french.id, { language_default: 'de' });
    const state = await documentState(id);
    assert.equal(state.index_status, 'pending');
    assert.equal(state.indexed_hash, null);
    const queued = await sql<{ n: number }>`
      select count(*)::int as n from pgboss.job where name = 'index-document' and singleton_key = ${id}`.execute(
      t.database.db,
    );
    assert.equal(queued.rows[0]?.n, 1);
    await runIndex(id);
    assert.equal(await chunksVectorisedWith(id, 'german'), 1, 're-indexed in the new language');
  });

  test('a long document becomes several ordered chunks, each findable', async () => {
    const text = longEnglish('delivery', 60);
    const id = await insertDocument({ language: 'en', text, hash: 'dddd0001' });
    await runIndex(id);
    const chunks = await chunksOf(id);
    assert.ok(chunks.length >= 3, `${chunks.length} chunks`);
    assert.deepEqual(
      chunks.map((chunk) => chunk.ordinal),
      chunks.map((_, i) => i),
    );
    assert.ok(chunks.every((chunk) => chunk.content.length <= 1200 + 150 + 2));
    assert.equal(await matches(id, 'english', 'deliveries'), chunks.length);
    // Every sentence of the text is in some chunk.
    for (let i = 0; i < 60; i += 1) {
      assert.ok(
        chunks.some((chunk) => chunk.content.includes(`Sentence ${i} about`)),
        `sentence ${i}`,
      );
    }
  });

  test('running again is idempotent: the same chunks, no duplicates', async () => {
    const id = await insertDocument({ language: 'en', text: longEnglish('refunds', 40), hash: 'eeee0001' });
    await runIndex(id);
    const first = await chunksOf(id);
    const firstState = await documentState(id);
    assert.ok(first.length >= 2);

    // Already indexed at this hash: a repeat leaves everything as it was.
    await runIndex(id);
    assert.deepEqual(await chunksOf(id), first);
    assert.deepEqual(await documentState(id), firstState);

    // Even when forced (status back to pending, same text), the chunks come out the same, once.
    await t.database.db
      .updateTable('documents')
      .set({ index_status: 'pending' })
      .where('id', '=', id)
      .execute();
    await runIndex(id);
    await runIndex(id);
    const again = await chunksOf(id);
    assert.deepEqual(
      again.map(({ ordinal, content, tsv }) => ({ ordinal, content, tsv })),
      first.map(({ ordinal, content, tsv }) => ({ ordinal, content, tsv })),
    );
    assert.equal((await documentState(id)).index_status, 'indexed');
  });

  test('a content change re-chunks and replaces the old chunks', async () => {
    const id = await insertDocument({ language: 'en', text: longEnglish('shipping', 40), hash: 'ffff0001' });
    await runIndex(id);
    const old = await chunksOf(id);
    assert.ok(old.length >= 2);
    assert.equal(await matches(id, 'english', 'shipping'), old.length);

    // What a sync does for a changed post: new text and hash, back to pending.
    await t.database.db
      .updateTable('documents')
      .set({
        content_text: 'Warranty\n\nEvery kettle carries a two year warranty.',
        content_hash: 'ffff0002',
        index_status: 'pending',
      })
      .where('id', '=', id)
      .execute();
    await runIndex(id);
    const fresh = await chunksOf(id);
    assert.equal(fresh.length, 1);
    assert.equal(fresh[0]?.content, 'Warranty\n\nEvery kettle carries a two year warranty.');
    const oldIds = new Set(old.map((chunk) => chunk.id));
    assert.ok(
      fresh.every((chunk) => !oldIds.has(chunk.id)),
      'old chunk rows are gone',
    );
    assert.equal(await matches(id, 'english', 'shipping'), 0);
    assert.equal(await matches(id, 'english', 'warranties'), 1);
    const state = await documentState(id);
    assert.equal(state.index_status, 'indexed');
    assert.equal(state.indexed_hash, 'ffff0002');
  });

  test('a change of hash alone (still marked indexed) is re-indexed too', async () => {
    const id = await insertDocument({ language: 'en', text: 'Old text about parcels.', hash: 'abab0001' });
    await runIndex(id);
    await t.database.db
      .updateTable('documents')
      .set({ content_text: 'New text about couriers.', content_hash: 'abab0002' })
      .where('id', '=', id)
      .execute();
    await runIndex(id);
    assert.deepEqual(
      (await chunksOf(id)).map((chunk) => chunk.content),
      ['New text about couriers.'],
    );
    assert.equal((await documentState(id)).indexed_hash, 'abab0002');
  });

  test('a document with no text is indexed with no chunks', async () => {
    const id = await insertDocument({ language: 'en', text: '', hash: 'acac0001' });
    await runIndex(id);
    assert.deepEqual(await chunksOf(id), []);
    assert.equal((await documentState(id)).index_status, 'indexed');
  });

  test('a deleted (or never existing) document is a no-op', async () => {
    const id = await insertDocument({ language: 'en', text: 'Soon gone.', hash: 'adad0001' });
    await runIndex(id);
    assert.equal((await chunksOf(id)).length, 1);
    await t.database.db.deleteFrom('documents').where('id', '=', id).execute();
    // Its chunks went with it (cascade); the job for it finishes without error or effect.
    assert.deepEqual(await chunksOf(id), []);
    const before = await t.database.db.selectFrom('chunks').select('id').execute();
    await runIndex(id);
    await runIndex(newId());
    assert.deepEqual(await chunksOf(id), []);
    const afterRows = await t.database.db.selectFrom('chunks').select('id').execute();
    assert.deepEqual(afterRows.map((row) => row.id).sort(), before.map((row) => row.id).sort());
  });
});

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
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: t.database.pool }), plugins: [plugin] });
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
        clock: t.clock,
        log: createLogger('silent'),
        jobId: 'test-job',
        attempt: 1,
        queue: t.queue,
      },
    );
    assert.equal(await chunksVectorisedWith(id, 'german'), 1);
  });
});
