import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../src/security/ids.js';
import { createAgent } from './support/site-sync.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';

/**
 * BM25's term statistics (`agent_terms`, migration 0018) stay exactly what counting the chunks
 * gives, whatever writes or removes chunks: inserts, a document deleted (cascade), a source
 * deleted (two cascades), and they never mix agents.
 */
describe('agent_terms: document frequencies kept by triggers on chunks', () => {
  let t: TestApp;
  let workspaceId: string;
  const agents: string[] = [];
  const sources: Record<string, string> = {};

  async function page(agentId: string, texts: readonly string[]): Promise<string> {
    const documentId = newId();
    await t.database.db
      .insertInto('documents')
      .values({
        id: documentId,
        workspace_id: workspaceId,
        agent_id: agentId,
        source_id: sources[agentId] ?? '',
        external_id: documentId,
        kind: 'text',
        title: 'page',
        url: null,
        content_hash: documentId,
      })
      .execute();
    await sql`
      insert into chunks (id, workspace_id, agent_id, document_id, ordinal, content, content_hash, tsv)
      select gen_random_uuid()::text, ${workspaceId}, ${agentId}, ${documentId}, c.ordinal - 1, c.content,
        md5(c.content), to_tsvector('english', c.content)
      from unnest(${[...texts]}::text[]) with ordinality as c(content, ordinal)`.execute(t.database.db);
    return documentId;
  }

  /** The stored statistics of an agent, without zero rows, as "term=df" sorted. */
  async function stored(agentId: string): Promise<string[]> {
    const rows = await t.database.db
      .selectFrom('agent_terms')
      .select(['term', 'df'])
      .where('agent_id', '=', agentId)
      .where('df', '>', 0)
      .execute();
    return rows.map((row) => `${row.term}=${row.df}`).sort();
  }

  /** The same, counted from the chunks themselves. */
  async function counted(agentId: string): Promise<string[]> {
    const result = await sql<{ term: string; df: number }>`
      select t.term, count(*)::int as df from (
        select l.lexeme as term from chunks c, unnest(c.tsv) as l where c.agent_id = ${agentId}
        union all select '' from chunks c where c.agent_id = ${agentId}) as t
      group by t.term`.execute(t.database.db);
    return result.rows.map((row) => `${row.term}=${row.df}`).sort();
  }

  before(async () => {
    t = await createTestApp();
    const tenant = await seedTenant(t, 'Terms');
    workspaceId = tenant.workspace.id;
    for (const name of ['First', 'Second']) {
      const agentId = await createAgent(t, tenant, { name, language_default: 'en' });
      agents.push(agentId);
      const sourceId = newId();
      sources[agentId] = sourceId;
      await t.database.db
        .insertInto('sources')
        .values({ id: sourceId, workspace_id: workspaceId, agent_id: agentId, type: 'text', name: 'texts' })
        .execute();
    }
  });
  after(() => t.close());

  test('the full-text and vocabulary indexes keep their pending lists short', async () => {
    // New entries of a GIN index wait in a pending list that every search reads whole, until a
    // VACUUM merges it; the embedded store has no autovacuum. Bounded lists are merged by inserts.
    const result = await sql<{ relname: string; reloptions: string[] | null }>`
      select relname, reloptions from pg_class
      where relname in ('chunks_tsv_idx', 'agent_words_trgm_idx') order by relname`.execute(t.database.db);
    const options = Object.fromEntries(result.rows.map((row) => [row.relname, row.reloptions ?? []]));
    assert.deepEqual(options.chunks_tsv_idx, ['gin_pending_list_limit=256']);
    if (t.database.features.trigram) {
      assert.deepEqual(options.agent_words_trgm_idx, ['gin_pending_list_limit=64']);
    }
  });

  test('inserts count each chunk once per lexeme, and the chunk total under the empty term', async () => {
    const [first, second] = agents as [string, string];
    await page(first, ['Refunds take five days.', 'A refund is paid to the card; refunds are final.']);
    await page(second, ['Shipping is free over fifty euros.']);
    assert.deepEqual(await stored(first), await counted(first));
    assert.deepEqual(await stored(second), await counted(second));
    const refund = await t.database.db
      .selectFrom('agent_terms')
      .select('df')
      .where('agent_id', '=', first)
      .where('term', '=', 'refund')
      .executeTakeFirst();
    assert.equal(refund?.df, 2, 'two chunks contain the lexeme, one of them twice');
    const total = await t.database.db
      .selectFrom('agent_terms')
      .select('df')
      .where('agent_id', '=', first)
      .where('term', '=', '')
      .executeTakeFirst();
    assert.equal(total?.df, 2);
    assert.ok(!(await stored(second)).some((row) => row.startsWith('refund=')), 'no term crosses agents');
  });

  test('a deleted document and a deleted source take their chunks out of the counts', async () => {
    const [first, second] = agents as [string, string];
    const doomed = await page(first, ['Refunds of gift cards are not possible.', 'Gift cards never expire.']);
    assert.deepEqual(await stored(first), await counted(first));
    await t.database.db.deleteFrom('documents').where('id', '=', doomed).execute();
    assert.deepEqual(await stored(first), await counted(first));
    assert.ok(!(await stored(first)).some((row) => row.startsWith('gift=')));
    await t.database.db
      .deleteFrom('sources')
      .where('id', '=', sources[second] ?? '')
      .execute();
    assert.deepEqual(await stored(second), []);
    assert.deepEqual(await counted(second), []);
    assert.deepEqual(await stored(first), await counted(first), 'the other agent is untouched');
  });

  test("a chunk whose vector is rewritten in place moves its terms' counts", async () => {
    const [first] = agents as [string];
    const documentId = await page(first, ['Parcels travel by courier.']);
    await sql`update chunks set tsv = to_tsvector('english', 'Parcels travel by train.')
      where document_id = ${documentId}`.execute(t.database.db);
    assert.deepEqual(await stored(first), await counted(first));
    assert.ok(!(await stored(first)).some((row) => row.startsWith('courier=')));
    assert.ok((await stored(first)).includes('train=1'));
  });
});
