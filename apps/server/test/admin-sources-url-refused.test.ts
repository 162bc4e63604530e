import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZSource } from '@service/contract';
import { checkUrl } from '../src/outbound/index.js';
import { expectData } from './support/http.js';
import {
  type CountingServer,
  documentsOfSource,
  PAGE_V1,
  runFetchJob,
  sourceRow,
  startServer,
} from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

describe('url sources without SAFE_URL_ALLOW: the crawl-safety guard refuses, verbatim', () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;
  let counting: CountingServer;

  before(async () => {
    counting = await startServer();
    counting.page.body = PAGE_V1;
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme');
    agentId = (await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Bot' }, acme.auth)).json()
      .data.id;
  });
  after(async () => {
    await t.close();
    await counting.close();
  });

  async function createUrl(url: string) {
    const res = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agentId}/sources`,
      { type: 'url', url },
      acme.auth,
    );
    return expectData(res, 201, ZSource);
  }

  test('a loopback URL fails with the refusal reason and the server is never contacted', async () => {
    assert.deepEqual(t.config.safeUrlAllow, []);
    const source = await createUrl(`http://127.0.0.1:${counting.port}/page`);
    await runFetchJob(t, source.id);
    const row = await sourceRow(t, source.id);
    assert.equal(row.status, 'failed');
    assert.ok(row.error?.startsWith('refused:'), String(row.error));
    assert.match(row.error ?? '', /127\.0\.0\.1/);
    assert.equal((await documentsOfSource(t, source.id)).length, 0);
    assert.equal(counting.requests.length, 0);

    const shown = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/sources/${source.id}`,
      headers: acme.auth,
    });
    const data = expectData(shown, 200, ZSource);
    assert.equal(data.status, 'failed');
    assert.equal(data.error, row.error);
  });

  test('the cloud metadata address fails with the guard reason, refused before any connection', async () => {
    const url = 'http://169.254.169.254/latest/meta-data/';
    // The guard refuses the IP literal by itself (no DNS, no socket): the reason the job stores.
    const verdict = await checkUrl(url, {
      resolve: async () => {
        throw new Error('no DNS lookup expected');
      },
    });
    assert.equal(verdict.ok, false);
    const reason = verdict.ok ? '' : verdict.reason;
    assert.match(reason, /cloud metadata/);

    const source = await createUrl(url);
    await runFetchJob(t, source.id);
    const row = await sourceRow(t, source.id);
    assert.equal(row.status, 'failed');
    assert.equal(row.error, reason);
    assert.match(row.error ?? '', /^refused: .*169\.254\.169\.254.*cloud metadata/);
    assert.equal((await documentsOfSource(t, source.id)).length, 0);
  });
});
