import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgent, ZApiTokenCreated, ZAuditLog } from '@service/contract';
import { z } from 'zod';
import { auditRows, expectData, expectError, expectValidation, tokenIdOf } from './support/http.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const AUDIT = '/api/v1/admin/audit-logs';
const ZPage = z.strictObject({
  data: z.array(ZAuditLog.strict()),
  meta: z.strictObject({ next_before: z.string().nullable() }),
});

describe('admin API: audit log', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  let acmeTokenId: string;
  let agentId: string;
  let issuedId: string;

  const page = async (tenant: Tenant, query: string) => {
    const res = await t.app.inject({ url: `${AUDIT}${query}`, headers: tenant.auth });
    assert.equal(res.statusCode, 200, res.body);
    return ZPage.parse(res.json());
  };
  const withId = (id: string) => ({ ...acme.auth, 'x-request-id': id });

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Audit');
    other = await seedTenant(t, 'Other Audit');
    acmeTokenId = await tokenIdOf(t, acme.admin_token);
    // The privileged actions under test, each with a known request id.
    const agent = expectData(
      await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/agents',
        { name: 'Audited' },
        withId('req-agent-create'),
      ),
      201,
      ZAgent,
    );
    agentId = agent.id;
    const patched = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/agents/${agentId}`,
      { name: 'Audited 2', theme: { radius: 3 } },
      withId('req-agent-update'),
    );
    assert.equal(patched.statusCode, 200, patched.body);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/agents/${agentId}`,
      headers: withId('req-agent-delete'),
    });
    assert.equal(deleted.statusCode, 204);
    const issued = expectData(
      await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/tokens',
        { name: 'Plugin', abilities: ['wp:integration'] },
        withId('req-token-create'),
      ),
      201,
      ZApiTokenCreated,
    );
    issuedId = issued.id;
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/tokens/${issuedId}`,
      headers: withId('req-token-revoke'),
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    const profile = await injectJson(t.app, 'PATCH', '/api/v1/admin/me', { name: 'Owner' }, withId('req-me'));
    assert.equal(profile.statusCode, 200, profile.body);
    // Noise in the other workspace, which acme must never see.
    await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Elsewhere' }, other.auth);
  });
  after(() => t.close());

  test('bootstrap records workspace.bootstrapped (actor cli) and the token it issued', async () => {
    const rows = await auditRows(t, acme.workspace.id);
    const boot = rows.find((row) => row.action === 'workspace.bootstrapped');
    assert.ok(boot);
    assert.equal(boot.actor_type, 'cli');
    assert.equal(boot.actor_id, null);
    assert.equal(boot.target_type, 'user');
    assert.equal(boot.target_id, acme.user.id);
    assert.deepEqual(boot.metadata, {
      email: acme.user.email,
      workspace: acme.workspace.slug,
      platform_role: 'admin',
    });
    const created = rows.find((row) => row.action === 'token.created' && row.target_id === acmeTokenId);
    assert.ok(created, 'the bootstrap admin token is audited');
    assert.equal(created.actor_type, 'cli');
  });

  test('each privileged admin action wrote one row: actor token, target, metadata, request id', async () => {
    const rows = (await auditRows(t, acme.workspace.id)).filter((row) => row.actor_type === 'token');
    const expected: Array<[string, string, string, Record<string, unknown>, string]> = [
      ['agent.created', 'agent', agentId, { name: 'Audited' }, 'req-agent-create'],
      ['agent.updated', 'agent', agentId, { fields: ['name', 'theme'] }, 'req-agent-update'],
      ['agent.deleted', 'agent', agentId, { name: 'Audited 2' }, 'req-agent-delete'],
      [
        'token.created',
        'api_token',
        issuedId,
        { name: 'Plugin', abilities: ['wp:integration'] },
        'req-token-create',
      ],
      ['token.revoked', 'api_token', issuedId, { name: 'Plugin' }, 'req-token-revoke'],
      ['user.profile_updated', 'user', acme.user.id, { fields: ['name'] }, 'req-me'],
    ];
    assert.deepEqual(
      rows.map((row) => row.action),
      expected.map(([action]) => action),
    );
    expected.forEach(([action, targetType, targetId, metadata, requestId], index) => {
      const row = rows[index];
      assert.ok(row);
      assert.equal(row.actor_id, acmeTokenId, action);
      assert.equal(row.target_type, targetType, action);
      assert.equal(row.target_id, targetId, action);
      assert.deepEqual(row.metadata, metadata, action);
      assert.equal(row.request_id, requestId, action);
    });
  });

  test('GET /audit-logs lists only the caller workspace, newest first', async () => {
    const all = await page(acme, '?limit=200');
    const stored = await auditRows(t, acme.workspace.id);
    assert.deepEqual(
      all.data.map((entry) => entry.id),
      stored.map((row) => row.id).reverse(),
    );
    assert.equal(all.data[0]?.action, 'user.profile_updated');
    assert.equal(all.data.at(-1)?.action, 'workspace.bootstrapped');
    assert.equal(all.meta.next_before, null);
    const otherIds = new Set((await auditRows(t, other.workspace.id)).map((row) => row.id));
    assert.ok(otherIds.size > 0);
    assert.ok(all.data.every((entry) => !otherIds.has(entry.id)));
    const theirs = await page(other, '');
    assert.ok(theirs.data.every((entry) => otherIds.has(entry.id)));
    assert.ok(!theirs.data.some((entry) => entry.target_id === agentId));
  });

  test('pages with limit and before until next_before is null', async () => {
    const all = (await page(acme, '?limit=200')).data.map((entry) => entry.id);
    assert.equal(all.length, 8);
    const seen: string[] = [];
    let query = '?limit=3';
    for (let guard = 0; guard < 10; guard += 1) {
      const result = await page(acme, query);
      assert.ok(result.data.length <= 3);
      seen.push(...result.data.map((entry) => entry.id));
      if (result.meta.next_before === null) break;
      assert.equal(result.meta.next_before, result.data.at(-1)?.id);
      query = `?limit=3&before=${encodeURIComponent(result.meta.next_before)}`;
    }
    assert.deepEqual(seen, all);
    const exact = await page(acme, '?limit=8');
    assert.equal(exact.data.length, 8);
    assert.equal(exact.meta.next_before, null, 'no further page when exactly limit rows exist');
  });

  test('filters by action', async () => {
    const result = await page(acme, '?action=token.created');
    assert.deepEqual(
      result.data.map((entry) => entry.target_id),
      [issuedId, acmeTokenId],
    );
    assert.deepEqual((await page(acme, '?action=no.such.action')).data, []);
  });

  test('rejects bad paging parameters with 422', async () => {
    for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?limit=1.5', `?before=${'x'.repeat(65)}`]) {
      const field = query.startsWith('?before') ? 'before' : 'limit';
      expectValidation(await t.app.inject({ url: `${AUDIT}${query}`, headers: acme.auth }), [field]);
    }
  });

  test('failed actions write no audit row', async () => {
    const count = async () => (await t.database.db.selectFrom('audit_logs').select('id').execute()).length;
    const before = await count();
    const theirAgent = expectData(
      await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Theirs' }, other.auth),
      201,
      ZAgent,
    );
    const afterSetup = await count();
    assert.equal(afterSetup, before + 1);
    expectValidation(await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: '' }, acme.auth), [
      'name',
    ]);
    expectValidation(
      await injectJson(t.app, 'PATCH', `/api/v1/admin/agents/${theirAgent.id}`, { name: '' }, other.auth),
      ['name'],
    );
    const path = `/api/v1/admin/agents/${theirAgent.id}`;
    expectError(await injectJson(t.app, 'PATCH', path, { name: 'x' }, acme.auth), 404);
    expectError(await t.app.inject({ method: 'DELETE', url: path, headers: acme.auth }), 404);
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/admin/tokens/${issuedId}`, headers: other.auth }),
      404,
    );
    expectValidation(
      await injectJson(t.app, 'POST', '/api/v1/admin/tokens', { name: 'x', abilities: [] }, acme.auth),
      ['abilities'],
    );
    expectValidation(await injectJson(t.app, 'PATCH', '/api/v1/admin/me', { role: 'admin' }, other.auth), [
      'role',
    ]);
    expectValidation(
      await injectJson(t.app, 'PATCH', '/api/v1/admin/me', { email: acme.user.email }, other.auth),
      ['email'],
    );
    // Re-revoking an already revoked token succeeds but is not a new privileged action.
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/tokens/${issuedId}`,
      headers: acme.auth,
    });
    assert.equal(again.statusCode, 200);
    assert.equal(await count(), afterSetup);
  });
});
