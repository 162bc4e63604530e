import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isStorableText, type TSearchHit, ZSearchResult } from '@service/contract';
import { sql } from 'kysely';
import { orTsQuery } from '../src/retrieval/query-terms.js';
import { searchChunks } from '../src/retrieval/search.js';
import type { SearchComponents } from '../src/retrieval/search-components.js';
import { correctionsQuery } from '../src/retrieval/vocabulary.js';
import { expectData, expectError, expectValidation } from './support/http.js';
import {
  createAgent,
  createSite,
  documentsOf,
  hexHash,
  runIndexJob,
  type Site,
  samplePost,
  target,
  UNTHROTTLED,
  wpPost,
} from './support/site-sync.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

/** Six posts on distinct topics; keys name them in assertions. */
const TOPICS = {
  returns: {
    title: 'Returns',
    body: 'Our refund policy: send back unworn items within thirty days and we refund the full price.',
  },
  shipping: {
    title: 'Shipping',
    body: 'We ship parcels worldwide with tracked delivery. Shipping costs depend on the destination zone.',
  },
  sizing: {
    title: 'Size guide',
    body: 'Measure your foot length in centimetres, then pick a size from the chart.',
  },
  payment: {
    title: 'Payment methods',
    body: 'We accept credit cards, PayPal and bank transfer. Payments are processed securely.',
  },
  warranty: {
    title: 'Warranty',
    body: 'Every trail shoe carries a two-year warranty against manufacturing defects.',
  },
  care: {
    title: 'Shoe care',
    body: 'Clean your shoes with lukewarm water and a soft brush; never put them in the dryer.',
  },
} as const;
type Topic = keyof typeof TOPICS;
const TOPIC_KEYS: readonly Topic[] = ['returns', 'shipping', 'sizing', 'payment', 'warranty', 'care'];

const HOSTILE = [
  "'); drop table chunks; --",
  'a & | ! :* <->',
  "refund' | 'x':* & !(",
  '\\ \\\\ \' " `  $$ $1 %s %',
  'warranty:A & shipping:*B',
  '"unterminated phrase -',
  '-- /* */ ;',
  '(((((((((( ))))',
  'Rückgabe Größe 退货政策 возврат 🙂👍🏽 ﬁ e\u0301',
  '\u0000null\u0000byte\u001f',
  '\ud800 lone surrogate',
  'x'.repeat(500),
  'ab '.repeat(166),
  '🙂'.repeat(250),
];

