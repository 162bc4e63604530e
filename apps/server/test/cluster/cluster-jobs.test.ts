// Jobs with two worker-only processes (the instances run none: RUN_JOBS=false): each index
// job and each webhook delivery runs exactly once, and a crawl of one source never runs twice at
// the same time, even when two instances take the start requests at once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SIGNATURE_HEADER, signRequest } from '@service/contract';
import { type Cluster, startCluster } from '../../../../scripts/cluster/start-cluster.mjs';
import { startWebhookReceiver, type WebhookReceiver } from '../support/fake-site.js';
import {
  addTextSource,
  adminAuth,
  clusterSkip,
  createAgent,
  dataOf,
  eventually,
  ORIGIN,
  query,
  send,
  widgetCall,
  widgetSession,
} from './cluster-support.js';

const skip = await clusterSkip();
const PAGES = 10;

/** A small site to crawl: counts requests per path and the most ever in flight at once. */
type CrawlSite = {
  url: string;
  allowEntry: string;
  hits: Map<string, number>;
  maxInFlight: number;
  close(): Promise<void>;
};

async function startCrawlSite(): Promise<CrawlSite> {
  let inFlight = 0;
  const site = { hits: new Map<string, number>(), maxInFlight: 0 };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site.invalid').pathname;
    site.hits.set(path, (site.hits.get(path) ?? 0) + 1);
    inFlight += 1;
    site.maxInFlight = Math.max(site.maxInFlight, inFlight);
    // Each page takes a moment, so two runs at once would overlap here.
    setTimeout(() => {
      inFlight -= 1;
      if (path === '/robots.txt') {
        res.writeHead(404).end();
        return;
      }
      const n = path === '/' ? 0 : Number(path.slice('/page-'.length));
      if (!Number.isInteger(n) || n < 0 || n >= PAGES) {
        res.writeHead(404).end();
        return;
      }
      const links = Array.from({ length: PAGES }, (_, i) => `<a href="/page-${i}">Page ${i}</a>`).join(' ');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1>` +
          `<p>Page ${n} tells how the cluster crawls its site once. Delivery number ${n} ships in ${n + 2} days.</p>` +
          `<nav>${links}</nav></main></body></html>`,
      );
    }, 400);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(site, {
    url: `http://127.0.0.1:${port}`,
    allowEntry: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** `job done` lines of the workers' logs: which worker ran which job. */
function jobRuns(cluster: Cluster, job: string): { worker: number; jobId: string }[] {
  const runs: { worker: number; jobId: string }[] = [];
  cluster.workers.forEach((worker, index) => {
    for (const line of worker.log().split('\n')) {
      if (!line.includes('"job done"')) continue;
      const entry = JSON.parse(line) as { job?: string; jobId?: string };
      if (entry.job === job && entry.jobId) runs.push({ worker: index, jobId: entry.jobId });
    }
  });
  return runs;
}

describe('cluster: two workers run each job once', { skip }, () => {
  let cluster: Cluster;
  let receiver: WebhookReceiver;
  let site: CrawlSite;
  before(async () => {
    receiver = await startWebhookReceiver();
    site = await startCrawlSite();
    cluster = await startCluster({
      instances: 3,
      workers: 2,
      env: { SAFE_URL_ALLOW: `${receiver.allowEntry},${site.allowEntry}`, CRAWL_DELAY_MS: '0' },
    });
  });
  after(async () => {
    await cluster?.stop();
    await receiver?.close();
    await site?.close();
  });

  test('each index job runs exactly once: one document per source, its chunks once, one run per job', async () => {
    const agentId = await createAgent(cluster);
    const body = (i: number) =>
      Array.from(
        { length: 40 },
        (_, p) =>
          `Paragraph ${p} of note ${i}: the warehouse in zone ${i} ships parcel ${p} on weekday ${p % 5}.`,
      ).join('\n\n');
    const sourceIds = await Promise.all(
      Array.from({ length: 8 }, (_, i) => addTextSource(cluster, agentId, `Note ${i}`, body(i))),
    );
    await eventually('every text source indexed', async () => {
      const rows = await query<{ status: string }>(cluster, 'select status from sources where id = any($1)', [
        sourceIds,
      ]);
      return rows.every((row) => row.status === 'indexed') && rows.length === sourceIds.length
        ? rows
        : undefined;
    });
    const documents = await query<{
      source_id: string;
      id: string;
      chunks: string;
      ordinals: string;
      top: number;
    }>(
      cluster,
      `select d.source_id, d.id, count(c.id) as chunks, count(distinct c.ordinal) as ordinals, max(c.ordinal) as top
       from documents d left join chunks c on c.document_id = d.id
       where d.source_id = any($1) group by d.source_id, d.id`,
      [sourceIds],
    );
    assert.deepEqual(
      documents.map((row) => row.source_id).sort(),
      [...sourceIds].sort(),
      'one document per source',
    );
    for (const row of documents) {
      assert.ok(Number(row.chunks) > 1, `document ${row.id} has ${row.chunks} chunks`);
      assert.equal(Number(row.ordinals), Number(row.chunks));
      assert.equal(Number(row.top), Number(row.chunks) - 1, 'chunk ordinals run 0..n-1 without a gap');
    }
    // One index job per document, each run once by one of the two workers.
    const jobs = await query<{ id: string; state: string; retry_count: number }>(
      cluster,
      `select id, state, retry_count from pgboss.job where name = 'index-document' and data->>'documentId' = any($1)`,
      [documents.map((row) => row.id)],
    );
    assert.equal(jobs.length, documents.length, 'one index job per document');
    assert.ok(
      jobs.every((job) => job.state === 'completed' && job.retry_count === 0),
      JSON.stringify(jobs),
    );
    const runs = await eventually('the runs in the workers logs', async () => {
      const found = jobRuns(cluster, 'index-document').filter((run) =>
        jobs.some((job) => job.id === run.jobId),
      );
      return found.length >= jobs.length ? found : undefined;
    });
    const perJob = new Map<string, number>();
    for (const run of runs) perJob.set(run.jobId, (perJob.get(run.jobId) ?? 0) + 1);
    assert.deepEqual(
      [...perJob.values()],
      jobs.map(() => 1),
      'each index job ran exactly once',
    );
  });

  test('a site sync larger than nginx keeps in memory passes through it; each post is indexed once', async () => {
    const agentId = await createAgent(cluster);
    const token = dataOf(
      await send(cluster.url, 'POST', '/api/v1/admin/tokens', {
        headers: adminAuth(cluster),
        body: { name: 'Cluster site', abilities: ['wp:integration'] },
      }),
      201,
    );
    const siteToken = String(token.token);
    const posts = Array.from({ length: 50 }, (_, i) => {
      const text = `Post ${i} tells how parcel ${i} is packed in the warehouse and shipped within ${i % 4} days.`;
      return {
        wp_id: 1000 + i,
        post_type: 'post',
        permalink: `${ORIGIN}/blog/post-${i}`,
        title: `Post ${i}`,
        content_html: `<p>${text}</p>`.repeat(4),
        excerpt: text.slice(0, 60),
        content_hash: randomBytes(32).toString('hex'),
        modified_at: new Date().toISOString(),
        language: 'en-us',
        taxonomy_terms: ['shipping'],
      };
    });
    const body = JSON.stringify({ agent_id: agentId, site_url: ORIGIN, plugin_version: 'cluster', posts });
    // nginx buffers request bodies up to 16 KiB in memory and writes larger ones to its temporary
    // directory: this one goes through the file.
    assert.ok(body.length > 32 * 1024, `body of ${body.length} bytes`);
    const res = await fetch(`${cluster.url}/api/v1/wp/posts/sync`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${siteToken}`,
        [SIGNATURE_HEADER]: signRequest(siteToken, body, Math.floor(Date.now() / 1000)),
      },
      body,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.equal((JSON.parse(text) as { data: { queued: number } }).data.queued, posts.length);
    const documents = await eventually('every post indexed', async () => {
      const rows = await query<{ external_id: string; chunks: string }>(
        cluster,
        `select d.external_id, count(c.id) as chunks from documents d
         join sources s on s.id = d.source_id left join chunks c on c.document_id = d.id
         where s.agent_id = $1 group by d.id, d.external_id`,
        [agentId],
      );
      return rows.length === posts.length && rows.every((row) => Number(row.chunks) > 0) ? rows : undefined;
    });
    assert.deepEqual(
      documents.map((row) => Number(row.external_id)).sort((a, b) => a - b),
      posts.map((post) => post.wp_id),
      'one document per post',
    );
  });

  test('each webhook delivery is sent exactly once with two workers', async () => {
    const agentId = await createAgent(cluster);
    const hook = dataOf(
      await send(cluster.url, 'POST', '/api/v1/admin/webhooks', {
        headers: adminAuth(cluster),
        body: { url: receiver.url, events: ['lead.captured'] },
      }),
      201,
    );
    receiver.secret = String(hook.secret);
    const count = 10;
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const session = await widgetSession(cluster.url, agentId);
        const lead = await widgetCall(cluster.url, 'POST', '/v1/widget/leads', session, {
          email: `visitor${i}@example.com`,
          name: `Visitor ${i}`,
        });
        assert.equal(lead.status, 201, lead.text);
      }),
    );
    const rows = await eventually('every delivery delivered', async () => {
      const found = await query<{ id: string; status: string; attempts: number }>(
        cluster,
        'select id, status, attempts from webhook_deliveries where webhook_id = $1',
        [hook.id],
      );
      return found.length === count && found.every((row) => row.status === 'delivered') ? found : undefined;
    });
    assert.ok(
      rows.every((row) => row.attempts === 1),
      JSON.stringify(rows),
    );
    // Give a duplicate the time to arrive, then count what the receiver got per delivery.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const received = new Map<string, number>();
    for (const delivery of receiver.deliveries) {
      assert.equal(delivery.signature, 'ok');
      const id = String(delivery.headers['x-service-delivery']);
      received.set(id, (received.get(id) ?? 0) + 1);
    }
    assert.deepEqual(
      [...received.entries()].sort(),
      rows.map((row) => [row.id, 1]).sort(),
      'each delivery reached the receiver once',
    );
  });

  test('two start requests racing on two instances give one crawl at a time, each page stored once', async () => {
    const agentId = await createAgent(cluster);
    const created = dataOf(
      await send(cluster.url, 'POST', `/api/v1/admin/agents/${agentId}/sources`, {
        headers: adminAuth(cluster),
        body: { type: 'crawl', url: `${site.url}/`, max_pages: 20, max_depth: 3, concurrency: 1 },
      }),
      201,
    );
    const sourceId = String(created.id);
    const settled = () =>
      eventually(
        'the crawl source indexed, its fetch jobs settled',
        async () => {
          const [source] = await query<{ status: string }>(
            cluster,
            'select status from sources where id = $1',
            [sourceId],
          );
          const [open] = await query<{ n: string }>(
            cluster,
            `select count(*) as n from pgboss.job where name = 'fetch-source' and data->>'sourceId' = $1
             and state in ('created', 'retry', 'active')`,
            [sourceId],
          );
          return source?.status === 'indexed' && Number(open?.n) === 0 ? true : undefined;
        },
        120_000,
      );
    await settled();
    const firstRuns = jobRuns(cluster, 'fetch-source').length;
    site.hits.clear();
    site.maxInFlight = 0;
    const [a, b] = cluster.instances;
    assert.ok(a?.url && b?.url);
    const starts = await Promise.all(
      [a.url, b.url].map((base) =>
        send(base, 'POST', `/api/v1/admin/sources/${sourceId}/reindex`, { headers: adminAuth(cluster) }),
      ),
    );
    for (const start of starts) assert.equal(start.status, 202, start.text);
    await eventually('the re-crawl to start', async () => (site.hits.size > 0 ? true : undefined));
    await settled();
    assert.equal(site.maxInFlight, 1, 'two crawls of the source ran at the same time');
    // The two requests collapse into one queued run, or (when a worker took the first at once)
    // a second that waits for the first to end; never two at the same time.
    const reruns = jobRuns(cluster, 'fetch-source').length - firstRuns;
    assert.ok(reruns >= 1 && reruns <= 2, `crawl runs after the two requests: ${reruns}`);
    for (const [path, hits] of site.hits)
      assert.ok(hits <= reruns, `${path} fetched ${hits} times in ${reruns} run(s)`);
    const pages = await query<{ url: string; n: string }>(
      cluster,
      'select url, count(*) as n from documents where source_id = $1 group by url',
      [sourceId],
    );
    assert.equal(pages.length, PAGES, JSON.stringify(pages));
    assert.ok(
      pages.every((page) => Number(page.n) === 1),
      'a page was stored twice',
    );
  });
});
