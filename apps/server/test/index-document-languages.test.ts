import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { textSearchConfig } from '../src/retrieval/text-search-config.js';
import { newId } from '../src/security/ids.js';
import { createAgent, updateAgent } from '../src/services/agents/agents.js';
import { indexDocumentApp } from './support/index-document.js';
import { TEST_ENGINE } from './support/test-database.js';

// The index-document job picks each document's text search configuration from its language.
const f = indexDocumentApp();
const { insertDocument, runIndex, chunksOf, matches, chunksVectorisedWith, documentState } = f;

describe(`index-document job: text search configuration per language (${TEST_ENGINE})`, () => {
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

  test("the document's title and URL path are stored as a vector in its chunks' configuration", async () => {
    const id = await insertDocument({ language: 'en', text: 'Shipping takes two days.', hash: 'aaaa0003' });
    const before = await f.t.database.db
      .selectFrom('documents')
      .select('title_tsv')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(before.title_tsv, null, 'written by the index job, not before');
    await runIndex(id);
    const row = await f.t.database.db
      .selectFrom('documents')
      .select(['title', 'url', sql<string>`title_tsv::text`.as('vector')])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // "Post N" from the title, the URL path's words, stemmed: no scheme or host.
    assert.match(row.title, /^Post \d+$/);
    assert.match(row.vector, /'post'/);
    assert.match(row.vector, new RegExp(`'${row.url?.split('/').pop()}'`));
    assert.match(row.vector, /'p'/);
    assert.doesNotMatch(row.vector, /shop|example|https/);
    const german = await insertDocument({
      language: 'de',
      text: 'Versand dauert zwei Tage.',
      hash: 'bbbb0003',
    });
    await sql`update documents set title = 'Lieferungen und Rücksendungen' where id = ${german}`.execute(
      f.t.database.db,
    );
    await runIndex(german);
    const stemmed = await sql<{
      vector: string;
    }>`select title_tsv::text as vector from documents where id = ${german}`.execute(f.t.database.db);
    assert.match(
      stemmed.rows[0]?.vector ?? '',
      /'liefer'/,
      `german stemming, as its chunks: ${stemmed.rows[0]?.vector}`,
    );
    assert.doesNotMatch(stemmed.rows[0]?.vector ?? '', /'und'/, 'a German stop word');
  });

  test('a regional tag uses its language (en-gb → english)', async () => {
    assert.equal(await textSearchConfig(f.t.database.db, 'en-gb'), 'english');
    const id = await insertDocument({ language: 'en-gb', text: 'Refunds take five days.', hash: 'aaaa0002' });
    await runIndex(id);
    assert.equal(await chunksVectorisedWith(id, 'english'), 1);
    assert.equal(await matches(id, 'english', 'refund'), 1);
  });

  test('a German document uses the german configuration', async () => {
    assert.equal(await textSearchConfig(f.t.database.db, 'de'), 'german');
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
    assert.equal(await textSearchConfig(f.t.database.db, 'xx'), 'simple');
    assert.equal(await textSearchConfig(f.t.database.db, null), 'simple');
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
      db: f.t.database.db,
      clock: f.t.clock,
      workspaceId: f.workspaceId,
      actor: { type: 'cli' as const, id: null },
      queue: f.t.queue,
    };
    const french = await createAgent(agents, { name: 'Bot FR', language_default: 'fr' });
    const source = newId();
    await f.t.database.db
      .insertInto('sources')
      .values({ id: source, workspace_id: f.workspaceId, agent_id: french.id, type: 'text', name: 'Texte' })
      .execute();
    const id = newId();
    await f.t.database.db
      .insertInto('documents')
      .values({
        id,
        workspace_id: f.workspaceId,
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
      f.t.database.db,
    );
    assert.equal(queued.rows[0]?.n, 1);
    await runIndex(id);
    assert.equal(await chunksVectorisedWith(id, 'german'), 1, 're-indexed in the new language');
  });
});
