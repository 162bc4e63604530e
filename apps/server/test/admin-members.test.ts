import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ADMIN_PREFIX } from '../src/surfaces/admin/index.js';
import { expectError } from './support/http.js';
import { addMember, signedInMember, signInMember } from './support/members.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';

describe(`members: list, role change, removal, leaving (${TEST_ENGINE})`, () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  function call(
    method: 'GET' | 'PATCH' | 'DELETE' | 'POST',
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<LightMyRequestResponse> {
    return t.app.inject({
      method,
      url: `${ADMIN_PREFIX}${path}`,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  }

  async function membership(tenant: Tenant, userId: string) {
    return (
      (
        await t.database.db
          .selectFrom('memberships')
          .select('role')
          .where('workspace_id', '=', tenant.workspace.id)
          .where('user_id', '=', userId)
          .executeTakeFirst()
      )?.role ?? null
    );
  }

  async function audits(tenant: Tenant, action: string) {
    return t.database.db
      .selectFrom('audit_logs')
      .select(['actor_type', 'actor_id', 'target_id', 'metadata'])
      .where('workspace_id', '=', tenant.workspace.id)
      .where('action', '=', action)
      .orderBy('id')
      .execute();
  }

  test('the list shows every member with email, name, role and joined time; editors may not list', async () => {
    const tenant = await seedTenant(t, 'Members list');
    const editor = await signedInMember(t, tenant, 'editor');
    const res = await call('GET', '/members', tenant.auth);
    assert.equal(res.statusCode, 200, res.body);
    const rows = res.json().data as Array<Record<string, unknown>>;
    assert.deepEqual(
      rows.map((m) => [m.user_id, m.email, m.role]),
      [
        [tenant.user.id, tenant.user.email, 'owner'],
        [editor.userId, editor.email, 'editor'],
      ],
    );
    assert.equal(rows[1]?.name, 'A editor');
    assert.match(String(rows[0]?.joined_at), /^\d{4}-\d\d-\d\dT/);
    expectError(await call('GET', '/members', editor.headers), 403, 'forbidden');
  });

  test('an admin changes roles below owner; the change is audited with the old and new role', async () => {
    const tenant = await seedTenant(t, 'Members roles');
    const admin = await signedInMember(t, tenant, 'admin');
    const { userId } = await addMember(t, tenant, 'viewer');
    const res = await call('PATCH', `/members/${userId}`, admin.headers, { role: 'editor' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.role, 'editor');
    assert.equal(await membership(tenant, userId), 'editor');
    const [record] = await audits(tenant, 'member.role_changed');
    assert.deepEqual(record, {
      actor_type: 'user',
      actor_id: admin.userId,
      target_id: userId,
      metadata: { old_role: 'viewer', new_role: 'editor', revoked_token_ids: [] },
    });
  });

  test('only an owner makes, demotes or removes owners; refused changes change nothing', async () => {
    const tenant = await seedTenant(t, 'Members owners');
    const admin = await signedInMember(t, tenant, 'admin');
    const { userId: viewerId } = await addMember(t, tenant, 'viewer');
    for (const [method, path, body] of [
      ['PATCH', `/members/${viewerId}`, { role: 'owner' }],
      ['PATCH', `/members/${admin.userId}`, { role: 'owner' }],
      ['PATCH', `/members/${tenant.user.id}`, { role: 'viewer' }],
      ['DELETE', `/members/${tenant.user.id}`, undefined],
    ] as const) {
      const res = await call(method, path, admin.headers, body);
      const error = expectError(res, 403, 'forbidden');
      assert.match(error.message, /Only an owner/);
    }
    // A token acts as admin: it cannot touch owners either.
    expectError(
      await call('PATCH', `/members/${viewerId}`, tenant.auth, { role: 'owner' }),
      403,
      'forbidden',
    );
    assert.equal(await membership(tenant, viewerId), 'viewer');
    assert.equal(await membership(tenant, tenant.user.id), 'owner');
    assert.equal((await audits(tenant, 'member.role_changed')).length, 0);

    // The owner can make a second owner, who can then demote the first.
    const owner = await signInMember(t, tenant.user.email);
    const promoted = await call('PATCH', `/members/${admin.userId}`, owner, { role: 'owner' });
    assert.equal(promoted.statusCode, 200, promoted.body);
    const demoted = await call('PATCH', `/members/${tenant.user.id}`, admin.headers, { role: 'admin' });
    assert.equal(demoted.statusCode, 200, demoted.body);
    assert.equal(await membership(tenant, tenant.user.id), 'admin');
  });

  test('the last owner can neither be demoted, removed nor leave: 409, nothing changes', async () => {
    const tenant = await seedTenant(t, 'Members last owner');
    const owner = await signInMember(t, tenant.user.email);
    const demote = expectError(
      await call('PATCH', `/members/${tenant.user.id}`, owner, { role: 'admin' }),
      409,
      'conflict',
    );
    assert.match(demote.message, /at least one owner/);
    expectError(await call('DELETE', `/members/${tenant.user.id}`, owner), 409, 'conflict');
    expectError(await call('POST', '/members/leave', owner), 409, 'conflict');
    assert.equal(await membership(tenant, tenant.user.id), 'owner');
    assert.equal((await call('GET', '/me', owner)).statusCode, 200);
  });

  test('removal ends the member’s sessions here and revokes the tokens they made here; audited', async () => {
    const tenant = await seedTenant(t, 'Members removal');
    const other = await seedTenant(t, 'Members removal elsewhere');
    const editor = await signedInMember(t, tenant, 'admin');
    // Their token here, made while admin; and a membership elsewhere to fall back to.
    const made = await call('POST', '/tokens', editor.headers, { name: 'theirs', abilities: ['admin'] });
    assert.equal(made.statusCode, 201, made.body);
    const token = { authorization: `Bearer ${made.json().data.token}` };
    await t.database.db
      .insertInto('memberships')
      .values({ workspace_id: other.workspace.id, user_id: editor.userId, role: 'viewer' })
      .execute();
    assert.equal((await call('GET', '/agents', token)).statusCode, 200);

    const res = await call('DELETE', `/members/${editor.userId}`, tenant.auth);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await membership(tenant, editor.userId), null);
    assert.equal((await call('GET', '/me', editor.headers)).statusCode, 401);
    assert.equal((await call('GET', '/agents', token)).statusCode, 401);
    const user = await t.database.db
      .selectFrom('users')
      .select(['default_workspace_id', 'role', 'byok_enabled'])
      .where('id', '=', editor.userId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(user, { default_workspace_id: other.workspace.id, role: 'user', byok_enabled: false });
    const [record] = await audits(tenant, 'member.removed');
    assert.equal(record?.target_id, editor.userId);
    assert.deepEqual(record?.metadata, {
      old_role: 'admin',
      ended_sessions: 1,
      revoked_token_ids: [made.json().data.id],
    });
    // Removing again: no such member.
    expectError(await call('DELETE', `/members/${editor.userId}`, tenant.auth), 404, 'not_found');
  });

  test('demotion below admin revokes the tokens the member made here', async () => {
    const tenant = await seedTenant(t, 'Members demotion');
    const admin = await signedInMember(t, tenant, 'admin');
    const made = await call('POST', '/tokens', admin.headers, { name: 'theirs', abilities: ['admin'] });
    assert.equal(made.statusCode, 201, made.body);
    const res = await call('PATCH', `/members/${admin.userId}`, tenant.auth, { role: 'editor' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(
      (await call('GET', '/agents', { authorization: `Bearer ${made.json().data.token}` })).statusCode,
      401,
    );
    // Their session stays, with the editor's rights.
    assert.equal((await call('GET', '/agents', admin.headers)).statusCode, 200);
    expectError(await call('GET', '/tokens', admin.headers), 403, 'forbidden');
  });

  test('a member leaves: membership gone, session ended, audited as member.left; a token cannot leave', async () => {
    const tenant = await seedTenant(t, 'Members leaving');
    const viewer = await signedInMember(t, tenant, 'viewer');
    expectError(await call('POST', '/members/leave', tenant.auth), 403, 'forbidden');
    const res = await call('POST', '/members/leave', viewer.headers);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await membership(tenant, viewer.userId), null);
    assert.equal((await call('GET', '/me', viewer.headers)).statusCode, 401);
    const [record] = await audits(tenant, 'member.left');
    assert.equal(record?.actor_id, viewer.userId);
    assert.equal(record?.target_id, viewer.userId);
  });

  test('hostile member updates: privileged fields, unknown roles and bad ids are refused, nothing changes', async () => {
    const tenant = await seedTenant(t, 'Members hostile');
    const { userId } = await addMember(t, tenant, 'viewer');
    const before = await t.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    for (const body of [
      { role: 'editor', byok_enabled: true },
      { role: 'editor', default_workspace_id: 'x' },
      { role: 'superuser' },
      { role: 'admin', user_role: 'admin' },
      { role: ['owner'] },
      {},
      { role: 'Owner' },
    ]) {
      expectError(await call('PATCH', `/members/${userId}`, tenant.auth, body), 422, 'validation_failed');
    }
    expectError(
      await call('PATCH', '/members/01ZZZZZZZZZZZZZZZZZZZZZZZZ', tenant.auth, { role: 'viewer' }),
      404,
    );
    expectError(await call('PATCH', `/members/${'x'.repeat(65)}`, tenant.auth, { role: 'viewer' }), 422);
    const otherTenant = await seedTenant(t, 'Members hostile other');
    // A member of another workspace is not found here.
    expectError(await call('PATCH', `/members/${otherTenant.user.id}`, tenant.auth, { role: 'viewer' }), 404);
    assert.equal(await membership(otherTenant, otherTenant.user.id), 'owner');
    const after = await t.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(after, before);
    assert.equal(await membership(tenant, userId), 'viewer');
  });
});
