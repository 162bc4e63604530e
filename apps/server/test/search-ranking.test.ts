import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { contentTerms, usesSearchOperators } from '../src/retrieval/query-terms.js';
import { searchChunks } from '../src/retrieval/search.js';
import { newId } from '../src/security/ids.js';
import { createAgent } from './support/site-sync.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';

/** Words of the synthetic corpus, most frequent first: the first few are in most chunks. */
const VOCABULARY = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'returns',
  'refunding',
  'parcel',
  'parcels',
  'zulu',
];

/** A deterministic chunk text: 12–40 words, word i drawn with weight 1 / (i + 1). */
function chunkText(seed: number): string {
  let state = seed * 7919 + 17;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const total = VOCABULARY.reduce((sum, _, i) => sum + 1 / (i + 1), 0);
  const words: string[] = [];
  const length = 12 + Math.floor(next() * 29);
  for (let w = 0; w < length; w += 1) {
    let target = next() * total;
    let index = 0;
    while (index < VOCABULARY.length - 1 && target > 1 / (index + 1)) {
      target -= 1 / (index + 1);
      index += 1;
    }
    words.push(VOCABULARY[index] ?? 'alpha');
  }
  return words.join(' ');
}

describe('full-text ranking: tiers give the same order as ranking every match', () => {
  let t: TestApp;
  let workspaceId: string;
  let agentId: string;
  let neighbourId: string;

  async function seedChunks(agent: string, count: number, seedOffset: number, extra = '') {
    const sourceId = newId();
    const documentId = newId();
    await t.database.db
      .insertInto('sources')
      .values({ id: sourceId, workspace_id: workspaceId, agent_id: agent, type: 'text', name: 'texts' })
      .execute();
    await t.database.db
      .insertInto('documents')
      .values({
        id: documentId,
        workspace_id: workspaceId,
        agent_id: agent,
        source_id: sourceId,
        external_id: 'doc',
        kind: 'text',
        title: 'Synthetic',
        content_hash: 'x',
      })
      .execute();
    const texts = Array.from({ length: count }, (_, i) => `${chunkText(seedOffset + i)}${extra}`);
    await sql`
      insert into chunks (id, workspace_id, agent_id, document_id, ordinal, content, content_hash, tsv)
      select gen_random_uuid()::text, ${workspaceId}, ${agent}, ${documentId}, c.ordinal - 1, c.content,
        md5(c.content), to_tsvector('english', c.content)
      from unnest(${texts}::text[]) with ordinality as c(content, ordinal)`.execute(t.database.db);
  }

  /**
   * Every match ranked by the full key in one statement: what the tiers must reproduce. The
   * strict form takes part only for queries with websearch syntax (the service default).
   */
  async function reference(query: string, limit: number): Promise<string[]> {
    const terms = contentTerms(query);
    const words = terms.map(
      (term) => sql`(to_tsquery('simple', ${`'${term}'`}) || to_tsquery('english', ${`'${term}'`}))`,
    );
    // The strict form is parsed only for a query with websearch syntax: a plain query's strict
    // matches are its chunks with every word, which the matched-words count ranks first anyway.
    const strict = usesSearchOperators(query)
      ? sql`(websearch_to_tsquery('simple', ${query}) || websearch_to_tsquery('english', ${query}))`
      : sql`''::tsquery`;
    const loose = words.length > 0 ? sql`(${sql.join(words, sql` || `)})` : strict;
    const matched =
      words.length > 0
        ? sql.join(
            words.map((word) => sql`(c.tsv @@ ${word})::int`),
            sql` + `,
          )
        : sql`0::int`;
    const result = await sql<{ id: string }>`
      select c.id from chunks c
      where c.workspace_id = ${workspaceId} and c.agent_id = ${agentId}
        and (c.tsv @@ ${strict} or c.tsv @@ ${loose})
      order by (c.tsv @@ ${strict}) desc, ${matched} desc, ts_rank_cd(c.tsv, ${loose}) desc,
        ts_rank_cd(c.tsv, ${strict}) desc, c.id
      limit ${limit}`.execute(t.database.db);
    return result.rows.map((row) => row.id);
  }

  async function searched(query: string, limit: number): Promise<string[]> {
    const hits = await searchChunks({
      db: t.database.db,
      workspaceId,
      agentId,
      query,
      limit,
      features: { trigram: false, vector: false },
      // The tiers are the ranking under test here (BM25, the default, has its own tests).
      components: { ranking: 'tiers' },
    });
    return hits.map((hit) => hit.chunk_id);
  }

  before(async () => {
    t = await createTestApp();
    const tenant = await seedTenant(t, 'Ranking');
    workspaceId = tenant.workspace.id;
    agentId = await createAgent(t, tenant, { name: 'Ranked', language_default: 'en' });
    neighbourId = await createAgent(t, tenant, { name: 'Neighbour', language_default: 'en' });
    await seedChunks(agentId, 600, 1);
    // The neighbour has the same words and more: none of its chunks may show up.
    await seedChunks(neighbourId, 200, 1, ' alpha bravo zulu neighbourly');
  });
  after(() => t.close());

  const QUERIES = [
    'alpha', // in most chunks: the first tier is cut at its ties
    'zulu', // in few
    'alpha bravo', // two common words: strict matches fill the list
    'bravo kilo zulu', // few strict matches: chunks with two of the words come next, then one
    'alpha lima zulu juliet', // the same with four words
    'how do I get refunds for returned parcels', // function words, English stems
    '"alpha bravo" -charlie', // phrase and exclusion: strict matches lack a word of the OR form
    'charlie or zulu', // websearch OR: strict matches need not have every word
    'alpha bravo charlie delta echo foxtrot golf hotel india', // more than 8 words: no pair tier
    'kilo xylophone', // one word matches nothing
    'the a of', // only function words
  ];

  test('each query lists the same chunks in the same order as ranking every match', async () => {
    for (const query of QUERIES) {
      for (const limit of [1, 8, 50]) {
        const expected = (await reference(query, 200)).slice(0, limit);
        assert.ok(query === 'the a of' || expected.length > 0, `${query}: the corpus has matches`);
        assert.deepEqual(await searched(query, limit), expected, `${query} (limit ${limit})`);
      }
    }
  });

  test("a query that matches nothing, or only another agent's chunks, finds nothing", async () => {
    assert.deepEqual(await searched('xylophone', 8), []);
    assert.deepEqual(await searched('neighbourly', 8), []);
  });
});
