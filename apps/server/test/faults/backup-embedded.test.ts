// `cli backup` / `cli restore` on the embedded store: a backup taken through the control socket of
// a running service while requests write restores into a new DATA_DIR, and a service started
// there finds every agent, source and conversation acknowledged before the backup, and opens the
// workspace's sealed model key. A damaged or truncated archive is refused and changes nothing.
// Embedded only: the PostgreSQL pass of CI skips it (it never touches DATABASE_URL anyway).
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { field, runCli, ServiceProcess, text } from '../support/processes.js';
import {
  bootstrapOwner,
  call,
  createAgent,
  listIds,
  sleep,
  startConversation,
} from './support/service-http.js';

const MODEL_KEY = 'sk-backup-model-key-7Q3Z';
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe('cli backup and restore of the embedded store', {
  skip: onPostgres ? 'embedded-store test: runs in the PGlite pass of the suite' : false,
}, () => {
  let root: string;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let restored: ServiceProcess | undefined;
  let url: string;
  let auth: Record<string, string>;
  let backupFile: string;
  const agentsBefore: string[] = [];
  const sourcesBefore: string[] = [];
  const conversationsBefore: string[] = [];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-backup-'));
    env = {
      DATA_DIR: join(root, 'live'),
      PORT: '0',
      HOST: '127.0.0.1',
      BCRYPT_COST: '4',
      DEMO_SEED: 'false',
      ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
    };
    service = new ServiceProcess(env);
    url = await service.waitForUrl(120_000);
    ({ auth } = await bootstrapOwner(env));
    for (let i = 0; i < 3; i += 1) {
      const agentId = await createAgent(url, auth, `Agent ${i}`);
      agentsBefore.push(agentId);
      const source = await call(url, 'POST', `/api/v1/admin/agents/${agentId}/sources`, auth, {
        type: 'text',
        name: `Returns ${i}`,
        text: `Returns are accepted within ${30 + i} days of delivery.`,
      });
      assert.equal(source.status, 201, JSON.stringify(source.body));
      sourcesBefore.push(text(field(source.body, 'data', 'id')));
      conversationsBefore.push(await startConversation(url, agentId, `How long for returns, ${i}?`));
    }
    // Set last: answers would go to the (unreachable) provider with this key.
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
    await rm(root, { recursive: true, force: true });
  });

  test('a backup taken through the running service while requests write is whole and 0600', async () => {
    backupFile = join(root, 'store.backup');
    // Writes keep coming while the backup runs: each agent acknowledged before it started must be
    // in it; the rest may or may not be, but the store must open either way.
    let writing = true;
    let acknowledged = 0;
    const writer = (async () => {
      while (writing) {
        await createAgent(url, auth, `During backup ${acknowledged}`);
        acknowledged += 1;
      }
    })();
    await sleep(200);
    const started = Date.now();
    const result = await runCli(['backup', backupFile, '--json'], env, 120_000);
    writing = false;
    await writer;
    assert.equal(result.code, 0, result.stderr);
    const answer: unknown = JSON.parse(result.stdout);
    assert.equal(field(answer, 'file'), backupFile);
    assert.equal(field(answer, 'key'), 'archive');
    assert.ok(acknowledged > 0, 'writes went on while the backup was taken');
    const info = await stat(backupFile);
    assert.equal(info.mode & 0o777, 0o600);
    assert.equal(info.size, field(answer, 'bytes'));
    // Nothing but the backup is left beside it (the temp file was renamed).
    assert.deepEqual(await readdir(root), ['live', 'store.backup']);
    assert.ok(Date.now() - started < 120_000);
    // The service that was backed up still serves.
    assert.equal((await call(url, 'GET', '/readyz', {})).status, 200);
  });

  test('restore refuses a damaged or truncated archive and writes nothing', async () => {
    const bytes = await readFile(backupFile);
    const damaged = Buffer.from(bytes);
    const at = bytes.byteLength - 1000;
    damaged[at] = (damaged[at] ?? 0) ^ 0xff;
    const cases: Array<[string, Buffer, RegExp]> = [
      ['damaged.backup', damaged, /is not a usable backup: its entry .* is damaged/],
      [
        'truncated.backup',
        bytes.subarray(0, bytes.byteLength - 4096),
        /is not a usable backup: it is truncated/,
      ],
      [
        'garbage.backup',
        Buffer.from('not a backup at all\n'),
        /is not a usable backup: it is not a backup made by/,
      ],
    ];
    for (const [name, content, message] of cases) {
      const file = join(root, name);
      await writeFile(file, content);
      const target = join(root, `target-${name}`);
      const result = await runCli(['restore', file, '--data-dir', target], env, 120_000);
      assert.equal(result.code, 1, `${name}: ${result.stdout}`);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /Nothing was changed/);
      await assert.rejects(stat(target), { code: 'ENOENT' }, `${name}: no data dir was created`);
      await rm(file);
    }
  });

  test('restore refuses a non-empty data dir without --force, and the live one with it', async () => {
    const refused = await runCli(['restore', backupFile, '--data-dir', env.DATA_DIR ?? ''], env, 60_000);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not empty/);
    const forced = await runCli(
      ['restore', backupFile, '--data-dir', env.DATA_DIR ?? '', '--force'],
      env,
      60_000,
    );
    assert.equal(forced.code, 1);
    assert.match(forced.stderr, /in use by another process/);
    // The running service did not notice.
    assert.equal((await call(url, 'GET', '/readyz', {})).status, 200);
  });

  test('restored into a new data dir, a service finds everything and opens the sealed key', async () => {
    const target = join(root, 'restored');
    const result = await runCli(['restore', backupFile, '--data-dir', target, '--json'], env, 120_000);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(field(JSON.parse(result.stdout), 'data_dir'), target);
    assert.equal((await stat(join(target, 'app.key'))).mode & 0o777, 0o600);
    restored = new ServiceProcess({ ...env, DATA_DIR: target });
    const restoredUrl = await restored.waitForUrl(120_000);
    const agents = await listIds(restoredUrl, auth, '/api/v1/admin/agents');
    for (const id of agentsBefore) assert.ok(agents.includes(id), `agent ${id} restored`);
    const sources: string[] = [];
    for (const id of agentsBefore)
      sources.push(...(await listIds(restoredUrl, auth, `/api/v1/admin/agents/${id}/sources`)));
    assert.deepEqual(sources.sort(), [...sourcesBefore].sort());
    const conversations = await listIds(restoredUrl, auth, '/api/v1/admin/conversations');
    assert.deepEqual(conversations.sort(), [...conversationsBefore].sort());
    const key = await call(restoredUrl, 'GET', '/api/v1/admin/llm-key', auth);
    assert.equal(key.status, 200, JSON.stringify(key.body));
    assert.equal(field(key.body, 'data', 'key_last4'), MODEL_KEY.slice(-4), 'the sealed key opens');
    // And the restored copy takes writes of its own.
    await createAgent(restoredUrl, auth, 'After restore');
    restored.signal('SIGTERM');
    assert.deepEqual(await restored.waitForExit(), { code: 0, signal: null }, restored.stderr);
  });

  test('without the archive key, the restored secrets stay sealed (the key is what protects them)', async () => {
    const target = join(root, 'restored-other-key');
    const result = await runCli(['restore', backupFile, '--data-dir', target], env, 120_000);
    assert.equal(result.code, 0, result.stderr);
    await rm(join(target, 'app.key'));
    restored = new ServiceProcess({
      ...env,
      DATA_DIR: target,
      APP_KEY: `base64:${Buffer.alloc(32, 7).toString('base64')}`,
    });
    const restoredUrl = await restored.waitForUrl(120_000);
    const key = await call(restoredUrl, 'GET', '/api/v1/admin/llm-key', auth);
    assert.equal(key.status, 200, JSON.stringify(key.body));
    assert.equal(field(key.body, 'data', 'key_last4'), null);
    restored.signal('SIGTERM');
    await restored.waitForExit();
  });
});
