import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZSource } from '@service/contract';
import { syncKbForAgent } from '../src/services/knowledge/kb-index.js';
import { expectData } from './support/http.js';
import { indexAll, KB_ARTICLES, kbClient, kbDocuments, kbSource, waitingJobs } from './support/kb.js';
import { createAgent } from './support/site-sync.js';
import { createTestApp, injectJson, seedTenant, type TestApp } from './support/test-app.js';

describe('knowledge base: re-syncing an agent from the articles', () => {
  let t: TestApp;
  const { create, search } = kbClient(() => t);

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('syncKbForAgent re-syncs one agent: missing documents added, stale ones removed', async () => {
    const acme = await seedTenant(t, 'Resync Help');
    const agentId = await createAgent(t, acme);
    const a = await create(acme, { title: 'A', body_markdown: 'alpha', is_published: true });
    const b = await create(acme, { title: 'B', body_markdown: 'beta', is_published: true });
    await indexAll(t, agentId);
    // Drift the index behind the services' back: b unpublished, a's document lost.
    await t.database.db
      .updateTable('kb_articles')
      .set({ is_published: false })
      .where('id', '=', b.id)
      .execute();
    await t.database.db.deleteFrom('documents').where('external_id', '=', a.id).execute();

    const result = await t.database.db.transaction().execute((trx) =>
      syncKbForAgent(trx, t.queue, {
        workspaceId: acme.workspace.id,
        agentId,
        clock: t.clock,
        publicBaseUrl: undefined,
      }),
    );
    assert.deepEqual(result, { queued: 1, removed: 1 });
    const docs = await kbDocuments(t, agentId);
    assert.deepEqual(
      docs.map((doc) => [doc.external_id, doc.url]),
      [[a.id, `/kb/${acme.workspace.slug}/a`]],
      'without PUBLIC_BASE_URL the URL is the public path',
    );
    assert.equal((await kbSource(t, acme, agentId))?.status, 'indexing');

    // Run twice: nothing changes, nothing is queued.
    await indexAll(t, agentId);
    const again = await t.database.db.transaction().execute((trx) =>
      syncKbForAgent(trx, t.queue, {
        workspaceId: acme.workspace.id,
        agentId,
        clock: t.clock,
        publicBaseUrl: undefined,
      }),
    );
    assert.deepEqual(again, { queued: 0, removed: 0 });

    // Another workspace's agent is a 404, not a sync.
    const other = await seedTenant(t, 'Resync Other');
    await assert.rejects(
      t.database.db
        .transaction()
        .execute((trx) =>
          syncKbForAgent(trx, t.queue, { workspaceId: other.workspace.id, agentId, clock: t.clock }),
        ),
      /not_found|Not found/i,
    );
  });

  test('POST /sources/{id}/reindex on a kb source rebuilds it from the published articles', async () => {
    const acme = await seedTenant(t, 'Reindex Help');
    const agentId = await createAgent(t, acme);
    await create(acme, {
      title: 'Opening hours',
      slug: 'hours',
      body_markdown: 'Open daily.',
      is_published: true,
    });
    const source = await kbSource(t, acme, agentId);
    assert.ok(source);
    await indexAll(t, agentId);
    // A document lost out of band (a restore, a manual delete) comes back on re-index.
    await t.database.db.deleteFrom('documents').where('source_id', '=', source.id).execute();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${source.id}/reindex`,
      headers: acme.auth,
    });
    const reindexed = expectData(res, 202, ZSource);
    assert.equal(reindexed.document_count, 1);
    assert.equal(reindexed.status, 'indexing');
    const [doc] = await kbDocuments(t, agentId);
    assert.ok(doc);
    assert.equal(await waitingJobs(t, doc.id), 1);
    await indexAll(t, agentId);
    assert.equal((await search(acme, agentId, 'open daily'))[0]?.document_id, doc.id);
  });
});

describe('knowledge base indexing without PUBLIC_BASE_URL', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('documents link to the public path', async () => {
    const acme = await seedTenant(t, 'Path Help');
    const agentId = await createAgent(t, acme);
    await injectJson(
      t.app,
      'POST',
      KB_ARTICLES,
      { title: 'Sizes', slug: 'sizes', body_markdown: 'Pick a size.', is_published: true },
      acme.auth,
    );
    const [doc] = await kbDocuments(t, agentId);
    assert.equal(doc?.url, `/kb/${acme.workspace.slug}/sizes`);
  });
});
