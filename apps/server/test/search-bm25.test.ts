import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { searchChunks } from '../src/retrieval/search.js';
import { FULL_SEARCH, type SearchComponents } from '../src/retrieval/search-components.js';
import { recordVocabulary } from '../src/retrieval/vocabulary.js';
import { newId } from '../src/security/ids.js';
import { createAgent } from './support/site-sync.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';

/**
 * The BM25 ranking on a hand-made corpus, each signal checked against the same search with
 * that signal switched off, so every assertion fails without the component it is about.
 */
describe('BM25 ranking: IDF, typo correction inside the query, title field, page lift', () => {
  let t: TestApp;
  let workspaceId: string;
  let agentId: string;
  let sourceId: string;

  /** A page (document) with a title, a URL and its chunks' texts; returns its id. */
  async function page(title: string, url: string, chunks: readonly string[]): Promise<string> {
    const documentId = newId();
    await t.database.db
      .insertInto('documents')
      .values({
        id: documentId,
        workspace_id: workspaceId,
        agent_id: agentId,
        source_id: sourceId,
        external_id: url,
        kind: 'text',
        title,
        url,
        content_hash: documentId,
      })
      .execute();
    await sql`
      insert into chunks (id, workspace_id, agent_id, document_id, ordinal, content, content_hash, tsv)
      select gen_random_uuid()::text, ${workspaceId}, ${agentId}, ${documentId}, c.ordinal - 1, c.content,
        md5(c.content), to_tsvector('english', c.content)
      from unnest(${[...chunks]}::text[]) with ordinality as c(content, ordinal)`.execute(t.database.db);
    await recordVocabulary(t.database.db, agentId, `${title} ${chunks.join(' ')}`);
    return documentId;
  }

  /** The hits of a BM25 search (no vectors), with `components` over the defaults. */
  async function hits(query: string, components: Partial<SearchComponents> = {}) {
    return searchChunks({
      db: t.database.db,
      workspaceId,
      agentId,
      query,
      limit: 10,
      features: { ...t.database.features, vector: false },
      components: { ranking: 'bm25', correct: true, trigram: false, ...components },
    });
  }

  async function pages(query: string, components: Partial<SearchComponents> = {}): Promise<string[]> {
    return [...new Set((await hits(query, components)).map((hit) => hit.document_id))];
  }

  /** The chunk ids of a search, in order. */
  async function chunks(query: string, components: Partial<SearchComponents> = {}): Promise<string[]> {
    return (await hits(query, components)).map((hit) => hit.chunk_id);
  }

  /** What `run` returns and how many statements it sent to the store (counted at pg's Client). */
  async function statements<T>(run: () => Promise<T>): Promise<{ result: T; sent: number }> {
    let sent = 0;
    const original = pg.Client.prototype.query;
    const counting = function (this: pg.Client, ...args: unknown[]) {
      sent += 1;
      return Reflect.apply(original, this, args);
    };
    pg.Client.prototype.query = counting as typeof original;
    try {
      return { result: await run(), sent };
    } finally {
      pg.Client.prototype.query = original;
    }
  }

  const docs: Record<string, string> = {};

  before(async () => {
    t = await createTestApp();
    const tenant = await seedTenant(t, 'BM25');
    workspaceId = tenant.workspace.id;
    agentId = await createAgent(t, tenant, { name: 'Ranked', language_default: 'en' });
    sourceId = newId();
    await t.database.db
      .insertInto('sources')
      .values({ id: sourceId, workspace_id: workspaceId, agent_id: agentId, type: 'text', name: 'texts' })
      .execute();
    // "settings" is in every filler chunk: a common word. "checksum" is in one chunk only.
    for (let i = 0; i < 30; i += 1)
      await page(`Filler ${i}`, `https://docs.example.com/filler-${i}`, [
        `Settings page ${i}: the settings of module ${i} are listed here with their defaults.`,
      ]);
    docs.common = await page('Defaults', 'https://docs.example.com/defaults', [
      'Settings, settings and more settings: every settings value of every module.',
    ]);
    docs.rare = await page('Integrity', 'https://docs.example.com/integrity', [
      'Each file carries a checksum that is verified when it is opened.',
    ]);
    // Title field: both pages say "rollback" once in the body; one has it in its title.
    docs.titled = await page('Rollback', 'https://docs.example.com/rollback', [
      'Undo a transaction with a rollback statement, as described below in more detail.',
    ]);
    docs.untitled = await page('Statements', 'https://docs.example.com/statements', [
      'Undo a transaction with a rollback statement; short.',
    ]);
    // Page lift: one page with three chunks on "snapshot", one page with a single stronger chunk.
    docs.long = await page('Backups', 'https://docs.example.com/backups', [
      'A snapshot copies the database while readers continue to run their queries.',
      'Restore a snapshot by copying it back over the file once the writers stopped.',
      'Old snapshot files can be removed by the cleanup task every night.',
    ]);
    docs.single = await page('Copies', 'https://docs.example.com/copies', ['A snapshot is a copy.']);
    // Feedback: a page matching the question's words but nothing else, one page explaining the
    // technique in the question's terms, and the page about it in its own terms.
    docs.quick = await page('Quick tips', 'https://docs.example.com/quick', [
      'Revert my changes? Changes can be reverted: revert changes.',
    ]);
    docs.explained = await page('Undo', 'https://docs.example.com/undo', [
      'To revert changes, a journal trigger copies each row into a history table; the journal and its trigger history replay it.',
    ]);
    docs.journal = await page('Journal triggers', 'https://docs.example.com/journal-triggers', [
      'A journal trigger appends the old row to the journal history table, so that a revert is possible.',
    ]);
    docs.other = await page('Manual', 'https://docs.example.com/manual', ['Revert: see the manual.']);
    // Typing slips: "part" is in many pages, "partial" in one; "view" in one.
    for (let i = 0; i < 4; i += 1)
      await page(`Part ${i}`, `https://docs.example.com/part-${i}`, [
        `Part ${i}: the index of the guide, an index of rows.`,
      ]);
    docs.partial = await page('Conditions', 'https://docs.example.com/conditions', [
      'A partial index covers only the rows that meet its condition.',
    ]);
    docs.view = await page('Views', 'https://docs.example.com/views', [
      'A view is read only: no update can target it unless a trigger says how.',
    ]);
    // Single letters and two-letter words: "x" in one page only, "map" (two trigrams from "ma").
    docs.axes = await page('Axes', 'https://docs.example.com/axes', [
      'The x axis of the map: x values, x labels and x ticks along the map border.',
    ]);
  });
  after(() => t.close());

  test('IDF: the chunk with the rare word beats the one repeating the common word', async () => {
    const query = 'settings checksum';
    assert.equal((await pages(query))[0], docs.rare);
    // Every word weighing the same, the chunk saying "settings" four times wins: IDF decides.
    const flat = await pages(query, { bm25: { ...FULL_SEARCH.bm25, idf: false } });
    assert.equal(flat[0], docs.common);
  });

  test('a typo inside a long question is corrected within the query', async (context) => {
    if (!t.database.features.trigram) return context.skip('pg_trgm is not available');
    const query = 'how do I check the cheksum of my settings';
    assert.equal((await pages(query))[0], docs.rare);
    // Without the correction the typo matches nothing, and the common word's chunks come first.
    assert.notEqual((await pages(query, { correct: false }))[0], docs.rare);
  });

  test('a slip of a short or common word is corrected to the word meant, not the nearest frequent one', async (context) => {
    if (!t.database.features.trigram) return context.skip('pg_trgm is not available');
    // "partal" shares as many trigrams with "part" as with "partial", and "part" is more frequent:
    // the letter left out decides. "veiw" shares one trigram with "view": the swap decides.
    // (Feedback off: the many "part" pages would otherwise lend their own words to the query.)
    const noFeedback = { feedback: { ...FULL_SEARCH.feedback, weight: 0 } };
    assert.equal((await pages('partal index for rows', noFeedback))[0], docs.partial);
    assert.equal((await pages('the index of a veiw', noFeedback))[0], docs.view);
    // Without the correction neither typo matches anything, and other pages come first.
    assert.notEqual(
      (await pages('partal index for rows', { ...noFeedback, correct: false }))[0],
      docs.partial,
    );
    assert.notEqual((await pages('the index of a veiw', { ...noFeedback, correct: false }))[0], docs.view);
    // Trigrams alone pick the frequent "part".
    assert.notEqual((await pages('partal index for rows', { ...noFeedback, slips: false }))[0], docs.partial);
  });

  test("feedback: the top chunks' shared words lift the page about them over a page that only names the word", async () => {
    // Both pages say "revert" once; the manual's chunk is shorter, so it ranks first without
    // feedback. The top chunks share journal, trigger and history with the journal page.
    const query = 'revert my changes';
    const [journal, other] = [docs.journal ?? '', docs.other ?? ''];
    const plain = await pages(query, { feedback: { ...FULL_SEARCH.feedback, weight: 0 } });
    assert.deepEqual(plain.slice(0, 2), [docs.quick, docs.explained]);
    assert.ok(plain.indexOf(other) < plain.indexOf(journal), `without feedback: ${plain}`);
    const fed = await pages(query);
    assert.ok(fed.indexOf(journal) < fed.indexOf(other), `with feedback: ${fed}`);
    assert.deepEqual(new Set(fed), new Set(plain), 'feedback re-ranks the same candidates');
  });

  test('feedback folded into the ranking statement ranks as its two statements after it did, with two statements fewer', async () => {
    const query = 'revert my changes';
    const unfolded = { feedback: { ...FULL_SEARCH.feedback, folded: false } };
    const [folded, separate] = [
      await statements(() => chunks(query)),
      await statements(() => chunks(query, unfolded)),
    ];
    assert.deepEqual(folded.result, separate.result, 'the same chunks in the same order');
    assert.ok(folded.result.length > 1);
    // The query's statistics, the ranking (with feedback) and the hits; not folded, the feedback
    // words and the re-ranking are two statements more.
    assert.equal(separate.sent - folded.sent, 2, `folded ${folded.sent}, separate ${separate.sent}`);
    // Feedback on changes the order the plain ranking gives (so the comparison is not vacuous).
    const plain = await chunks(query, { feedback: { ...FULL_SEARCH.feedback, weight: 0 } });
    assert.notDeepEqual(folded.result, plain);
  });

  test('single letters are not searched for, unless nothing else is left', async () => {
    const axes = docs.axes ?? '';
    assert.ok(
      !(await pages('x rollback')).includes(axes),
      'the letter alone does not make the axes page a hit',
    );
    assert.ok((await pages('x rollback', { letters: true })).includes(axes));
    assert.equal((await pages('x'))[0], axes, 'a query of one letter still searches for it');
  });

  test('a word under four letters is not corrected by trigrams (two-letter words match too many)', async (context) => {
    if (!t.database.features.trigram) return context.skip('pg_trgm is not available');
    // "ma" shares two of its three trigrams with "map": with the short corrections on it turns into
    // "map" and finds the axes page; off, it stays unknown and finds nothing.
    assert.deepEqual(await pages('ma'), []);
    assert.equal((await pages('ma', { shortFixes: true }))[0], docs.axes);
  });

  test('the page title counts: same body match, the page titled with the word first', async () => {
    const query = 'rollback';
    const ranked = await pages(query);
    assert.deepEqual(ranked.slice(0, 2), [docs.titled, docs.untitled]);
    // Without the title field the shorter chunk wins (length normalization).
    const bodyOnly = await pages(query, { bm25: { ...FULL_SEARCH.bm25, title: 0 } });
    assert.deepEqual(bodyOnly.slice(0, 2), [docs.untitled, docs.titled]);
  });

  test('page lift: a page with several matching chunks lifts its best one', async () => {
    const query = 'snapshot';
    assert.equal((await pages(query, { bm25: { ...FULL_SEARCH.bm25, title: 0, pages: 0.5 } }))[0], docs.long);
    const unlifted = await pages(query, { bm25: { ...FULL_SEARCH.bm25, title: 0, pages: 0 } });
    assert.equal(unlifted[0], docs.single);
  });

  test('the tiers are still there, switched on by the ranking component', async () => {
    // Tiers count matched words: both chunks have one word, and cover density prefers the
    // repeated common word.
    const tiers = await pages('settings checksum', { ranking: 'tiers' });
    assert.equal(tiers[0], docs.common);
  });
});
