import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZUser, ZWorkspace } from '@service/contract';
import { z } from 'zod';
import { bearer, expectData, expectError, expectValidation, tokenIdOf } from './support/http.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

const ME = '/api/v1/admin/me';
const ZMe = z.strictObject({
  user: ZUser.strict().nullable(),
  workspace: ZWorkspace.strict(),
  token: z.strictObject({ id: z.string(), abilities: z.array(z.string()) }),
});

describe('admin API: me', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;

  const userRow = (id: string) =>
    t.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const auditCount = async () => (await t.database.db.selectFrom('audit_logs').select('id').execute()).length;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Me');
    other = await seedTenant(t, 'Other Me');
  });
  after(() => t.close());

  test('GET /me returns the user, the workspace and the token, never the password hash', async () => {
    const res = await t.app.inject({ url: ME, headers: acme.auth });
    const me = expectData(res, 200, ZMe);
    assert.ok(me.user);
    assert.equal(me.user.id, acme.user.id);
    assert.equal(me.user.email, acme.user.email);
    assert.equal(me.user.role, 'admin', 'the first user of the installation is a platform admin');
    assert.equal(me.user.byok_enabled, false);
    assert.equal(me.user.default_workspace_id, acme.workspace.id);
    assert.deepEqual(me.workspace, acme.workspace);
    assert.deepEqual(me.token, { id: await tokenIdOf(t, acme.admin_token), abilities: ['admin'] });
    assert.doesNotMatch(res.body, /password|\$2[aby]\$/);

    const second = expectData(await t.app.inject({ url: ME, headers: other.auth }), 200, ZMe);
    assert.equal(second.user?.role, 'user');
    assert.deepEqual(second.workspace, other.workspace);
  });

  test('a token made by the CLI acts for no user: GET /me has user null, PATCH /me is 403', async () => {
    const cli = await issueToken(t, acme, ['admin']);
    const me = expectData(await t.app.inject({ url: ME, headers: bearer(cli.token) }), 200, ZMe);
    assert.equal(me.user, null);
    assert.equal(me.workspace.id, acme.workspace.id);
    const before = await auditCount();
    expectError(await injectJson(t.app, 'PATCH', ME, { name: 'Ghost' }, bearer(cli.token)), 403, 'forbidden');
    assert.equal(await auditCount(), before);
  });

  test('PATCH /me updates the name and trims it', async () => {
    const user = expectData(await injectJson(t.app, 'PATCH', ME, { name: '  Ada  ' }, acme.auth), 200, ZUser);
    assert.equal(user.name, 'Ada');
    const row = await userRow(acme.user.id);
    assert.equal(row.name, 'Ada');
    assert.equal(row.role, 'admin');
    assert.equal(row.default_workspace_id, acme.workspace.id);
  });

  test('PATCH /me updates the email', async () => {
    const email = `renamed-${acme.user.id.toLowerCase()}@example.com`;
    const user = expectData(await injectJson(t.app, 'PATCH', ME, { email }, acme.auth), 200, ZUser);
    assert.equal(user.email, email);
    assert.equal((await userRow(acme.user.id)).email, email);
  });

  const privileged: Array<[string, Record<string, unknown>, string]> = [
    ['role', { role: 'admin' }, 'role'],
    ['byok_enabled', { byok_enabled: true }, 'byok_enabled'],
    ['default_workspace_id', { default_workspace_id: 'WS' }, 'default_workspace_id'],
    ['role with a valid name', { name: 'Mallory', role: 'admin' }, 'role'],
    ['byok_enabled with a valid name', { name: 'Mallory', byok_enabled: true }, 'byok_enabled'],
    [
      'default_workspace_id with a valid name',
      { name: 'Mallory', default_workspace_id: 'WS' },
      'default_workspace_id',
    ],
    ['password_hash', { password_hash: 'x' }, 'password_hash'],
    ['id', { id: 'someone-else' }, 'id'],
    ['an invalid email', { email: 'not-an-email' }, 'email'],
  ];
  for (const [label, body, field] of privileged) {
    test(`PATCH /me rejects ${label} with errors.${field}; the user row is unchanged`, async () => {
      // The second user is a plain user: a role or BYOK change would be an escalation.
      const before = await userRow(other.user.id);
      const audits = await auditCount();
      const payload =
        'default_workspace_id' in body ? { ...body, default_workspace_id: acme.workspace.id } : body;
      expectValidation(await injectJson(t.app, 'PATCH', ME, payload, other.auth), [field]);
      assert.deepEqual(await userRow(other.user.id), before);
      assert.equal(await auditCount(), audits);
    });
  }

  test('PATCH /me rejects all privileged fields at once, naming each', async () => {
    const before = await userRow(other.user.id);
    expectValidation(
      await injectJson(
        t.app,
        'PATCH',
        ME,
        { name: 'Mallory', role: 'admin', byok_enabled: true, default_workspace_id: acme.workspace.id },
        other.auth,
      ),
      ['role', 'byok_enabled', 'default_workspace_id'],
    );
    assert.deepEqual(await userRow(other.user.id), before);
  });

  test("PATCH /me refuses another user's email, in any case", async () => {
    const before = await userRow(other.user.id);
    const taken = (await userRow(acme.user.id)).email;
    for (const email of [taken, taken.toUpperCase()]) {
      expectValidation(await injectJson(t.app, 'PATCH', ME, { email }, other.auth), ['email']);
    }
    assert.deepEqual(await userRow(other.user.id), before);
  });

  test('a token issued through the API acts for the user who issued it', async () => {
    const res = await injectJson(
      t.app,
      'POST',
      '/api/v1/admin/tokens',
      { name: 'Delegate', abilities: ['admin'] },
      other.auth,
    );
    assert.equal(res.statusCode, 201, res.body);
    const token = z.object({ data: z.object({ token: z.string() }) }).parse(res.json()).data.token;
    const me = expectData(await t.app.inject({ url: ME, headers: bearer(token) }), 200, ZMe);
    assert.equal(me.user?.id, other.user.id);
    const user = expectData(
      await injectJson(t.app, 'PATCH', ME, { name: 'Via delegate' }, bearer(token)),
      200,
      ZUser,
    );
    assert.equal(user.id, other.user.id);
    assert.equal((await userRow(other.user.id)).name, 'Via delegate');
  });
});