describe('admin API: hybrid search over an agent', () => {
  let t: TestApp;
  let site: Site;
  let sibling: string;
  let other: Site;
  let stranger: Tenant;
  /** Document id of each topic of the main agent. */
  const docOf = new Map<Topic, string>();
  const siblingDocs = new Set<string>();
  const otherDocs = new Set<string>();

  /** Syncs posts to an agent through the signed route and indexes each; returns document ids by title. */
  async function syncAndIndex(token: string, agentId: string, posts: Record<string, unknown>[]) {
    const res = await wpPost(t, 'posts/sync', token, { ...target(agentId), posts });
    assert.equal(res.statusCode, 200, res.body);
    const docs = await documentsOf(t, agentId);
    for (const doc of docs) await runIndexJob(t, doc.id);
    return new Map(docs.map((doc) => [doc.title, doc.id]));
  }

  function post(wpId: number, title: string, body: string, seed: string) {
    return samplePost(wpId, {
      title,
      content_html: `<h2>${title}</h2><p>${body}</p>`,
      content_hash: hexHash(seed),
    });
  }

  async function search(agentId: string, body: unknown, auth: Record<string, string> = site.tenant.auth) {
    return injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/search`, body, auth);
  }

  async function hitsFor(query: string, limit?: number, agentId = site.agentId): Promise<TSearchHit[]> {
    const res = await search(agentId, limit === undefined ? { query } : { query, limit });
    const data = expectData(res, 200, ZSearchResult);
    assert.equal(data.query, query.trim());
    return data.hits;
  }

  async function tableCounts() {
    const count = async (table: 'chunks' | 'documents' | 'agents' | 'workspaces') =>
      Number(
        (
          await t.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      chunks: await count('chunks'),
      documents: await count('documents'),
      agents: await count('agents'),
      workspaces: await count('workspaces'),
    };
  }

  before(async () => {
    t = await createTestApp({ env: UNTHROTTLED });
    site = await createSite(t, { language_default: 'en' }, 'Search shop');
    const entries = TOPIC_KEYS.map((key) => [key, TOPICS[key]] as const);
    const ids = await syncAndIndex(
      site.token,
      site.agentId,
      entries.map(([key, topic], i) => post(i + 1, topic.title, topic.body, `main-${key}`)),
    );
    for (const [key, topic] of entries) {
      const id = ids.get(topic.title);
      assert.ok(id, `document for ${key}`);
      docOf.set(key, id);
    }

    // The same words in another agent of the workspace and in another workspace.
    sibling = await createAgent(t, site.tenant, { name: 'Sibling', language_default: 'en' });
    const siblingIds = await syncAndIndex(site.token, sibling, [
      post(1, 'Warranty sibling', 'Sibling warranty: our refund policy covers shipping and PayPal.', 's-1'),
    ]);
    for (const id of siblingIds.values()) siblingDocs.add(id);

    other = await createSite(t, { language_default: 'en' }, 'Other shop');
    const otherIds = await syncAndIndex(other.token, other.agentId, [
      post(1, 'Warranty other', 'Other warranty: our refund policy covers shipping and PayPal.', 'o-1'),
    ]);
    for (const id of otherIds.values()) otherDocs.add(id);
    stranger = await seedTenant(t, 'Stranger');
  });
  after(() => t.close());

  test('an exact word ranks its document first, with title, url and source', async () => {
    for (const [query, topic] of [
      ['warranty', 'warranty'],
      ['PayPal', 'payment'],
      ['centimetres', 'sizing'],
      ['lukewarm water', 'care'],
    ] as const) {
      const hits = await hitsFor(query);
      assert.ok(hits.length > 0, query);
      const [first] = hits;
      assert.ok(first, query);
      assert.equal(first.document_id, docOf.get(topic), `${query}: ${JSON.stringify(hits)}`);
      assert.ok(first.ranks.fulltext !== undefined, query);
      assert.equal(first.title, TOPICS[topic].title);
      assert.match(first.url ?? '', /^https:\/\/shop\.example\.com\/post-\d+$/);
      assert.ok(first.source_id.length > 0);
      assert.ok(first.score > 0);
    }
  });

  test('hits come best first with descending scores', async () => {
    const hits = await hitsFor('shipping parcels delivery');
    assert.equal(hits[0]?.document_id, docOf.get('shipping'));
    for (let i = 1; i < hits.length; i += 1) {
      assert.ok((hits[i - 1]?.score ?? 0) >= (hits[i]?.score ?? 0), JSON.stringify(hits));
    }
  });

  test("an English query is stemmed for an agent whose language is en ('refunds' finds 'refund')", async () => {
    const hits = await hitsFor('refunds');
    assert.equal(hits[0]?.document_id, docOf.get('returns'), JSON.stringify(hits));
    assert.ok(hits[0]?.ranks.fulltext !== undefined, 'found by full-text, not only by trigram');
  });

  test('a typo still finds the document when pg_trgm is available', async (context) => {
    if (!t.database.features.trigram) {
      context.skip('pg_trgm is not available on this database');
      return;
    }
    const hits = await hitsFor('refnd polcy');
    assert.equal(hits[0]?.document_id, docOf.get('returns'), JSON.stringify(hits));
    // The typos are corrected inside the query ('refund policy'), so full-text finds the page.
    assert.ok(hits[0]?.ranks.fulltext !== undefined, 'found by the corrected full-text query');
    const index = await sql<{
      name: string | null;
    }>`select to_regclass('agent_words_trgm_idx')::text as name`.execute(t.database.db);
    assert.equal(index.rows[0]?.name, 'agent_words_trgm_idx');
  });

  test("a typo's corrections name each lexeme once: both forms where stemming changes the word", async (context) => {
    if (!t.database.features.trigram) {
      context.skip('pg_trgm is not available on this database');
      return;
    }
    const result = await sql<{ query: string | null }>`
      select (${correctionsQuery(site.agentId, ['refnd', 'polcy'], 'english')})::text as query`.execute(
      t.database.db,
    );
    const lexemes = (result.rows[0]?.query ?? '').split(' | ');
    assert.deepEqual(lexemes, [...new Set(lexemes)], `no operand twice: ${result.rows[0]?.query}`);
    // 'refund' is its own stem: written once; 'policy' stems to 'polici': both are kept.
    for (const lexeme of ["'refund'", "'policy'", "'polici'"]) assert.ok(lexemes.includes(lexeme), lexeme);
  });

  test('the trigram index exists exactly when pg_trgm does', async () => {
    const index = await sql<{
      name: string | null;
    }>`select to_regclass('agent_words_trgm_idx')::text as name`.execute(t.database.db);
    assert.equal(index.rows[0]?.name ?? null, t.database.features.trigram ? 'agent_words_trgm_idx' : null);
  });

  test('a query where only some words match still finds hits (OR recall)', async () => {
    const hits = await hitsFor('shipping zebra quantum xylophone');
    assert.ok(hits.length > 0);
    assert.equal(hits[0]?.document_id, docOf.get('shipping'), JSON.stringify(hits));
  });

  test('chunks matching more of the words, or all of them, rank higher', async () => {
    const hits = await hitsFor('bank transfer shoe');
    // Only payment mentions bank transfer; warranty and care mention shoes. Nothing has all three,
    // so the best one is the one matching most: payment (two words) ahead of the others.
    assert.equal(hits[0]?.document_id, docOf.get('payment'), JSON.stringify(hits));
    // BM25: the page with both words is among the first two; "Shoe care" repeats the commoner
    // word in its title and text, which BM25 saturates but still counts.
    const both = [...new Set((await hitsFor('trail shoe')).map((hit) => hit.document_id))];
    assert.ok(both.slice(0, 2).includes(docOf.get('warranty') ?? ''), JSON.stringify(both));
  });

  test("hits never include another agent's or another workspace's chunks", async () => {
    const mine = new Set(docOf.values());
    for (const query of ['warranty', 'refund policy', 'shipping PayPal', 'sibling other', 'warrenty']) {
      for (const hit of await hitsFor(query, 50)) {
        assert.ok(mine.has(hit.document_id), `${query}: foreign hit ${JSON.stringify(hit)}`);
      }
    }
    assert.deepEqual(await hitsFor('sibling'), []);
    assert.deepEqual(await hitsFor('other'), []);

    const siblingHits = await hitsFor('warranty refund', 50, sibling);
    assert.ok(siblingHits.length > 0);
    for (const hit of siblingHits) assert.ok(siblingDocs.has(hit.document_id), JSON.stringify(hit));

    const otherHits = expectData(
      await search(other.agentId, { query: 'warranty refund', limit: 50 }, other.tenant.auth),
      200,
      ZSearchResult,
    ).hits;
    assert.ok(otherHits.length > 0);
    for (const hit of otherHits) assert.ok(otherDocs.has(hit.document_id), JSON.stringify(hit));
  });

  test("another workspace's agent, or none, is a 404", async () => {
    expectError(await search(other.agentId, { query: 'warranty' }), 404, 'not_found');
    expectError(await search(site.agentId, { query: 'warranty' }, stranger.auth), 404, 'not_found');
    expectError(await search('01NOPE', { query: 'warranty' }), 404, 'not_found');
  });

  test('an empty, blank, missing or oversized query, a bad limit or an unknown field is a 422', async () => {
    for (const body of [{ query: '' }, { query: '   \n\t ' }, {}, { query: 'x'.repeat(501) }, { query: 5 }]) {
      expectValidation(await search(site.agentId, body), ['query']);
    }
    for (const limit of [0, 51, 2.5, '3']) {
      expectValidation(await search(site.agentId, { query: 'warranty', limit }), ['limit']);
    }
    expectValidation(await search(site.agentId, { query: 'warranty', agent_id: sibling }), ['agent_id']);
  });

  test('ranking components switch off only inside the process, never from a request', async () => {
    expectValidation(await search(site.agentId, { query: 'warranty', components: { trigram: false } }), [
      'components',
    ]);
    const direct = async (query: string, components?: Partial<SearchComponents>) =>
      (
        await searchChunks({
          db: t.database.db,
          workspaceId: site.tenant.workspace.id,
          agentId: site.agentId,
          query,
          limit: 8,
          features: t.database.features,
          embeddings: t.embeddings,
          components,
        })
      ).map((hit) => hit.chunk_id);
    const ids = async (query: string) => (await hitsFor(query)).map((hit) => hit.chunk_id);
    for (const query of ['warranty', 'shipping zebra quantum', 'refnd polcy'])
      assert.deepEqual(await direct(query, {}), await ids(query), `${query}: no switches = the route`);
    const lexicalOnly = { vector: false } as const;
    // Only "all words": a query with an unknown word finds nothing; "any word" alone still finds it.
    assert.deepEqual(
      await direct('shipping zebra quantum', {
        ...lexicalOnly,
        allWords: true,
        anyWord: false,
        trigram: false,
      }),
      [],
    );
    assert.ok(
      (await direct('warranty', { ...lexicalOnly, allWords: true, anyWord: false, trigram: false })).length >
        0,
      'the strict form alone finds a plain word when asked to',
    );
    const anyWord = await direct('shipping zebra quantum', { ...lexicalOnly, allWords: false });
    assert.equal(anyWord.length > 0, true);
    assert.deepEqual(
      await direct('warranty', { ...lexicalOnly, allWords: false, anyWord: false, trigram: false }),
      [],
    );
    if (t.database.features.trigram) {
      assert.deepEqual(
        await direct('refnd polcy', { ...lexicalOnly, correct: false, trigram: false }),
        [],
        'typos need the correction inside the query or the trigram list',
      );
      assert.ok((await direct('refnd polcy', { ...lexicalOnly, correct: false, trigram: true })).length > 0);
      assert.ok((await direct('refnd polcy', lexicalOnly)).length > 0);
    }
    // Page aggregation (off by default): the shoe care page's two chunks with "shoe" lift it
    // above the one chunk with "bank transfer", which is why it is not the default.
    const first = async (components: Partial<SearchComponents>) => {
      const [top] = await searchChunks({
        db: t.database.db,
        workspaceId: site.tenant.workspace.id,
        agentId: site.agentId,
        query: 'bank transfer shoe',
        features: t.database.features,
        components: { ...lexicalOnly, ...components },
      });
      return top?.document_id;
    };
    assert.equal(await first({}), docOf.get('payment'));
    assert.equal(await first({ pages: 0.5 }), docOf.get('care'));
  });

  test('the limit is respected, and defaults to 8', async () => {
    const everything = 'refund shipping size payment warranty shoes';
    assert.equal((await hitsFor(everything, 3)).length, 3);
    assert.equal((await hitsFor(everything, 1)).length, 1);
    const all = await hitsFor(everything, 50);
    assert.ok(all.length > 8, `enough chunks match to test the default: ${all.length}`);
    assert.equal(new Set(all.map((hit) => hit.chunk_id)).size, all.length, 'a chunk appears once');
    assert.deepEqual(new Set(all.map((hit) => hit.document_id)), new Set(docOf.values()));
    const byDefault = await hitsFor(everything);
    assert.deepEqual(
      byDefault.map((hit) => hit.chunk_id),
      all.slice(0, 8).map((hit) => hit.chunk_id),
    );
  });

  test('hostile query strings answer 200 (422 for blank or unstorable text) and leave every table intact', async () => {
    const before = await tableCounts();
    for (const query of HOSTILE) {
      const res = await search(site.agentId, { query });
      // Blank text, and NUL or an unpaired surrogate (text the database cannot hold), are refused.
      if (query.trim() === '' || !isStorableText(query)) {
        expectValidation(res, ['query']);
        continue;
      }
      const data = expectData(res, 200, ZSearchResult);
      for (const hit of data.hits) assert.ok(new Set(docOf.values()).has(hit.document_id));
    }
    assert.deepEqual(await tableCounts(), before);
    assert.equal((await hitsFor('warranty'))[0]?.document_id, docOf.get('warranty'));
  });

  test('a query with a quoted term and an exclusion (websearch syntax) works', async () => {
    const hits = await hitsFor('"credit cards" -shoe');
    assert.equal(hits[0]?.document_id, docOf.get('payment'), JSON.stringify(hits));
  });

  test('every OR form the sanitizer builds parses in to_tsquery', async () => {
    for (const query of [...HOSTILE, 'refund policy', "it's the customer's", 'e-mail x_y 3.5kg']) {
      const or = orTsQuery(query);
      if (or === null) continue;
      await sql`select to_tsquery('simple', ${or}) as s, to_tsquery('english', ${or}) as e`.execute(
        t.database.db,
      );
    }
  });
});
