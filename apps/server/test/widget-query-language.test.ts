import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { searchChunks } from '../src/retrieval/search.js';
import { indexSource } from './support/sources.js';
import { createTestApp, type Tenant, type TestApp } from './support/test-app.js';
import { addText, askWidget, createWidgetAgent, initSession } from './support/widget.js';

// An agent without a language of its own holds documents in their own languages (a synced post
// in `en` is indexed with English stems: `shipping` is stored as `ship`). The visitor's question
// is parsed in the visitor's language as well, so a word the stemmer changes still matches.

const SHIPPING = 'Shipping costs 4.90 EUR inside the EU and is free over 40 EUR.';

describe('an agent without a language: the question is parsed in the visitor language too', () => {
  let t: TestApp;
  let tenant: Tenant;
  let agentId: string;
  let workspaceId: string;

  before(async () => {
    t = await createTestApp();
    ({ tenant, agentId } = await createWidgetAgent(t, { language_default: null }));
    const sourceId = await addText(t, tenant, agentId, 'Delivery', SHIPPING);
    // As a site plugin would send it: the document in English, the agent in no language.
    await t.database.db
      .updateTable('documents')
      .set({ language: 'en' })
      .where('source_id', '=', sourceId)
      .execute();
    await t.database.db
      .updateTable('documents')
      .set({ index_status: 'pending', indexed_hash: null })
      .where('source_id', '=', sourceId)
      .execute();
    await indexSource(t, sourceId);
    const agent = await t.database.db
      .selectFrom('agents')
      .select(['workspace_id', 'language_default'])
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow();
    assert.equal(agent.language_default, null);
    workspaceId = agent.workspace_id;
  });
  after(() => t.close());

  const search = (query: string, queryLanguage?: string) =>
    searchChunks({
      db: t.database.db,
      workspaceId,
      agentId,
      query,
      limit: 5,
      features: { ...t.database.features, vector: false },
      components: { trigram: false },
      ...(queryLanguage ? { queryLanguage } : {}),
    });

  test('parsed in simple alone, a stemmed word finds nothing; in the visitor language it does', async () => {
    assert.equal((await search('shipping')).length, 0, 'the stored lexeme is "ship"');
    const hits = await search('shipping', 'en');
    assert.equal(hits.length, 1);
    assert.match(hits[0]?.content ?? '', /Shipping costs/);
  });

  test('a visitor asking in English gets the answer from the English document', async () => {
    const session = await initSession(t, agentId, { locale: 'en' });
    const answer = await askWidget(t, session.token, 'How much is shipping?');
    assert.ok(answer.citations.length > 0, answer.text);
    assert.match(answer.text, /4\.90/);
  });
});
