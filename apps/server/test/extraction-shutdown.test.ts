import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ZAgent } from '@service/contract';
import { z } from 'zod';
import { systemClock } from '../src/clock.js';
import { ensureAppKey } from '../src/config/app-key.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/service.js';
import { bootstrap } from '../src/services/accounts/bootstrap.js';
import { fixture, multipartBody } from './support/upload-files.js';

const dataDir = await mkdtemp(join(tmpdir(), 'svc-extract-stop-'));
after(() => rm(dataDir, { recursive: true, force: true }));

/** The worker threads this process runs now, as its diagnostic report lists them. */
function workerThreads(): number {
  const workers: unknown = Reflect.get(process.report.getReport(), 'workers');
  return Array.isArray(workers) ? workers.length : 0;
}

test('stopping the service terminates the extraction threads an upload started', {
  timeout: 180_000,
}, async () => {
  // Threads that run before the service starts (the test runner's); the service's own (the
  // embedded store's, the extraction pool's) must all be gone once it has stopped.
  const before = workerThreads();
  const config = await ensureAppKey(
    loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
      BCRYPT_COST: '4',
      LOG_LEVEL: 'silent',
      DEMO_SEED: 'false',
      EXTRACT_WORKERS: '1',
    }),
    () => undefined,
  );
  const service = await startService(config, createLogger('silent'), { worker: false });
  // Threads of other parts (the test runner's, the embedded store's) are counted out.
  const others = workerThreads();
  try {
    const { admin_token } = await bootstrap({
      db: service.database.db,
      clock: systemClock,
      input: { email: 'owner@example.com', password: 'correct horse battery', workspace: 'Stop test' },
      bcryptCost: 4,
    });
    const auth = { authorization: `Bearer ${admin_token}` };
    const created = await fetch(`${service.url}/api/v1/admin/agents`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Stop bot' }),
    });
    assert.equal(created.status, 201);
    const agent = z.object({ data: ZAgent }).parse(await created.json()).data;
    const body = multipartBody([{ name: 'policy.docx', bytes: await fixture('returns-policy.docx') }]);
    const uploaded = await fetch(`${service.url}/api/v1/admin/agents/${agent.id}/uploads`, {
      method: 'POST',
      headers: { ...auth, ...body.headers },
      body: body.payload,
    });
    assert.equal(uploaded.status, 201, await uploaded.text());
    assert.equal(workerThreads(), others + 1, 'the .docx was read in a thread, kept for the next file');
  } finally {
    await service.stop();
  }
  assert.equal(workerThreads(), before, 'no thread of the service outlives its stop');
});
