import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SESSION_COOKIE } from '../src/services/accounts/admin-sessions.js';
import { postSignIn, senderFor } from './support/admin-session.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery';

type Session = { cookie: string; csrf: string };

/** A user in several workspaces lists them and moves the session between them; tokens stay put. */
describe('admin account workspaces: list and switch', () => {
  let t: TestApp;
  let home: Tenant;
  let second: Tenant;
  let viewerOnly: Tenant;
  let foreign: Tenant;
  let address = 0;
  const call = senderFor(() => t.app);

  before(async () => {
    t = await createTestApp();
    home = await seedTenant(t, 'Alpha home');
    second = await seedTenant(t, 'Beta second');
    viewerOnly = await seedTenant(t, 'Gamma viewer');
    foreign = await seedTenant(t, 'Delta foreign');
    await t.database.db
      .insertInto('memberships')
      .values([
        { workspace_id: second.workspace.id, user_id: home.user.id, role: 'admin' },
        { workspace_id: viewerOnly.workspace.id, user_id: home.user.id, role: 'viewer' },
      ])
      .execute();
    for (const [tenant, name] of [
      [home, 'Home agent'],
      [second, 'Second agent'],
      [foreign, 'Foreign agent'],
    ] as const) {
      const res = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name }, tenant.auth);
      assert.equal(res.statusCode, 201, res.body);
    }
  });
  after(() => t.close());

  async function signIn(): Promise<Session> {
    address += 1;
    const res = await postSignIn(t.app, { email: home.user.email, password: PASSWORD }, `10.1.0.${address}`);
    assert.equal(res.statusCode, 200, res.body);
    const secret = res.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? '';
    return { cookie: `${SESSION_COOKIE}=${secret}`, csrf: res.json().data.csrf_token };
  }

  const headers = (s: Session) => ({ cookie: s.cookie, 'x-csrf-token': s.csrf });
  const switchTo = (h: Record<string, string>, body: unknown) =>
    call('POST', '/api/v1/admin/account/workspace', h, body);

  async function agentNames(h: Record<string, string>): Promise<string[]> {
    const res = await call('GET', '/api/v1/admin/agents', h);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.map((agent: { name: string }) => agent.name);
  }

  async function state() {
    const user = await t.database.db
      .selectFrom('users')
      .select('default_workspace_id')
      .where('id', '=', home.user.id)
      .executeTakeFirstOrThrow();
    const sessions = await t.database.db
      .selectFrom('admin_sessions')
      .select(['id', 'workspace_id'])
      .where('user_id', '=', home.user.id)
      .orderBy('id')
      .execute();
    const audits = await t.database.db
      .selectFrom('audit_logs')
      .select(['workspace_id', 'metadata'])
      .where('action', '=', 'session.workspace_switched')
      .execute();
    return { user, sessions, audits };
  }

  test('the list shows every membership with its role, marking the current one', async () => {
    const s = await signIn();
    const res = await call('GET', '/api/v1/admin/account/workspaces', s);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().data.map((w: Record<string, unknown>) => [w.name, w.role, w.current, w.can_switch]),
      [
        ['Alpha home', 'owner', true, true],
        ['Beta second', 'admin', false, true],
        ['Gamma viewer', 'viewer', false, true],
      ],
    );
    // A token a user made lists that user's workspaces, current = the token's.
    const byToken = await call('GET', '/api/v1/admin/account/workspaces', home.auth);
    assert.equal(byToken.statusCode, 200);
    assert.equal(byToken.json().data.length, 3);
  });

  test('refused switches change nothing: not a member (404), no CSRF, a bad body', async () => {
    const s = await signIn();
    const before = await state();
    const notMember = await switchTo(headers(s), { workspace_id: foreign.workspace.id });
    assert.equal(notMember.statusCode, 404, notMember.body);
    assert.equal(
      (await switchTo(headers(s), { workspace_id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' })).statusCode,
      404,
    );
    const noCsrf = await switchTo({ cookie: s.cookie }, { workspace_id: second.workspace.id });
    assert.equal(noCsrf.statusCode, 403);
    for (const body of [
      {},
      { workspace_id: '' },
      { workspace_id: second.workspace.id, role: 'owner' },
      { workspace_id: 7 },
    ]) {
      const bad = await switchTo(headers(s), body);
      assert.equal(bad.statusCode, 422, JSON.stringify(body));
    }
    assert.deepEqual(await state(), before);
    assert.deepEqual(await agentNames(s), ['Home agent']);
  });

  test('an API token cannot switch, with or without a session cookie beside it', async () => {
    const s = await signIn();
    const before = await state();
    const byToken = await switchTo(home.auth, { workspace_id: second.workspace.id });
    assert.equal(byToken.statusCode, 403, byToken.body);
    const both = await switchTo({ ...headers(s), ...home.auth }, { workspace_id: second.workspace.id });
    assert.equal(both.statusCode, 403, both.body);
    assert.deepEqual(await state(), before);
    assert.deepEqual(await agentNames(home.auth), ['Home agent']);
  });

  test('switching to a membership moves the session and the default workspace; every list follows', async () => {
    const s = await signIn();
    const other = await signIn();
    const res = await switchTo(headers(s), { workspace_id: second.workspace.id });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.workspace.id, second.workspace.id);
    assert.equal(res.json().data.csrf_token, s.csrf);
    assert.equal(res.json().data.user.default_workspace_id, second.workspace.id);

    assert.deepEqual(await agentNames(s), ['Second agent']);
    for (const path of ['/api/v1/admin/tokens', '/api/v1/admin/kb/articles']) {
      const mine = await call('GET', path, s);
      const theirs = await call('GET', path, second.auth);
      assert.deepEqual(mine.json().data, theirs.json().data, path);
    }
    const me = await call('GET', '/api/v1/admin/me', s);
    assert.equal(me.json().data.workspace.id, second.workspace.id);
    const session = await call('GET', '/api/v1/admin/session', s);
    assert.equal(session.json().data.workspace.id, second.workspace.id);
    // The user's other session and the user's token stay where they were.
    assert.deepEqual(await agentNames(other), ['Home agent']);
    assert.deepEqual(await agentNames(home.auth), ['Home agent']);

    const after = await state();
    assert.equal(after.user.default_workspace_id, second.workspace.id);
    assert.deepEqual(
      after.audits.map((a) => a.workspace_id).sort(),
      [home.workspace.id, second.workspace.id].sort(),
    );
    // Switching again to where the session is writes nothing; the next sign-in lands here.
    assert.equal((await switchTo(headers(s), { workspace_id: second.workspace.id })).statusCode, 200);
    assert.equal((await state()).audits.length, 2);
    assert.deepEqual(await agentNames(await signIn()), ['Second agent']);
    // And back home.
    assert.equal((await switchTo(headers(s), { workspace_id: home.workspace.id })).statusCode, 200);
    assert.deepEqual(await agentNames(s), ['Home agent']);
  });
});
