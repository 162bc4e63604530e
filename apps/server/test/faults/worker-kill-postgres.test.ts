// A worker-only process (`cli worker`, PostgreSQL) killed with SIGKILL while it indexes a site
// of 500 synced posts: the index jobs it held are taken over by another worker once their lease
// runs out (JOB_LEASE_SECONDS, shortened here), the source reaches `indexed`, and no document or
// chunk is stored twice. Runs on a private cluster (initdb in a temp dir, its own port), once per
// CI: in the PGlite pass; the PostgreSQL pass (TEST_DATABASE_URL set) skips it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { generateAppKey } from '../../src/config/app-key.js';
import { field, ServiceProcess, text } from '../support/processes.js';
import {
  clusterUnavailable,
  createDatabases,
  type PrivateCluster,
  startPrivateCluster,
} from './support/private-cluster.js';
import {
  bootstrapOwner,
  call,
  createAgent,
  integrationToken,
  sleep,
  syncPosts,
} from './support/service-http.js';
import { WorkerProcess } from './support/worker-process.js';

const POSTS = 500;
const SITE = 'https://fault-shop.example.com';
const skip = process.env.TEST_DATABASE_URL
  ? 'runs once per CI, in the PGlite pass (it makes its own PostgreSQL cluster)'
  : clusterUnavailable();

describe('a worker killed with SIGKILL mid-indexing: another takes its jobs over', { skip }, () => {
  let cluster: PrivateCluster;
  let db: pg.Client;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let killed: WorkerProcess;
  let survivor: WorkerProcess | undefined;
  let url: string;
  let auth: Record<string, string>;
  let agentId: string;
  let activeAtKill: string[] = [];

  before(async () => {
    cluster = await startPrivateCluster();
    await createDatabases(cluster, 'svc');
    env = {
      DATABASE_URL: cluster.url('svc'),
      APP_KEY: generateAppKey(),
      PORT: '0',
      HOST: '127.0.0.1',
      BCRYPT_COST: '4',
      WP_THROTTLE_PER_MINUTE: '100000',
      ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
      JOB_LEASE_SECONDS: '6',
      DATABASE_POOL_SIZE: '4',
    };
    // HTTP only: if the service ran jobs too, a job `active` at the kill could be its own, done
    // without a retry (seen once), and the takeover this file checks would be unobservable.
    service = new ServiceProcess({ ...env, RUN_JOBS: 'false' });
    url = await service.waitForUrl(120_000);
    db = new pg.Client({ connectionString: cluster.url('svc') });
    await db.connect();
  });
  after(async () => {
    killed?.kill();
    survivor?.kill();
    service?.kill();
    await Promise.all([killed?.exited, survivor?.exited, service?.exited]);
    await db?.end().catch(() => {});
    await cluster?.destroy();
  });

  test('the worker is killed while it indexes the synced posts', async () => {
    let workspaceId: string;
    ({ auth, workspaceId } = await bootstrapOwner(env));
    agentId = await createAgent(url, auth, 'Shop bot');
    const token = await integrationToken(env, workspaceId);
    killed = new WorkerProcess({ ...env, LOG_LEVEL: 'debug' });
    await killed.waitFor((line) => line.msg === 'worker started', 1, 90_000);
    await syncPosts(url, token, agentId, SITE, POSTS);
    // The worker takes its next job as soon as one is done: after its 20th document it holds one.
    const indexed = (line: Record<string, unknown>) => line.msg === 'document indexed';
    await killed.waitFor(indexed, 20, 120_000);
    killed.signal('SIGKILL');
    assert.deepEqual(await killed.exited, { code: null, signal: 'SIGKILL' });
    const active = await db.query<{ id: string }>(
      "select id::text from pgboss.job where name = 'index-document' and state = 'active'",
    );
    activeAtKill = active.rows.map((row) => row.id);
    const pending = await db.query<{ n: number }>(
      "select count(*)::int as n from documents where index_status <> 'indexed'",
    );
    assert.ok((pending.rows[0]?.n ?? 0) > 0, 'documents were still waiting when the worker died');
  });

  // A synced site's source stays `ready`; it is indexed when its progress has every document indexed.
  test('another worker takes the jobs over; every document of the source is indexed within the bound', async () => {
    survivor = new WorkerProcess(env);
    const sources = await call(url, 'GET', `/api/v1/admin/agents/${agentId}/sources`, auth);
    const list = field(sources.body, 'data');
    assert.ok(Array.isArray(list) && list.length === 1, JSON.stringify(sources.body));
    const sourceId = text(field(list[0], 'id'));
    const started = Date.now();
    // Done when every document is indexed and every job that was running at the kill has
    // completed (the dead worker's may have written its chunks before it died, but not completed).
    const jobsAtKill = async () =>
      (
        await db.query<{ id: string; state: string; retry_count: number }>(
          "select id::text, state, retry_count from pgboss.job where id::text = any($1) and name = 'index-document'",
          [activeAtKill],
        )
      ).rows;
    let progress: unknown = null;
    let jobs = await jobsAtKill();
    while (Date.now() - started < 150_000) {
      const res = await call(url, 'GET', `/api/v1/admin/sources/${sourceId}`, auth);
      progress = field(res.body, 'data', 'progress');
      jobs = await jobsAtKill();
      const settled = jobs.every((job) => job.state === 'completed' || job.state === 'failed');
      if (settled && field(progress, 'documents_pending') === 0) break;
      await sleep(1_000);
    }
    const elapsed = Date.now() - started;
    assert.deepEqual(
      [
        field(progress, 'documents_indexed'),
        field(progress, 'documents_pending'),
        field(progress, 'documents_failed'),
      ],
      [POSTS, 0, 0],
      `within 150 s of the kill (${elapsed} ms): ${JSON.stringify(progress)}`,
    );
    // The job the dead worker held ran again elsewhere: its killed attempt counted as a retry.
    assert.ok(
      jobs.every((job) => job.state === 'completed') && jobs.some((job) => job.retry_count >= 1),
      `the jobs active at the kill completed, one after a retry: ${JSON.stringify(jobs)}`,
    );
    process.stdout.write(
      `# every document indexed and the dead worker's job retried ${elapsed} ms after the kill\n`,
    );
  });

  test('every post is one document, every chunk is there once', async () => {
    const documents = await db.query<{ n: number; distinct: number; indexed: number }>(
      `select count(*)::int as n, count(distinct external_id)::int as distinct,
        count(*) filter (where index_status = 'indexed')::int as indexed
       from documents where agent_id = $1`,
      [agentId],
    );
    assert.deepEqual(documents.rows[0], { n: POSTS, distinct: POSTS, indexed: POSTS });
    const chunks = await db.query<{ n: number; distinct: number; docs: number }>(
      `select count(*)::int as n, count(distinct (c.document_id, c.ordinal))::int as distinct,
        count(distinct c.document_id)::int as docs
       from chunks c join documents d on d.id = c.document_id where d.agent_id = $1`,
      [agentId],
    );
    const row = chunks.rows[0];
    assert.ok(row);
    assert.equal(row.n, row.distinct, 'no chunk is duplicated');
    assert.equal(row.docs, POSTS, 'every document has chunks');
    // The chunk ordinals of each document run 0..n-1 without a gap.
    const gaps = await db.query<{ n: number }>(
      `select count(*)::int as n from (
         select c.document_id from chunks c join documents d on d.id = c.document_id
         where d.agent_id = $1 group by c.document_id having max(c.ordinal) + 1 <> count(*)) g`,
      [agentId],
    );
    assert.equal(gaps.rows[0]?.n, 0);
  });
});
