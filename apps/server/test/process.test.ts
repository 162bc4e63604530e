// Black-box tests of the real processes on the embedded store: `main.ts` and the CLI.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config/config.js';
import { LOCK_NAME, lockDataDir } from '../src/db/data-dir-lock.js';
import { openEmbeddedDatabase } from '../src/db/database.js';
import { loadMigrations } from '../src/db/migrate.js';
import { field, keysOf, oneJsonLine, runCli, runMain, ServiceProcess, text } from './support/processes.js';

const PASSWORD = 'correct horse battery';

describe('service process on the embedded store', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let restarted: ServiceProcess | undefined;
  let url: string;
  let adminToken = '';
  let workspaceId = '';
  let agentId = '';

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-proc-'));
    env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BCRYPT_COST: '4', DEMO_SEED: 'false' };
    service = new ServiceProcess(env);
    url = await service.waitForUrl();
  });

  after(async () => {
    service.kill();
    restarted?.kill();
    await Promise.all([service.exited, restarted?.exited]);
    await rm(dataDir, { recursive: true, force: true });
  });

  test('logs its URL and store, answers /healthz and /readyz', async () => {
    const listening = await service.waitForLine((line) => typeof line.url === 'string');
    assert.equal(listening.store, 'embedded');
    assert.match(text(listening.msg), /^service listening on http:\/\/127\.0\.0\.1:\d+/);
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    const body: unknown = await ready.json();
    assert.equal(field(body, 'status'), 'ready');
    const expected = (await loadMigrations()).length;
    assert.deepEqual(field(body, 'checks', 'migrations'), { current: expected, expected });
    assert.ok(service.lines.some((line) => line.msg === 'applied database migrations'));
  });

  test('generates DATA_DIR/app.key (0600) with a warning naming APP_KEY', async () => {
    const info = await stat(join(dataDir, 'app.key'));
    assert.equal(info.mode & 0o777, 0o600);
    const warning = service.lines.find((line) => line.level === 40 && /APP_KEY/.test(String(line.msg)));
    assert.ok(warning, service.rawStdout.join('\n'));
    assert.ok(existsSync(join(dataDir, LOCK_NAME)));
    assert.equal((await stat(join(dataDir, 'control.sock'))).mode & 0o777, 0o600);
    assert.ok(service.lines.some((line) => /No users yet/.test(String(line.msg))));
  });

  test('with no user yet, logs the console URL and a one-time setup code it wrote to DATA_DIR/setup-code (0600)', async () => {
    const file = join(dataDir, 'setup-code');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const code = (await readFile(file, 'utf8')).trim();
    assert.match(code, /^[A-Z2-9]{4}(?:-[A-Z2-9]{4}){3}$/);
    const line = service.lines.find((entry) => /No users yet/.test(String(entry.msg)));
    assert.ok(line);
    assert.ok(text(line.msg).includes(`${url}/admin/`), text(line.msg));
    assert.ok(text(line.msg).includes(code), 'the log names the code');
    // The start ends with what to open: the console and its setup code.
    const ready = await service.waitForLine((entry) => /^Ready\./.test(String(entry.msg)));
    assert.equal(ready.console, `${url}/admin/`);
    assert.ok(text(ready.msg).includes(code), text(ready.msg));
    const status = await fetch(`${url}/api/v1/admin/setup`);
    assert.deepEqual(await status.json(), { data: { needs_setup: true } });
  });

  test('a second service on the same DATA_DIR exits non-zero with a clear message', async () => {
    const second = await runMain(env);
    assert.notEqual(second.code, 0);
    assert.match(second.stderr, /DATA_DIR .* is in use by another process/);
    assert.doesNotMatch(second.stderr, /\n\s+at /);
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
  });

  test('cli bootstrap --json goes through the control socket while the service runs', async () => {
    const result = await runCli(
      [
        'bootstrap',
        '--email',
        'owner@example.com',
        '--password',
        PASSWORD,
        '--workspace',
        'Process Test',
        '--json',
      ],
      env,
    );
    const body = oneJsonLine(result);
    assert.deepEqual(keysOf(body), ['admin_token', 'user', 'workspace']);
    assert.deepEqual(keysOf(field(body, 'user')), ['email', 'id']);
    assert.deepEqual(keysOf(field(body, 'workspace')), ['id', 'name', 'slug']);
    assert.equal(field(body, 'user', 'email'), 'owner@example.com');
    assert.equal(field(body, 'workspace', 'name'), 'Process Test');
    adminToken = text(field(body, 'admin_token'));
    assert.match(adminToken, /^svc_/);
    workspaceId = text(field(body, 'workspace', 'id'));
    const served = await service.waitForLine(
      (line) => line.component === 'control' && field(line, 'req', 'url') === '/commands/bootstrap',
    );
    assert.ok(served);
  });

  test('the admin token creates an agent and an API token over HTTP', async () => {
    const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
    const agent = await fetch(`${url}/api/v1/admin/agents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Process agent' }),
    });
    assert.equal(agent.status, 201);
    agentId = text(field(await agent.json(), 'data', 'id'));
    const token = await fetch(`${url}/api/v1/admin/tokens`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'site', abilities: ['wp:integration'] }),
    });
    assert.equal(token.status, 201);
    assert.match(text(field(await token.json(), 'data', 'token')), /^svc_/);
  });

  test('cli token:create --json works through the running service', async () => {
    const result = await runCli(
      ['token:create', '--workspace', workspaceId, '--name', 'n', '--abilities', 'wp:integration', '--json'],
      env,
    );
    const body = oneJsonLine(result);
    assert.equal(field(body, 'workspace_id'), workspaceId);
    assert.equal(field(body, 'name'), 'n');
    assert.deepEqual(field(body, 'abilities'), ['wp:integration']);
    assert.match(text(field(body, 'token')), /^svc_/);
  });

  test('cli bootstrap with a bad email or a short password exits 1 with a readable message', async () => {
    const badEmail = await runCli(
      ['bootstrap', '--email', 'not-an-email', '--password', PASSWORD, '--workspace', 'Never A', '--json'],
      env,
    );
    assert.equal(badEmail.code, 1);
    assert.equal(badEmail.stdout, '');
    assert.match(badEmail.stderr, /--email: /);
    assert.doesNotMatch(badEmail.stderr, /\n\s+at /);
    const shortPassword = await runCli(
      [
        'bootstrap',
        '--email',
        'short@example.com',
        '--password',
        'short',
        '--workspace',
        'Never B',
        '--json',
      ],
      env,
    );
    assert.equal(shortPassword.code, 1);
    assert.equal(shortPassword.stdout, '');
    assert.match(shortPassword.stderr, /--password: The password must be at least 8 characters\./);
  });

  test('cli token:create errors and migrate answer readably through the socket', async () => {
    const unknown = await runCli(
      ['token:create', '--workspace', 'nope', '--name', 'n', '--abilities', 'admin', '--json'],
      env,
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^Error: No workspace with id nope\./);
    const badAbility = await runCli(
      ['token:create', '--workspace', workspaceId, '--name', 'n', '--abilities', 'root'],
      env,
    );
    assert.equal(badAbility.code, 1);
    assert.match(badAbility.stderr, /--abilities: /);
    const expected = (await loadMigrations()).length;
    const migrated = oneJsonLine(await runCli(['migrate', '--json'], env));
    assert.deepEqual(migrated, { applied: [], current: expected, expected });
  });

  test('SIGTERM stops it cleanly: exit 0, "stopped", lock and socket removed', async () => {
    service.signal('SIGTERM');
    const status = await service.waitForExit();
    assert.deepEqual(status, { code: 0, signal: null }, service.stderr);
    assert.ok(service.lines.some((line) => line.msg === 'stopped'));
    assert.equal(existsSync(join(dataDir, LOCK_NAME)), false);
    assert.equal(existsSync(join(dataDir, 'control.sock')), false);
  });

  test('with the service stopped, the CLI opens DATA_DIR itself', async () => {
    const result = await runCli(
      [
        'bootstrap',
        '--email',
        'second@example.com',
        '--password',
        PASSWORD,
        '--workspace',
        'Offline',
        '--json',
      ],
      env,
    );
    const body = oneJsonLine(result);
    assert.deepEqual(keysOf(body), ['admin_token', 'user', 'workspace']);
    assert.equal(existsSync(join(dataDir, LOCK_NAME)), false);
  });

  test('the failed bootstraps created nothing', async () => {
    const release = await lockDataDir(dataDir, () => {});
    try {
      const database = await openEmbeddedDatabase({ dataDir, log: { info() {}, warn() {} } });
      try {
        const users = await database.db.selectFrom('users').select('email').orderBy('email').execute();
        assert.deepEqual(
          users.map((user) => user.email),
          ['owner@example.com', 'second@example.com'],
        );
        const workspaces = await database.db
          .selectFrom('workspaces')
          .select('name')
          .orderBy('name')
          .execute();
        assert.deepEqual(
          workspaces.map((workspace) => workspace.name),
          ['Offline', 'Process Test'],
        );
      } finally {
        await database.close();
      }
    } finally {
      await release();
    }
  });

  test('a restart applies no migrations, reuses the key and still serves the data', async () => {
    const next = new ServiceProcess(env);
    restarted = next;
    const nextUrl = await next.waitForUrl();
    assert.equal(
      next.lines.some((line) => line.msg === 'applied database migrations'),
      false,
    );
    assert.equal(
      next.lines.some((line) => /APP_KEY|No users yet/.test(String(line.msg))),
      false,
    );
    const ready = await fetch(`${nextUrl}/readyz`);
    assert.equal(ready.status, 200);
    const list = await fetch(`${nextUrl}/api/v1/admin/agents`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    assert.equal(list.status, 200);
    const agents = field(await list.json(), 'data');
    assert.ok(Array.isArray(agents));
    assert.deepEqual(
      agents.map((agent: unknown) => field(agent, 'id')),
      [agentId],
    );
    next.signal('SIGTERM');
    assert.deepEqual(await next.waitForExit(), { code: 0, signal: null }, next.stderr);
    assert.equal(
      existsSync(join(dataDir, 'setup-code')),
      false,
      'set up by the CLI: the old setup code is gone',
    );
  });
});

describe('CLI commands without a store', () => {
  let dataDir: string;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  test('worker on the embedded store exits 1 and points at DATABASE_URL', async () => {
    const result = await runCli(['worker'], { DATA_DIR: dataDir });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /DATABASE_URL/);
    assert.equal(existsSync(join(dataDir, 'pgdata')), false);
  });

  test('key:generate prints a key that loadConfig accepts', async () => {
    const result = await runCli(['key:generate'], { DATA_DIR: dataDir });
    assert.equal(result.code, 0, result.stderr);
    const key = result.stdout.trimEnd();
    assert.match(key, /^base64:[A-Za-z0-9+/]{43}=$/);
    const config = loadConfig({ APP_KEY: key });
    assert.equal(config.appKey?.length, 32);
    assert.equal(config.appKey?.toString('base64'), key.slice('base64:'.length));
  });
});
