import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sha256Hex } from '../src/security/hashing.js';
import { newId } from '../src/security/ids.js';
import { createUser } from '../src/services/accounts/accounts.js';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS } from '../src/services/accounts/admin-sessions.js';
import { postSignIn, senderFor } from './support/admin-session.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery';
const START = new Date('2026-11-22T10:00:00.000Z');

describe('admin sessions: password sign-in, HttpOnly cookie and CSRF header', () => {
  let t: TestApp;
  let clock = START;
  let tenant: Tenant;
  let other: Tenant;
  /** Each test signs in from its own address: the limit counts attempts per email and address. */
  let address = 0;

  before(async () => {
    t = await createTestApp({ clock: { now: () => clock } });
    tenant = await seedTenant(t, 'Sessions');
    other = await seedTenant(t, 'Other sessions');
  });
  after(() => t.close());

  function nextAddress(): string {
    address += 1;
    return `10.0.0.${address}`;
  }

  function signIn(
    body: unknown,
    options: { ip?: string; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    return postSignIn(t.app, body, options.ip ?? nextAddress(), options.headers);
  }

  /** Signs `who` in and returns the cookie header and CSRF token to send. */
  async function session(who: Tenant = tenant): Promise<{ cookie: string; csrf: string; secret: string }> {
    const response = await signIn({ email: who.user.email, password: PASSWORD });
    assert.equal(response.statusCode, 200, response.body);
    const secret = response.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? '';
    return { cookie: `${SESSION_COOKIE}=${secret}`, csrf: response.json().data.csrf_token, secret };
  }

  const call = senderFor(() => t.app);

  /** Creates an agent through the admin API in a session, with its CSRF token; asserts the 201. */
  async function createAgentIn(s: { cookie: string; csrf: string }, name: string) {
    const created = await call(
      'POST',
      '/api/v1/admin/agents',
      { cookie: s.cookie, 'x-csrf-token': s.csrf },
      { name },
    );
    assert.equal(created.statusCode, 201, created.body);
    return created;
  }

  async function agentCount(workspaceId: string): Promise<number> {
    const rows = await t.database.db
      .selectFrom('agents')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .execute();
    return rows.length;
  }

  test('signing in sets an HttpOnly SameSite=Strict cookie for the admin API only, and answers the CSRF token', async () => {
    const response = await signIn({ email: tenant.user.email.toUpperCase(), password: PASSWORD });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const data = response.json().data;
    assert.equal(data.user.id, tenant.user.id);
    assert.equal(data.workspace.id, tenant.workspace.id);
    assert.match(data.csrf_token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(data.expires_at, new Date(START.getTime() + SESSION_LIFETIME_SECONDS * 1000).toISOString());
    assert.equal('password_hash' in data.user, false);

    const header = String(response.headers['set-cookie']);
    assert.match(header, new RegExp(`^${SESSION_COOKIE}=sas_[A-Za-z0-9_-]{43};`));
    assert.match(header, /; HttpOnly/);
    assert.match(header, /; SameSite=Strict/);
    assert.match(header, /; Path=\/api\/v1\/admin(;|$)/);
    assert.match(header, new RegExp(`; Max-Age=${SESSION_LIFETIME_SECONDS}`));
    assert.doesNotMatch(header, /Secure/, 'plain HTTP here: a Secure cookie would never come back');

    // Only the secret's hash is stored.
    const secret = response.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? '';
    const rows = await t.database.db
      .selectFrom('admin_sessions')
      .selectAll()
      .where('user_id', '=', tenant.user.id)
      .execute();
    assert.ok(rows.some((row) => row.secret_hash === sha256Hex(secret)));
    assert.ok(rows.every((row) => !JSON.stringify(row).includes(secret)));
  });

  test('a session reads freely; a change needs its X-CSRF-Token, and without it nothing changes', async () => {
    const mine = await session();
    const theirs = await session(other);
    const before = await agentCount(tenant.workspace.id);

    const list = await call('GET', '/api/v1/admin/agents', { cookie: mine.cookie });
    assert.equal(list.statusCode, 200, list.body);

    const attempts: Array<Record<string, string>> = [
      {},
      { 'x-csrf-token': theirs.csrf },
      { 'x-csrf-token': `${mine.csrf}x` },
      { 'x-csrf-token': '' },
    ];
    for (const headers of attempts) {
      const refused = await call(
        'POST',
        '/api/v1/admin/agents',
        { cookie: mine.cookie, ...headers },
        { name: 'CSRF' },
      );
      assert.equal(refused.statusCode, 403, JSON.stringify(headers));
      assert.match(refused.json().message, /CSRF/);
    }
    assert.equal(await agentCount(tenant.workspace.id), before, 'a refused request created nothing');

    const created = await createAgentIn(mine, 'Made in a session');
    assert.equal(await agentCount(tenant.workspace.id), before + 1);
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .select(['actor_type', 'actor_id'])
      .where('workspace_id', '=', tenant.workspace.id)
      .where('action', '=', 'agent.created')
      .where('target_id', '=', created.json().data.id)
      .executeTakeFirst();
    assert.deepEqual(audit && { ...audit }, { actor_type: 'user', actor_id: tenant.user.id });

    const me = await call('GET', '/api/v1/admin/me', { cookie: mine.cookie });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().data.user.id, tenant.user.id);
    assert.equal(me.json().data.token, null);
  });

  test("a session works in its own workspace only: another workspace's agent is a 404", async () => {
    const created = await createAgentIn(await session(other), 'Theirs');
    const mine = await session();
    const peek = await call('GET', `/api/v1/admin/agents/${created.json().data.id}`, { cookie: mine.cookie });
    assert.equal(peek.statusCode, 404);
  });

  test('a wrong password and an unknown email get the same bare 401 and no cookie', async () => {
    const wrong = await signIn({ email: tenant.user.email, password: 'not the password' });
    const unknown = await signIn({ email: 'nobody@example.com', password: PASSWORD });
    for (const response of [wrong, unknown]) {
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), { message: 'Unauthenticated.', code: 'unauthenticated', errors: {} });
      assert.equal(response.headers['set-cookie'], undefined);
    }
  });

  test('a password longer than bcrypt reads never matches on its first 72 bytes', async () => {
    const email = `long-${newId().toLowerCase()}@example.com`;
    const password = 'p'.repeat(72);
    const user = await createUser(
      t.database.db,
      { email, password, bcryptCost: 4 },
      { role: 'user', defaultWorkspaceId: tenant.workspace.id },
    );
    await t.database.db
      .insertInto('memberships')
      .values({ workspace_id: tenant.workspace.id, user_id: user.id, role: 'owner' })
      .execute();
    assert.equal((await signIn({ email, password: `${password}extra` })).statusCode, 401);
    assert.equal((await signIn({ email, password })).statusCode, 200);
  });

  test('five attempts a minute per email and address: the sixth is 429, even with the right password', async () => {
    const ip = nextAddress();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const response = await signIn({ email: other.user.email, password: 'wrong' }, { ip });
      assert.equal(response.statusCode, 401, `attempt ${attempt}`);
    }
    const sixth = await signIn({ email: other.user.email, password: PASSWORD }, { ip });
    assert.equal(sixth.statusCode, 429);
    assert.ok(Number(sixth.headers['retry-after']) >= 1);
    assert.equal(sixth.headers['set-cookie'], undefined);
    // The same email from another address, and another email from this one, are not held up.
    assert.equal((await signIn({ email: other.user.email, password: PASSWORD })).statusCode, 200);
    assert.equal((await signIn({ email: tenant.user.email, password: PASSWORD }, { ip })).statusCode, 200);
  });

  test('signing out needs the CSRF token, ends the session and clears the cookie', async () => {
    const mine = await session();
    const refused = await call('DELETE', '/api/v1/admin/session', { cookie: mine.cookie });
    assert.equal(refused.statusCode, 403);
    assert.equal((await call('GET', '/api/v1/admin/session', { cookie: mine.cookie })).statusCode, 200);

    const out = await call('DELETE', '/api/v1/admin/session', {
      cookie: mine.cookie,
      'x-csrf-token': mine.csrf,
    });
    assert.equal(out.statusCode, 204);
    assert.match(
      String(out.headers['set-cookie']),
      new RegExp(`^${SESSION_COOKIE}=;.*Expires=Thu, 01 Jan 1970`),
    );
    assert.equal((await call('GET', '/api/v1/admin/session', { cookie: mine.cookie })).statusCode, 401);
    assert.equal((await call('GET', '/api/v1/admin/agents', { cookie: mine.cookie })).statusCode, 401);
    const stored = await t.database.db
      .selectFrom('admin_sessions')
      .select('id')
      .where('secret_hash', '=', sha256Hex(mine.secret))
      .execute();
    assert.equal(stored.length, 0);
  });

  test('GET /session answers the same CSRF token as sign-in, for a page that reloads', async () => {
    const mine = await session();
    const read = await call('GET', '/api/v1/admin/session', { cookie: mine.cookie });
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.json().data.csrf_token, mine.csrf);
    assert.equal((await call('GET', '/api/v1/admin/session', {})).statusCode, 401);
  });

  test('an expired session, a tampered cookie or a removed membership is a 401', async () => {
    const mine = await session();
    const tampered = `${mine.cookie.slice(0, -1)}${mine.cookie.endsWith('A') ? 'B' : 'A'}`;
    for (const cookie of [
      tampered,
      `${SESSION_COOKIE}=`,
      `${SESSION_COOKIE}=sas_short`,
      `${SESSION_COOKIE}=${'x'.repeat(4000)}`,
    ]) {
      const response = await call('GET', '/api/v1/admin/agents', { cookie });
      assert.equal(response.statusCode, 401, cookie.slice(0, 60));
    }
    clock = new Date(START.getTime() + SESSION_LIFETIME_SECONDS * 1000 - 1000);
    assert.equal((await call('GET', '/api/v1/admin/agents', { cookie: mine.cookie })).statusCode, 200);
    clock = new Date(START.getTime() + SESSION_LIFETIME_SECONDS * 1000 + 1000);
    assert.equal((await call('GET', '/api/v1/admin/agents', { cookie: mine.cookie })).statusCode, 401);
    // Signing in again clears the user's ended sessions from the table.
    await session();
    const left = await t.database.db
      .selectFrom('admin_sessions')
      .select('id')
      .where('user_id', '=', tenant.user.id)
      .where('expires_at', '<=', clock)
      .execute();
    assert.equal(left.length, 0);
    clock = START;

    const member = await session(other);
    await t.database.db
      .deleteFrom('memberships')
      .where('user_id', '=', other.user.id)
      .where('workspace_id', '=', other.workspace.id)
      .execute();
    assert.equal((await call('GET', '/api/v1/admin/agents', { cookie: member.cookie })).statusCode, 401);
    await t.database.db
      .insertInto('memberships')
      .values({ workspace_id: other.workspace.id, user_id: other.user.id, role: 'owner' })
      .execute();
  });

  test('a viewer can sign in and read, but changing something is 403 for them', async () => {
    const email = `viewer-${newId().toLowerCase()}@example.com`;
    const viewer = await createUser(
      t.database.db,
      { email, password: PASSWORD, bcryptCost: 4 },
      { role: 'user', defaultWorkspaceId: tenant.workspace.id },
    );
    await t.database.db
      .insertInto('memberships')
      .values({ workspace_id: tenant.workspace.id, user_id: viewer.id, role: 'viewer' })
      .execute();
    const response = await signIn({ email, password: PASSWORD });
    assert.equal(response.statusCode, 200, response.body);
    const secret = response.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? '';
    const cookie = `${SESSION_COOKIE}=${secret}`;
    assert.equal(response.json().data.role, 'viewer');
    const list = await call('GET', '/api/v1/admin/agents', { cookie });
    assert.equal(list.statusCode, 200, list.body);
    const tokens = await call('GET', '/api/v1/admin/tokens', { cookie });
    assert.equal(tokens.statusCode, 403);
    assert.equal(tokens.json().code, 'forbidden');
  });

  test('a bearer token wins over a cookie, and a bad token is not rescued by a good cookie', async () => {
    const theirs = await session(other);
    const withToken = await call('GET', '/api/v1/admin/me', { cookie: theirs.cookie, ...tenant.auth });
    assert.equal(withToken.json().data.workspace.id, tenant.workspace.id);
    const badToken = await call('GET', '/api/v1/admin/me', {
      cookie: theirs.cookie,
      authorization: 'Bearer svc_nope',
    });
    assert.equal(badToken.statusCode, 401);
  });

  test("a sign-in posted from another site's page is 403; this service's own origin passes", async () => {
    const foreign = await signIn(
      { email: tenant.user.email, password: PASSWORD },
      { headers: { origin: 'https://evil.example' } },
    );
    assert.equal(foreign.statusCode, 403);
    assert.equal(foreign.headers['set-cookie'], undefined);
    const own = await signIn(
      { email: tenant.user.email, password: PASSWORD },
      { headers: { origin: 'http://localhost:80', host: 'localhost:80' } },
    );
    assert.equal(own.statusCode, 200, own.body);
    // No CORS on the admin API: another site's script can never read the CSRF token.
    const mine = await session();
    const read = await call('GET', '/api/v1/admin/session', {
      cookie: mine.cookie,
      origin: 'https://evil.example',
    });
    assert.equal(read.headers['access-control-allow-origin'], undefined);
    assert.equal(read.headers['access-control-allow-credentials'], undefined);
  });

  test('bad sign-in bodies are 422 and open nothing', async () => {
    for (const body of [
      {},
      { email: tenant.user.email },
      { email: '', password: PASSWORD },
      { email: tenant.user.email, password: PASSWORD, role: 'admin' },
      'text',
    ]) {
      const response = await signIn(body);
      assert.equal(response.statusCode, 422, JSON.stringify(body));
      assert.equal(response.headers['set-cookie'], undefined);
    }
  });
});
