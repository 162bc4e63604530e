// The embedded store: the service killed with SIGKILL while a site sync is being written, then
// started again on the same DATA_DIR: the store opens, the dead process's lock is taken over (and
// released at a clean stop), and the sync repeated gives the same counts as a sync repeated again.
// Embedded only: the PostgreSQL pass of CI skips it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { lockDataDir } from '../../src/db/data-dir-lock.js';
import { openEmbeddedDatabase } from '../../src/db/database.js';
import { field, ServiceProcess, text } from '../support/processes.js';
import {
  bootstrapOwner,
  call,
  createAgent,
  integrationToken,
  sleep,
  syncBatch,
  syncPosts,
} from './support/service-http.js';

const POSTS = 200;
/** Paragraphs per post in the batches cut short: about 60 KB of HTML each. */
const HEAVY_PARAGRAPHS = 800;
const SITE = 'https://embedded-shop.example.com';
const skip = process.env.TEST_DATABASE_URL ? 'embedded-store test: runs in the PGlite pass' : false;

describe('embedded store: killed during a site sync, restarted, the sync repeated', { skip }, () => {
  let root: string;
  let env: Record<string, string>;
  let first: ServiceProcess;
  let second: ServiceProcess | undefined;
  let auth: Record<string, string>;
  let token: string;
  let agentId: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-kill-sync-'));
    env = {
      DATA_DIR: join(root, 'data'),
      PORT: '0',
      HOST: '127.0.0.1',
      BCRYPT_COST: '4',
      DEMO_SEED: 'false',
      WP_THROTTLE_PER_MINUTE: '100000',
      ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
    };
    first = new ServiceProcess(env);
  });
  after(async () => {
    first?.kill();
    second?.kill();
    await Promise.all([first?.exited, second?.exited]);
    await rm(root, { recursive: true, force: true });
  });

  /** The synced site's counts as the admin API shows them, once every document is indexed. */
  async function settledCounts(url: string) {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const list = await call(url, 'GET', `/api/v1/admin/agents/${agentId}/sources`, auth);
      const sources = field(list.body, 'data');
      assert.ok(Array.isArray(sources), JSON.stringify(list.body));
      const progress = field(sources[0], 'progress');
      const counts = {
        sources: sources.length,
        documents: field(sources[0], 'document_count'),
        indexed: field(progress, 'documents_indexed'),
        pending: field(progress, 'documents_pending'),
        failed: field(progress, 'documents_failed'),
        chunks: field(progress, 'chunks_total'),
      };
      if (counts.pending === 0 || Date.now() > deadline) return counts;
      await sleep(500);
    }
  }

  test('killed with SIGKILL while a sync batch is being written', async () => {
    const url = await first.waitForUrl(120_000);
    let workspaceId: string;
    ({ auth, workspaceId } = await bootstrapOwner(env));
    agentId = await createAgent(url, auth, 'Shop bot');
    token = await integrationToken(env, workspaceId);
    // Heavy batches (50 posts of about 60 KB each), so that writing one takes long enough to be
    // cut in its middle: two of them measure how long that is on this machine (the cold start
    // of the store's tables is paid by a small batch before them), the third is cut.
    const posts = (from: number) => Array.from({ length: 50 }, (_, i) => from + i);
    const warm = await syncBatch(url, token, agentId, SITE, [1]);
    assert.equal(warm.status, 200, JSON.stringify(warm.body));
    /** The ids of the sync requests the service has logged so far. */
    const syncs = () =>
      first.lines
        .filter((line) => field(line, 'req', 'url') === '/api/v1/wp/posts/sync')
        .map((line) => field(line, 'reqId'));
    const durations: number[] = [];
    for (const from of [1, 51]) {
      const count = syncs().length;
      const batch = await syncBatch(url, token, agentId, SITE, posts(from), HEAVY_PARAGRAPHS);
      assert.equal(batch.status, 200, JSON.stringify(batch.body));
      let took: unknown;
      for (const deadline = Date.now() + 10_000; took === undefined && Date.now() < deadline; ) {
        const reqId = syncs()[count];
        const done = first.lines.find(
          (line) => reqId && field(line, 'reqId') === reqId && 'responseTime' in line,
        );
        took = field(done, 'responseTime');
        if (took === undefined) await sleep(5);
      }
      assert.equal(typeof took, 'number', 'the measured batch logged its response time');
      durations.push(Number(took));
    }
    const before = syncs().length;
    const inFlight = syncBatch(url, token, agentId, SITE, posts(101), HEAVY_PARAGRAPHS).catch(
      (error: unknown) => ({ status: 0, body: String(error) }),
    );
    const deadline = Date.now() + 30_000;
    while (syncs().length === before && Date.now() < deadline) await sleep(2);
    // A third of the way through the shorter of the two times the same work took just before.
    await sleep(Math.min(...durations) / 3);
    first.signal('SIGKILL');
    assert.deepEqual(await first.waitForExit(), { code: null, signal: 'SIGKILL' });
    assert.equal((await inFlight).status, 0, 'the batch was cut short: it got no answer');
    // The dead process's lock is still on disk: it names a pid that no longer runs.
    await stat(join(env.DATA_DIR ?? '', 'service.lock'));
  });

  test('started again, the store opens and the repeated sync gives the same counts twice', async () => {
    second = new ServiceProcess(env);
    const url = await second.waitForUrl(120_000);
    await syncPosts(url, token, agentId, SITE, POSTS);
    const once = await settledCounts(url);
    assert.equal(once.sources, 1);
    assert.equal(once.documents, POSTS);
    assert.equal(once.indexed, POSTS);
    assert.equal(once.failed, 0);
    assert.ok(Number(once.chunks) >= POSTS, JSON.stringify(once));
    await syncPosts(url, token, agentId, SITE, POSTS);
    assert.deepEqual(await settledCounts(url), once, 'the same sync again changes no count');
  });

  test('a clean stop releases the lock; every document and chunk is there once', async () => {
    second?.signal('SIGTERM');
    assert.deepEqual(await second?.waitForExit(), { code: 0, signal: null }, second?.stderr);
    await assert.rejects(stat(join(env.DATA_DIR ?? '', 'service.lock')), { code: 'ENOENT' });
    const release = await lockDataDir(env.DATA_DIR ?? '', () => {});
    try {
      const database = await openEmbeddedDatabase({
        dataDir: env.DATA_DIR ?? '',
        log: { info() {}, warn() {} },
      });
      try {
        const documents = await sql<{ n: number; distinct: number }>`
          select count(*)::int as n, count(distinct external_id)::int as distinct
          from documents where agent_id = ${agentId}`.execute(database.db);
        assert.deepEqual(documents.rows[0], { n: POSTS, distinct: POSTS });
        const chunks = await sql<{ n: number; distinct: number }>`
          select count(*)::int as n, count(distinct (c.document_id, c.ordinal))::int as distinct
          from chunks c join documents d on d.id = c.document_id
          where d.agent_id = ${agentId}`.execute(database.db);
        const row = chunks.rows[0];
        assert.ok(row && row.n > 0 && row.n === row.distinct, JSON.stringify(row));
        const bad = await sql<{
          n: number;
        }>`select count(*)::int as n from sources where agent_id = ${agentId}`.execute(database.db);
        assert.equal(bad.rows[0]?.n, 1);
      } finally {
        await database.close();
      }
    } finally {
      await release();
    }
    assert.ok(text(agentId));
  });
});
