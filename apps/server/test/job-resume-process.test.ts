// A real service on the embedded store, killed with SIGKILL while a long document is being
// indexed, then started again: the interrupted index job runs again at once, not after its
// 15-minute expiry.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { lockDataDir } from '../src/db/data-dir-lock.js';
import { openEmbeddedDatabase } from '../src/db/database.js';
import { chunkText } from '../src/ingest/chunk-text.js';
import { field, oneJsonLine, runCli, ServiceProcess, text } from './support/processes.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SECTIONS = 1_200;
const TEXT = Array.from(
  { length: SECTIONS },
  (_, i) => `Section ${i + 1}\n\nParcel ${i + 1} leaves the depot on day ${(i % 7) + 1}.`,
).join('\n\n');

describe('a service killed mid-index resumes the job at its next start (embedded store)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let first: ServiceProcess;
  let second: ServiceProcess | undefined;
  let headers: Record<string, string> = {};
  let sourceId = '';

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-resume-'));
    env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BCRYPT_COST: '4', DEMO_SEED: 'false' };
    first = new ServiceProcess(env);
  });
  after(async () => {
    first.kill();
    second?.kill();
    await Promise.all([first.exited, second?.exited]);
    await rm(dataDir, { recursive: true, force: true });
  });

  test('killed with SIGKILL while its index job writes a long document', async () => {
    const url = await first.waitForUrl();
    const body = oneJsonLine(
      await runCli(
        [
          'bootstrap',
          '--email',
          'owner@example.com',
          '--password',
          'correct horse battery',
          '--workspace',
          'Resume',
          '--json',
        ],
        env,
      ),
    );
    headers = {
      authorization: `Bearer ${text(field(body, 'admin_token'))}`,
      'content-type': 'application/json',
    };
    const agent = await fetch(`${url}/api/v1/admin/agents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Depot bot' }),
    });
    const agentId = text(field(await agent.json(), 'data', 'id'));
    const created = await fetch(`${url}/api/v1/admin/agents/${agentId}/sources`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'text', name: 'Depot', text: TEXT }),
    });
    assert.equal(created.status, 201);
    sourceId = text(field(await created.json(), 'data', 'id'));
    await first.waitForLine((line) => line.msg === 'indexing a long document in batches');
    first.signal('SIGKILL');
    assert.deepEqual(await first.waitForExit(), { code: null, signal: 'SIGKILL' });
  });

  test('started again, it retries the job at once and the source is indexed within a minute', async () => {
    // The killed process's DATA_DIR lock names a dead pid: the restart takes it over at once.
    const startedAt = Date.now();
    const attempt = new ServiceProcess(env);
    const url = await Promise.race([attempt.waitForUrl().catch(() => ''), attempt.exited.then(() => '')]);
    second = attempt;
    assert.ok(url, `the first restart after the kill started: ${attempt.stderr}`);
    const retried = await second.waitForLine(
      (line) => line.msg === 'retried jobs interrupted by the last stop',
    );
    const jobs = field(retried, 'jobs');
    assert.ok(Array.isArray(jobs));
    assert.ok(
      jobs.some((job) => field(job, 'name') === 'index-document' && field(job, 'retried') === true),
      JSON.stringify(jobs),
    );
    let status = '';
    while (Date.now() - startedAt < 60_000) {
      const res = await fetch(`${url}/api/v1/admin/sources/${sourceId}`, { headers });
      status = text(field(await res.json(), 'data', 'status'));
      if (status === 'indexed' || status === 'failed') break;
      await sleep(500);
    }
    assert.equal(status, 'indexed', `within 60 s of the second start (${Date.now() - startedAt} ms)`);
  });

  test('every chunk of the document is there once', async () => {
    second?.signal('SIGTERM');
    assert.deepEqual(await second?.waitForExit(), { code: 0, signal: null }, second?.stderr);
    const release = await lockDataDir(dataDir, () => {});
    try {
      const database = await openEmbeddedDatabase({ dataDir, log: { info() {}, warn() {} } });
      try {
        const stats = await sql<{ n: number; distinct: number; last: number }>`
          select count(*)::int as n, count(distinct c.ordinal)::int as distinct, max(c.ordinal) as last
          from chunks c join documents d on d.id = c.document_id
          where d.source_id = ${sourceId}`.execute(database.db);
        const expected = chunkText(TEXT).length;
        assert.equal(expected, SECTIONS);
        assert.deepEqual(stats.rows[0], { n: expected, distinct: expected, last: expected - 1 });
      } finally {
        await database.close();
      }
    } finally {
      await release();
    }
  });
});
