import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TSource, ZSource } from '@service/contract';
import { sql } from 'kysely';
import { JOB_DEFINITIONS } from '../src/jobs/definitions.js';
import { embedChunksJob } from '../src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { createLogger } from '../src/logger.js';
import { INTERRUPTED_MESSAGE } from '../src/queue/job-failures.js';
import { JobQueue } from '../src/queue/job-queue.js';
import { EMBED_RETRY_LIMIT, FETCH_RETRY_LIMIT, INDEX_RETRY_LIMIT } from '../src/queue/job-specs.js';
import { expectData } from './support/http.js';
import { type CountingServer, documentsOfSource, PAGE_V1, startServer } from './support/sources.js';
import {
  createTestApp,
  injectJson,
  seedTenant,
  type Tenant,
  type TestApp,
  workerServices,
} from './support/test-app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type LogLine = { level: number; msg: string; reason?: string };

/**
 * A process stopped (crash, kill -9) with jobs running: on the embedded store the next start
 * fails them as interrupted and retries them at once; a last attempt is given up, and what the
 * job was about (a source, a document, vectors) is settled with the reason.
 */
describe('jobs interrupted by a stop are retried at start, or given up with the reason', () => {
  let t: TestApp;
  let site: CountingServer;
  let acme: Tenant;
  let worker: JobQueue;
  const lines: LogLine[] = [];
  const ids: Record<string, string> = {};

  before(async () => {
    site = await startServer();
    site.page.body = PAGE_V1;
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${site.port}` } });
    acme = await seedTenant(t, 'Acme');
    // The restarted process's queue: its own logger, so its give-up lines can be read.
    worker = await JobQueue.start({
      pool: t.database.pool,
      db: t.database.db,
      log: createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line)) }),
      definitions: JOB_DEFINITIONS,
      maintenance: false,
    });
  });
  after(async () => {
    await worker.stop(5_000);
    await t.close();
    await site.close();
  });

  const newAgent = async (name: string) =>
    (await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name }, acme.auth)).json().data.id as string;
  const create = async (agentId: string, body: unknown): Promise<TSource> =>
    expectData(
      await injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/sources`, body, acme.auth),
      201,
      ZSource,
    );
  const source = async (id: string) =>
    expectData(await t.app.inject({ url: `/api/v1/admin/sources/${id}`, headers: acme.auth }), 200, ZSource);
  const firstDocument = async (sourceId: string) => {
    const [doc] = await documentsOfSource(t, sourceId);
    assert.ok(doc);
    return doc.id;
  };

  /** Leaves the key's waiting job as a process that died would: `active`, at attempt `retryCount + 1`. */
  const leaveActive = async (name: string, key: string, retryCount: number, startedAgo = '1 second') => {
    const moved = await sql`
      update pgboss.job set state = 'active', retry_count = ${retryCount},
        started_on = now() - ${startedAgo}::interval
      where name = ${name} and singleton_key = ${key} and state = 'created'`.execute(t.database.db);
    assert.equal(Number(moved.numAffectedRows), 1, `one ${name} job for ${key}`);
  };
  const jobOf = async (name: string, key: string) => {
    const rows = await sql<{ state: string; due: boolean; output: unknown }>`
      select state, start_after <= now() as due, output from pgboss.job
      where name = ${name} and singleton_key = ${key} order by created_on desc`.execute(t.database.db);
    return rows.rows;
  };

  test('arrange: jobs left active by a stopped process', async () => {
    const agentId = await newAgent('Shop bot');
    // A text source whose index job was running at its first attempt.
    const resumed = await create(agentId, { type: 'text', text: 'Parcels ship on Tuesdays.' });
    ids.resumedDoc = await firstDocument(resumed.id);
    ids.resumed = resumed.id;
    await leaveActive('index-document', ids.resumedDoc, 0);
    // A text source whose index job was running at its last attempt.
    const lastIndex = await create(agentId, { type: 'text', text: 'Returns within thirty days.' });
    ids.lastIndex = lastIndex.id;
    await leaveActive('index-document', await firstDocument(lastIndex.id), INDEX_RETRY_LIMIT);
    // A url source fetching at its last attempt.
    const lastFetch = await create(agentId, { type: 'url', url: `http://127.0.0.1:${site.port}/a` });
    ids.lastFetch = lastFetch.id;
    await t.database.db
      .updateTable('sources')
      .set({ status: 'fetching' })
      .where('id', '=', lastFetch.id)
      .execute();
    await leaveActive('fetch-source', lastFetch.id, FETCH_RETRY_LIMIT);
    // A url source fetching at its last attempt while a re-index queued the next fetch.
    const superseded = await create(agentId, { type: 'url', url: `http://127.0.0.1:${site.port}/b` });
    ids.superseded = superseded.id;
    await leaveActive('fetch-source', superseded.id, FETCH_RETRY_LIMIT);
    const reindex = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${superseded.id}/reindex`,
      headers: acme.auth,
    });
    assert.equal(reindex.statusCode, 202, reindex.body);

    // Another agent's embedding run, interrupted at its last attempt, its source waiting for it.
    if (t.embeddings) {
      const otherAgent = await newAgent('Docs bot');
      ids.otherAgent = otherAgent;
      const waiting = await create(otherAgent, { type: 'text', text: 'Lanterns need two batteries.' });
      ids.vectors = waiting.id;
      await indexDocumentJob.handle(
        { documentId: await firstDocument(waiting.id) },
        {
          db: t.database.db,
          clock: t.clock,
          log: createLogger('silent'),
          jobId: 'x',
          attempt: 1,
          queue: t.queue,
          embeddings: t.embeddings,
        },
      );
      assert.equal((await source(waiting.id)).status, 'indexing', 'waiting for its vectors');
      await leaveActive('embed-chunks', otherAgent, EMBED_RETRY_LIMIT);
    }
  });

  test('at start every active job is failed as interrupted; those with attempts left are due at once', async () => {
    const interrupted = await worker.retryInterrupted();
    const summary = interrupted.map(({ name, retried }) => `${name}:${retried}`).sort();
    const expected = [
      'fetch-source:false',
      'fetch-source:false',
      'index-document:false',
      'index-document:true',
      ...(ids.otherAgent ? ['embed-chunks:false'] : []),
    ].sort();
    assert.deepEqual(summary, expected);
    const [resumedJob] = await jobOf('index-document', ids.resumedDoc ?? '');
    assert.equal(resumedJob?.state, 'retry');
    assert.equal(resumedJob?.due, true, 'no backoff delay: it runs as soon as the worker starts');
    assert.deepEqual(resumedJob?.output, { message: INTERRUPTED_MESSAGE });
    // Nothing is left active, and nothing is settled before the worker runs.
    const active = await sql<{
      n: number;
    }>`select count(*)::int as n from pgboss.job where state = 'active'`.execute(t.database.db);
    assert.equal(active.rows[0]?.n, 0);
    assert.equal((await source(ids.lastFetch ?? '')).status, 'fetching');
    assert.deepEqual(await worker.retryInterrupted(), [], 'a second call finds nothing');
  });

  test('the worker runs the retried job again and gives up the last attempts with their reason', async () => {
    await worker.work(workerServices(t), { pollingIntervalSeconds: 1 });
    const deadline = Date.now() + 60_000;
    const settled = async () => {
      const states = await Promise.all(
        [ids.resumed, ids.lastIndex, ids.lastFetch, ids.superseded, ids.vectors]
          .filter((id): id is string => id !== undefined)
          .map(async (id) => (await source(id)).status),
      );
      return states.every((status) => status === 'indexed' || status === 'failed');
    };
    while (!(await settled()) && Date.now() < deadline) await sleep(200);

    const resumed = await source(ids.resumed ?? '');
    assert.equal(resumed.status, 'indexed');
    assert.equal(resumed.error, null);

    const lastIndex = await source(ids.lastIndex ?? '');
    assert.equal(lastIndex.status, 'failed');
    assert.equal(
      lastIndex.error,
      '1 of 1 documents could not be indexed ("Pasted text": the index job was interrupted by a ' +
        'restart of the service on its last attempt)',
    );

    const lastFetch = await source(ids.lastFetch ?? '');
    assert.equal(lastFetch.status, 'failed');
    assert.equal(
      lastFetch.error,
      'failed: the fetch was interrupted by a restart of the service on its last attempt',
    );

    // Its interrupted fetch was not given up: the fetch the re-index queued ran instead.
    const superseded = await source(ids.superseded ?? '');
    assert.equal(superseded.status, 'indexed');
    assert.equal(superseded.error, null);

    if (ids.vectors) {
      const vectors = await source(ids.vectors);
      assert.equal(vectors.status, 'indexed');
      assert.equal(vectors.error, 'vectors could not be computed; full-text search only');
    }

    const givenUp = lines.filter((line) => line.level === 50 && / failed for good: /.test(line.msg));
    const expected = ids.vectors ? 3 : 2;
    assert.equal(givenUp.length, expected, JSON.stringify(givenUp));
    assert.ok(
      givenUp.every(
        (line) => line.reason === 'was interrupted by a restart of the service on its last attempt',
      ),
    );
    // The superseded one was left to the newer fetch, or found settled by it: no error either way.
    const left = lines.filter((line) => /newer job with the same payload|already settled/.test(line.msg));
    assert.ok(left.length >= 1, JSON.stringify(lines.map((line) => line.msg)));
  });

  test('a later embedding run that writes the vectors takes the note away', async (ctx) => {
    const agentId = ids.otherAgent;
    if (!agentId || !ids.vectors || !t.embeddings) return ctx.skip('no vectors on this engine');
    await embedChunksJob.handle(
      { agentId },
      {
        db: t.database.db,
        clock: t.clock,
        log: createLogger('silent'),
        jobId: 'x',
        attempt: 1,
        embeddings: t.embeddings,
      },
    );
    const vectors = await source(ids.vectors);
    assert.equal(vectors.status, 'indexed');
    assert.equal(vectors.error, null);
  });
});
