// SIGTERM with SHUTDOWN_DRAIN_MS: the process keeps serving while /readyz answers 503
// `draining` (for balancers that poll it), then stops listening and exits 0. Without it the
// drain is immediate. RUN_JOBS=false needs PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { field, ServiceProcess } from './support/processes.js';

describe('shutdown drain', () => {
  const dirs: string[] = [];
  const processes: ServiceProcess[] = [];
  after(async () => {
    for (const proc of processes) proc.kill();
    await Promise.all(processes.map((proc) => proc.exited));
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  test('while draining /readyz is 503 "draining" and other requests are still served; then it exits 0', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-drain-'));
    dirs.push(dataDir);
    const service = new ServiceProcess({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      DEMO_SEED: 'false',
      SHUTDOWN_DRAIN_MS: '3000',
    });
    processes.push(service);
    const url = await service.waitForUrl();
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(field(await ready.json(), 'status'), 'ready');

    service.signal('SIGTERM');
    await service.waitForLine((line) => String(line.msg).startsWith('draining'));
    const draining = await fetch(`${url}/readyz`);
    assert.equal(draining.status, 503);
    const body: unknown = await draining.json();
    assert.equal(field(body, 'status'), 'draining');
    assert.equal(field(body, 'checks', 'database'), 'ok');
    // Still serving everything else meanwhile.
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    const exit = await service.waitForExit();
    assert.deepEqual(exit, { code: 0, signal: null }, service.stderr);
    assert.ok(service.lines.some((line) => line.msg === 'stopped'));
    await assert.rejects(fetch(`${url}/healthz`), 'the port is closed after the stop');
  });

  test('RUN_JOBS=false is refused on the embedded store; SHUTDOWN_DRAIN_MS is bounded', () => {
    assert.throws(
      () => loadConfig({ RUN_JOBS: 'false' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /RUN_JOBS: false needs DATABASE_URL/);
        return true;
      },
    );
    assert.equal(loadConfig({}).runJobs, true);
    assert.equal(loadConfig({}).shutdownDrainMs, 0);
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_MS: '600000' }).shutdownDrainMs, 600_000);
    assert.throws(() => loadConfig({ SHUTDOWN_DRAIN_MS: '600001' }), ConfigError);
    assert.throws(() => loadConfig({ RUN_JOBS: 'maybe' }), ConfigError);
  });
});
