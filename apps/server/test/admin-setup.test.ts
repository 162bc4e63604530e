import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../src/http/rate-limit.js';
import { SESSION_COOKIE } from '../src/services/accounts/admin-sessions.js';
import { ensureSetupCode, newSetupCode, SETUP_CODE_FILE } from '../src/services/accounts/setup-code.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery';

describe('first-run setup from the console (/api/v1/admin/setup)', () => {
  let t: TestApp;
  let code = '';
  /** Each test posts from its own address unless it tests the limit: it counts per address. */
  let address = 0;
  const nextAddress = () => {
    address += 1;
    return `10.1.0.${address}`;
  };

  before(async () => {
    t = await createTestApp();
    code = await ensureSetupCode(t.config.dataDir);
  });
  after(() => t.close());

  function postSetup(
    body: unknown,
    options: { ip?: string; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/setup',
      remoteAddress: options.ip ?? nextAddress(),
      headers: { 'content-type': 'application/json', ...options.headers },
      payload: JSON.stringify(body),
    });
  }

  const input = (overrides: Record<string, string> = {}) => ({
    setup_code: code,
    email: 'first@example.com',
    password: PASSWORD,
    workspace_name: 'First shop',
    ...overrides,
  });

  async function userCount(): Promise<number> {
    return (await t.database.db.selectFrom('users').select('id').execute()).length;
  }

  test('the code file is 0600, four groups of four, and kept across calls (a restart reuses it)', async () => {
    const file = join(t.config.dataDir, SETUP_CODE_FILE);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.match(code, /^[A-HJ-NP-Z2-9]{4}(?:-[A-HJ-NP-Z2-9]{4}){3}$/);
    assert.equal((await readFile(file, 'utf8')).trim(), code);
    assert.equal(await ensureSetupCode(t.config.dataDir), code);
    assert.notEqual(newSetupCode(), newSetupCode());
  });

  test('GET says setup is needed while there is no user', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/admin/setup' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(response.json(), { data: { needs_setup: true } });
  });

  test('without the code: 422 naming setup_code; with a wrong one: 403; no user is made', async () => {
    const { setup_code: _omitted, ...withoutCode } = input();
    const missing = await postSetup(withoutCode);
    assert.equal(missing.statusCode, 422, missing.body);
    assert.ok(missing.json().errors.setup_code);
    const wrong = await postSetup(input({ setup_code: newSetupCode() }));
    assert.equal(wrong.statusCode, 403, wrong.body);
    assert.equal(wrong.json().code, 'forbidden');
    assert.equal(wrong.headers['set-cookie'], undefined);
    assert.equal(await userCount(), 0);
    assert.ok(existsSync(join(t.config.dataDir, SETUP_CODE_FILE)), 'a wrong code leaves the code in place');
  });

  test('a short password and a blank workspace name are field errors', async () => {
    const response = await postSetup(input({ password: 'short', workspace_name: '  ' }));
    assert.equal(response.statusCode, 422, response.body);
    assert.deepEqual(Object.keys(response.json().errors).sort(), ['password', 'workspace_name']);
  });

  test('a setup posted from another site is refused', async () => {
    const response = await postSetup(input(), { headers: { origin: 'https://evil.example' } });
    assert.equal(response.statusCode, 403, response.body);
    assert.equal(await userCount(), 0);
  });

  test(`attempts are limited to ${LOGIN_ATTEMPTS_PER_MINUTE} a minute per address: the next is a 429 with Retry-After`, async () => {
    const ip = nextAddress();
    for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE; i += 1) {
      const response = await postSetup(input({ setup_code: newSetupCode() }), { ip });
      assert.equal(response.statusCode, 403, `attempt ${i + 1}`);
    }
    const limited = await postSetup(input(), { ip });
    assert.equal(limited.statusCode, 429, limited.body);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(await userCount(), 0, 'the right code is not even checked over the limit');
  });

  test('the right code (any case, spaces) creates the owner and workspace like bootstrap, signs in, and deletes the code', async () => {
    const typed = ` ${code.toLowerCase().replace(/-/g, ' ')} `;
    const response = await postSetup(input({ setup_code: typed }));
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const data = response.json().data;
    assert.equal(data.user.email, 'first@example.com');
    assert.equal(data.user.role, 'admin', 'the first user is a platform admin');
    assert.equal(data.workspace.name, 'First shop');
    const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE);
    assert.ok(cookie?.value);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.path, '/api/v1/admin');

    const membership = await t.database.db
      .selectFrom('memberships')
      .select('role')
      .where('user_id', '=', data.user.id)
      .where('workspace_id', '=', data.workspace.id)
      .executeTakeFirstOrThrow();
    assert.equal(membership.role, 'owner');
    const tokens = await t.database.db
      .selectFrom('api_tokens')
      .select('id')
      .where('workspace_id', '=', data.workspace.id)
      .execute();
    assert.equal(tokens.length, 0, 'the console signs in; no API token is left lying around');
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .select(['actor_type', 'metadata'])
      .where('workspace_id', '=', data.workspace.id)
      .where('action', '=', 'workspace.bootstrapped')
      .executeTakeFirstOrThrow();
    assert.equal(audit.actor_type, 'system');
    assert.equal((audit.metadata as Record<string, unknown>).via, 'setup');
    assert.equal(existsSync(join(t.config.dataDir, SETUP_CODE_FILE)), false, 'the code is deleted after use');

    // The session works like one from sign-in: reads, and writes with the CSRF token.
    const headers = { cookie: `${SESSION_COOKIE}=${cookie.value}` };
    const session = await t.app.inject({ method: 'GET', url: '/api/v1/admin/session', headers });
    assert.equal(session.statusCode, 200, session.body);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/agents',
      headers: { ...headers, 'x-csrf-token': data.csrf_token, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Helper' }),
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  test('once a user exists: GET says no setup, POST is a 409 even with a once-valid code', async () => {
    const status = await t.app.inject({ method: 'GET', url: '/api/v1/admin/setup' });
    assert.deepEqual(status.json(), { data: { needs_setup: false } });
    const again = await postSetup(input({ email: 'second@example.com' }));
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json().code, 'conflict');
    assert.equal(await userCount(), 1);
  });

  test('the CLI bootstrap keeps working after a console setup', async () => {
    const tenant = await seedTenant(t, 'Second workspace');
    assert.match(tenant.admin_token, /^svc_/);
    const agents = await t.app.inject({ method: 'GET', url: '/api/v1/admin/agents', headers: tenant.auth });
    assert.equal(agents.statusCode, 200);
  });
});

describe('first-run setup: two setups at once make one first user', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('one answers 201, the other 409', async () => {
    const code = await ensureSetupCode(t.config.dataDir);
    const post = (email: string, ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/admin/setup',
        remoteAddress: ip,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ setup_code: code, email, password: PASSWORD, workspace_name: email }),
      });
    const answers = await Promise.all([post('a@example.com', '10.2.0.1'), post('b@example.com', '10.2.0.2')]);
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [201, 409]);
    assert.equal((await t.database.db.selectFrom('users').select('id').execute()).length, 1);
  });
});
