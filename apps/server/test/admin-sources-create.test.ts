import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZSearchResult, ZSource } from '@service/contract';
import { newId } from '../src/security/ids.js';
import { auditRows, expectData, expectError, expectValidation } from './support/http.js';
import { chunksOf, runIndexJob } from './support/site-sync.js';
import {
  type CountingServer,
  completeJobs,
  documentsOfSource,
  jobsFor,
  PAGE_V1,
  PAGE_V2,
  runFetchJob,
  sha256,
  sourceRow,
  startServer,
} from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

describe('admin API: creating, deleting and re-indexing text and url sources', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  let agentId: string;
  let site: CountingServer;

  before(async () => {
    site = await startServer();
    site.page.body = PAGE_V1;
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${site.port}` } });
    acme = await seedTenant(t, 'Acme');
    other = await seedTenant(t, 'Other');
    agentId = (await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Bot' }, acme.auth)).json()
      .data.id;
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  const create = (body: unknown, tenant: Tenant = acme, agent: string = agentId) =>
    injectJson(t.app, 'POST', `/api/v1/admin/agents/${agent}/sources`, body, tenant.auth);

  test('a text source stores one document, queues its indexing, and becomes searchable', async () => {
    const text =
      'Our warehouse ships zeppelin spare parts every Tuesday.\n\nOrders before noon go out the same day.';
    const source = expectData(await create({ type: 'text', name: 'Shipping', text }), 201, ZSource);
    assert.equal(source.type, 'text');
    assert.equal(source.name, 'Shipping');
    assert.equal(source.status, 'indexing');
    assert.equal(source.error, null);
    assert.equal(source.document_count, 1);

    const [doc, ...rest] = await documentsOfSource(t, source.id);
    assert.ok(doc);
    assert.equal(rest.length, 0);
    assert.equal(doc.external_id, 'text');
    assert.equal(doc.kind, 'text');
    assert.equal(doc.content_text, text);
    assert.equal(doc.content_hash, sha256(text));
    assert.equal(doc.index_status, 'pending');
    assert.equal(await jobsFor(t, 'index-document', doc.id), 1);

    const audit = (await auditRows(t, acme.workspace.id)).filter((row) => row.action === 'source.created');
    assert.equal(audit.at(-1)?.target_id, source.id);

    await runIndexJob(t, doc.id);
    assert.equal((await sourceRow(t, source.id)).status, 'indexed');
    assert.ok((await chunksOf(t, doc.id)).length > 0);
    const res = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agentId}/search`,
      { query: 'zeppelin spare parts' },
      acme.auth,
    );
    const result = expectData(res, 200, ZSearchResult);
    assert.equal(result.hits[0]?.source_id, source.id);
    assert.match(result.hits[0]?.content ?? '', /zeppelin spare parts/);

    // Re-indexing an indexed text queues nothing; its status stays indexed.
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${source.id}/reindex`,
      headers: acme.auth,
    });
    assert.equal(expectData(again, 202, ZSource).status, 'indexed');
    assert.equal(await jobsFor(t, 'index-document', doc.id), 1);
  });

  test('a url source on an allowed loopback server is fetched, stored and indexed; reindex re-indexes only a change', async () => {
    const url = `http://127.0.0.1:${site.port}/returns`;
    const created = expectData(await create({ type: 'url', url }), 201, ZSource);
    assert.equal(created.status, 'queued');
    assert.equal(created.name, url);
    assert.equal(created.document_count, 0);
    assert.deepEqual((await sourceRow(t, created.id)).config, { url });
    assert.equal(await jobsFor(t, 'fetch-source', created.id), 1);
    assert.equal(site.requests.length, 0, 'nothing is fetched until the job runs');

    await runFetchJob(t, created.id);
    assert.equal(site.requests.length, 1);
    const fetched = await sourceRow(t, created.id);
    assert.equal(fetched.status, 'indexing', 'stored, waiting for its index job');
    assert.equal(fetched.error, null);
    const [doc] = await documentsOfSource(t, created.id);
    assert.ok(doc);
    assert.equal(doc.external_id, url);
    assert.equal(doc.url, url);
    assert.equal(doc.title, 'Returns & refunds');
    assert.match(doc.content_text, /thirty days/);
    assert.doesNotMatch(doc.content_text, /Menu Home Shop/, 'navigation is dropped');
    assert.equal(doc.content_hash, sha256(`${doc.title}\n${doc.content_text}`));
    assert.equal(await jobsFor(t, 'index-document', doc.id), 1);
    await runIndexJob(t, doc.id);
    assert.equal((await sourceRow(t, created.id)).status, 'indexed', 'the index job completes the source');
    await completeJobs(t, 'index-document', doc.id);
    await completeJobs(t, 'fetch-source', created.id);

    const reindex = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/sources/${created.id}/reindex`,
        headers: acme.auth,
      });

    // Unchanged page: fetched again, no new index job.
    assert.equal(expectData(await reindex(), 202, ZSource).status, 'queued');
    assert.equal(await jobsFor(t, 'fetch-source', created.id), 2);
    await runFetchJob(t, created.id);
    assert.equal(site.requests.length, 2);
    assert.equal((await sourceRow(t, created.id)).status, 'indexed');
    assert.equal(await jobsFor(t, 'index-document', doc.id), 1);
    await completeJobs(t, 'fetch-source', created.id);

    // Changed page: a new index job, and the search finds the new text once it ran.
    site.page.body = PAGE_V2;
    expectData(await reindex(), 202, ZSource);
    await runFetchJob(t, created.id);
    assert.equal(site.requests.length, 3);
    assert.equal(await jobsFor(t, 'index-document', doc.id), 2);
    const [changed] = await documentsOfSource(t, created.id);
    assert.ok(changed);
    assert.equal(changed.id, doc.id);
    assert.match(changed.content_text, /sixty days/);
    assert.equal(changed.index_status, 'pending');
    await runIndexJob(t, doc.id);
    const hits = expectData(
      await injectJson(
        t.app,
        'POST',
        `/api/v1/admin/agents/${agentId}/search`,
        { query: 'sixty days' },
        acme.auth,
      ),
      200,
      ZSearchResult,
    ).hits;
    assert.equal(hits[0]?.document_id, doc.id);
  });

  test('a plain-text page is stored as is; another content type fails with the reason', async () => {
    site.page.type = 'text/plain; charset=utf-8';
    site.page.body = 'Opening hours: nine to five, Monday to Friday.';
    const plain = expectData(
      await create({ type: 'url', name: 'Hours', url: `http://127.0.0.1:${site.port}/hours.txt` }),
      201,
      ZSource,
    );
    await runFetchJob(t, plain.id);
    const [doc] = await documentsOfSource(t, plain.id);
    assert.equal(doc?.content_text, 'Opening hours: nine to five, Monday to Friday.');
    assert.equal(doc?.title, `http://127.0.0.1:${site.port}/hours.txt`);

    site.page.type = 'application/json';
    const json = expectData(
      await create({ type: 'url', url: `http://127.0.0.1:${site.port}/data.json` }),
      201,
      ZSource,
    );
    await runFetchJob(t, json.id);
    const failed = await sourceRow(t, json.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error, 'refused: content type application/json is not accepted');
    assert.equal((await documentsOfSource(t, json.id)).length, 0);
    site.page.type = 'text/html; charset=utf-8';
    site.page.body = PAGE_V1;
  });

  test('DELETE removes the source with its documents and chunks, audited; a second DELETE is 404', async () => {
    const text = 'Temporary knowledge about quokkas.';
    const source = expectData(await create({ type: 'text', text }), 201, ZSource);
    assert.equal(source.name, 'Pasted text');
    const [doc] = await documentsOfSource(t, source.id);
    assert.ok(doc);
    await runIndexJob(t, doc.id);
    assert.ok((await chunksOf(t, doc.id)).length > 0);

    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/sources/${source.id}`,
      headers: acme.auth,
    });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    assert.equal(
      await t.database.db.selectFrom('sources').select('id').where('id', '=', source.id).executeTakeFirst(),
      undefined,
    );
    assert.equal((await documentsOfSource(t, source.id)).length, 0);
    assert.equal((await chunksOf(t, doc.id)).length, 0);
    const audit = (await auditRows(t, acme.workspace.id)).filter((row) => row.action === 'source.deleted');
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.target_id, source.id);
    assert.deepEqual(audit[0]?.metadata, { agent_id: agentId, type: 'text', name: 'Pasted text' });

    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/sources/${source.id}`,
      headers: acme.auth,
    });
    expectError(again, 404, 'not_found');
  });

  test('bad bodies are 422 and create nothing', async () => {
    const before = await t.database.db.selectFrom('sources').select('id').execute();
    expectValidation(await create({ type: 'url', url: 'ftp://example.com/file.txt' }), ['url']);
    expectValidation(await create({ type: 'url', url: 'javascript:alert(1)' }), ['url']);
    expectValidation(await create({ type: 'url', url: `https://example.com/${'a'.repeat(2048)}` }), ['url']);
    expectValidation(await create({ type: 'text', text: '' }), ['text']);
    expectValidation(await create({ type: 'text' }), ['text']);
    expectValidation(await create({ type: 'text', text: 'x', url: 'https://example.com/' }), ['url']);
    expectError(await create({ type: 'pdf', text: 'x' }), 422, 'validation_failed');
    expectError(
      await create({ type: 'site', site_url: 'https://shop.example.com' }),
      422,
      'validation_failed',
    );
    expectError(await create({ type: 'products' }), 422, 'validation_failed');
    expectError(await create({ text: 'no type' }), 422, 'validation_failed');
    expectError(await create([]), 422, 'validation_failed');
    const afterwards = await t.database.db.selectFrom('sources').select('id').execute();
    assert.equal(afterwards.length, before.length);
  });

  test("another workspace's agent or source is 404, and nothing changes", async () => {
    const mine = expectData(await create({ type: 'text', text: 'Private notes.' }), 201, ZSource);
    expectError(await create({ type: 'text', text: 'Intrusion.' }, other), 404, 'not_found');
    expectError(await create({ type: 'text', text: 'Nobody.' }, acme, 'no-such-agent'), 404, 'not_found');
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/sources/${mine.id}`,
      headers: other.auth,
    });
    expectError(del, 404, 'not_found');
    const reindex = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${mine.id}/reindex`,
      headers: other.auth,
    });
    expectError(reindex, 404, 'not_found');
    assert.equal((await sourceRow(t, mine.id)).status, 'indexing');
    assert.equal((await documentsOfSource(t, mine.id)).length, 1);
    const otherAudit = await auditRows(t, other.workspace.id);
    assert.ok(otherAudit.every((row) => !row.action.startsWith('source.')));
  });

  test('site plugin sources cannot be re-indexed here (422)', async () => {
    const id = newId();
    await t.database.db
      .insertInto('sources')
      .values({
        id,
        workspace_id: acme.workspace.id,
        agent_id: agentId,
        type: 'site',
        name: 'https://shop.example.com (site content)',
        site_url: 'https://shop.example.com',
      })
      .execute();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${id}/reindex`,
      headers: acme.auth,
    });
    expectValidation(res, ['type']);
    assert.equal((await sourceRow(t, id)).status, 'ready');
  });
});
