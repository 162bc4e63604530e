// PostgreSQL backups as docs/operations.md ("Backups") documents them: `pg_dump -Fc` of a running
// service's database, `pg_restore` into a fresh database, and a service started there with the
// same APP_KEY finds every agent, source and conversation and opens the sealed model key; with
// another key the data is there but the secret stays sealed. On a private cluster; runs once per
// CI, in the PGlite pass (the PostgreSQL pass skips it).
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { generateAppKey } from '../../src/config/app-key.js';
import { field, runCli, ServiceProcess, text } from '../support/processes.js';
import {
  clusterUnavailable,
  createDatabases,
  PG_BIN,
  type PrivateCluster,
  startPrivateCluster,
} from './support/private-cluster.js';
import { bootstrapOwner, call, createAgent, listIds, startConversation } from './support/service-http.js';

const run = promisify(execFile);
const MODEL_KEY = 'sk-pg-backup-model-key-K9PD';
const pgDump = join(PG_BIN, 'pg_dump');
const pgRestore = join(PG_BIN, 'pg_restore');
const skip = process.env.TEST_DATABASE_URL
  ? 'runs once per CI, in the PGlite pass (it makes its own PostgreSQL cluster)'
  : clusterUnavailable() ||
    (spawnSync(pgDump, ['--version']).status !== 0
      ? 'pg_dump is not installed (apt-get install postgresql-client-15)'
      : false);

describe('PostgreSQL: pg_dump -Fc / pg_restore round trip with the master key', { skip }, () => {
  let cluster: PrivateCluster;
  let root: string;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let restored: ServiceProcess | undefined;
  let auth: Record<string, string>;
  const agents: string[] = [];
  const sources: string[] = [];
  const conversations: string[] = [];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-pgdump-'));
    cluster = await startPrivateCluster();
    await createDatabases(cluster, 'svc', 'svc_restored', 'svc_other_key');
    env = {
      DATABASE_URL: cluster.url('svc'),
      APP_KEY: generateAppKey(),
      PORT: '0',
      HOST: '127.0.0.1',
      BCRYPT_COST: '4',
      ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
      DATABASE_POOL_SIZE: '4',
    };
    service = new ServiceProcess(env);
    const url = await service.waitForUrl(120_000);
    ({ auth } = await bootstrapOwner(env));
    for (let i = 0; i < 2; i += 1) {
      const agentId = await createAgent(url, auth, `Agent ${i}`);
      agents.push(agentId);
      const source = await call(url, 'POST', `/api/v1/admin/agents/${agentId}/sources`, auth, {
        type: 'text',
        name: `Returns ${i}`,
        text: `Returns are accepted within ${30 + i} days.`,
      });
      assert.equal(source.status, 201, JSON.stringify(source.body));
      sources.push(text(field(source.body, 'data', 'id')));
      conversations.push(await startConversation(url, agentId, `Returns ${i}?`));
    }
    const byok = await runCli(['user:byok', 'owner@example.com', 'on'], env);
    assert.equal(byok.code, 0, byok.stderr);
    const key = await call(url, 'PUT', '/api/v1/admin/llm-key', auth, {
      provider: 'openai',
      api_key: MODEL_KEY,
    });
    assert.equal(key.status, 200, JSON.stringify(key.body));
  });
  after(async () => {
    service?.kill();
    restored?.kill();
    await Promise.all([service?.exited, restored?.exited]);
    await cluster?.destroy();
    await rm(root, { recursive: true, force: true });
  });

  async function dumpAndRestore(into: string): Promise<void> {
    const file = join(root, `${into}.dump`);
    const connection = ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres'];
    // The documented commands: a custom-format dump of the running service's database, restored
    // into an empty one without the original owner's grants.
    await run(pgDump, [...connection, '-Fc', '-f', file, 'svc'], { timeout: 120_000 });
    await run(pgRestore, [...connection, '--no-owner', '-d', into, file], { timeout: 120_000 });
  }

  test('restored with the same APP_KEY: every record is there and the sealed key opens', async () => {
    await dumpAndRestore('svc_restored');
    restored = new ServiceProcess({ ...env, DATABASE_URL: cluster.url('svc_restored') });
    const url = await restored.waitForUrl(120_000);
    const restoredAgents = await listIds(url, auth, '/api/v1/admin/agents');
    assert.deepEqual(restoredAgents.sort(), [...agents].sort());
    const restoredSources: string[] = [];
    for (const id of agents)
      restoredSources.push(...(await listIds(url, auth, `/api/v1/admin/agents/${id}/sources`)));
    assert.deepEqual(restoredSources.sort(), [...sources].sort());
    assert.deepEqual(
      (await listIds(url, auth, '/api/v1/admin/conversations')).sort(),
      [...conversations].sort(),
    );
    const key = await call(url, 'GET', '/api/v1/admin/llm-key', auth);
    assert.equal(field(key.body, 'data', 'key_last4'), MODEL_KEY.slice(-4));
    restored.signal('SIGTERM');
    await restored.waitForExit();
  });

  test('restored without the key (another APP_KEY): the records are there, the secret stays sealed', async () => {
    await dumpAndRestore('svc_other_key');
    restored = new ServiceProcess({
      ...env,
      DATABASE_URL: cluster.url('svc_other_key'),
      APP_KEY: generateAppKey(),
    });
    const url = await restored.waitForUrl(120_000);
    assert.equal((await listIds(url, auth, '/api/v1/admin/agents')).length, agents.length);
    const key = await call(url, 'GET', '/api/v1/admin/llm-key', auth);
    assert.equal(key.status, 200, JSON.stringify(key.body));
    assert.equal(field(key.body, 'data', 'key_last4'), null);
    restored.signal('SIGTERM');
    await restored.waitForExit();
  });
});
