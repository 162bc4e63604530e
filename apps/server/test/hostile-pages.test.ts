import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, type TestContext, test } from 'node:test';
import { ZSource } from '@service/contract';
import { z } from 'zod';
import { closeExtractionPool, configureExtractionPool } from '../src/extraction/shared-extraction-pool.js';
import { HEALTH_BOUND_MS, type HealthReport, probeHealth } from './support/health-probe.js';
import { gzipSitemapOf, htmlWithManyElements } from './support/hostile-files.js';
import { expectData } from './support/http.js';
import { createAgent } from './support/site-sync.js';
import { documentsOfSource, runFetchJob, sourceRow } from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

/** A small heap, so a 9 MiB page of a million nodes meets it at once: the limit, not the page, is under test. */
const HEAP_MB = 64;

const ORDINARY =
  '<!doctype html><html lang="en"><head><title>Returns</title></head><body><main><h1>Returns</h1>' +
  '<p>Parcels may be returned within thirty days for a full refund.</p>' +
  '<a href="/heavy">Heavy</a> <a href="/other">Other</a></main></body></html>';

describe('hostile pages and sitemaps: read in bounded threads, each fails alone', () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;
  let site: string;
  let origin: string;
  let closeSite: () => Promise<void>;

  before(async () => {
    const heavy = htmlWithManyElements();
    // Built before it is served: making it on request would block this process's event loop.
    let bigSitemap: Buffer = Buffer.alloc(0);
    const server = createServer((request, response) => {
      const html = (body: string) => response.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (request.url === '/' || request.url === '/other')
        return html(ORDINARY.replace('Returns</h1>', `${request.url}</h1>`));
      if (request.url === '/heavy') return html(heavy);
      if (request.url === '/sitemap-big.xml.gz') {
        // About 45 MiB unpacked, under the 50 MiB cap: only the parser's memory can stop it.
        return response.writeHead(200, { 'content-type': 'application/gzip' }).end(bigSitemap);
      }
      return response.writeHead(404, { 'content-type': 'text/plain' }).end('none');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address: AddressInfo | string | null = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const { port } = address;
    site = `http://127.0.0.1:${port}`;
    bigSitemap = gzipSitemapOf(site, 450_000);
    closeSite = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${port}`, CRAWL_DELAY_MS: '0' } });
    await configureExtractionPool({ workers: 1, heapMb: HEAP_MB, timeoutMs: 60_000 });
    acme = await seedTenant(t, 'Hostile pages');
    agentId = await createAgent(t, acme, { name: 'Pages bot' });
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await closeExtractionPool();
    await t.close();
    await closeSite();
  });

  /** Creates a source and runs its fetch job while another thread polls /healthz. */
  const fetchWhileProbing = async (context: TestContext, body: Record<string, unknown>) => {
    const res = await injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/sources`, body, acme.auth);
    const source = expectData(res, 201, ZSource);
    const probe = probeHealth(`${origin}/healthz`);
    await probe.ready;
    let health: HealthReport;
    try {
      await runFetchJob(t, source.id);
    } finally {
      health = await probe.stop();
    }
    context.diagnostic(`/healthz: ${health.samples} answers, slowest ${health.maxMs.toFixed(0)} ms`);
    assert.equal(health.failures, 0, JSON.stringify(health));
    assert.ok(health.maxMs < HEALTH_BOUND_MS, `slowest /healthz: ${health.maxMs.toFixed(0)} ms`);
    return { id: source.id, row: await sourceRow(t, source.id) };
  };

  const overHeap = `could not be read within the limits: it needs more than ${HEAP_MB} MB of memory to read`;

  test('a url source whose page is too heavy to read fails with the limit in source.error', async (context) => {
    const { id, row } = await fetchWhileProbing(context, { type: 'url', url: `${site}/heavy` });
    assert.equal(row.status, 'failed');
    assert.equal(row.error, `failed: ${site}/heavy ${overHeap}`);
    assert.deepEqual(await documentsOfSource(t, id), []);
  });

  test('a crawl skips the heavy page with its reason and stores the others', async (context) => {
    const { id, row } = await fetchWhileProbing(context, { type: 'crawl', url: `${site}/`, max_pages: 10 });
    assert.equal(row.error, null);
    const urls = (await documentsOfSource(t, id)).map((doc) => doc.url).sort();
    assert.deepEqual(urls, [`${site}/`, `${site}/other`]);
    const progress = z
      .object({
        last_run: z.object({ failures: z.array(z.object({ url: z.string(), reason: z.string() })) }),
      })
      .parse(row.progress);
    assert.deepEqual(progress.last_run.failures, [
      { url: `${site}/heavy`, reason: `failed: ${site}/heavy ${overHeap}` },
    ]);
  });

  test('a sitemap source whose sitemap is too big to parse fails with the limit in source.error', async (context) => {
    const { row } = await fetchWhileProbing(context, { type: 'sitemap', url: `${site}/sitemap-big.xml.gz` });
    assert.equal(row.status, 'failed');
    assert.equal(row.error, `failed: ${site}/sitemap-big.xml.gz ${overHeap}`);
  });

  test('then an ordinary page reads in a fresh thread', async (context) => {
    const { id, row } = await fetchWhileProbing(context, { type: 'url', url: `${site}/other` });
    assert.equal(row.error, null);
    const [document] = await documentsOfSource(t, id);
    assert.match(document?.content_text ?? '', /returned within thirty days/);
  });
});
