import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

describe('admin API: agents', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme');
    other = await seedTenant(t, 'Other');
  });
  after(() => t.close());

  test('creates an agent with defaults, normalised origins and a merged theme', async () => {
    const res = await injectJson(
      t.app,
      'POST',
      '/api/v1/admin/agents',
      {
        name: '  Helper ',
        allowed_origins: [
          'HTTPS://Shop.Example.com:443/',
          'http://localhost:3000',
          'https://shop.example.com',
        ],
        theme: { primary: '#112233' },
        language_default: 'pt-BR',
      },
      acme.auth,
    );
    assert.equal(res.statusCode, 201, res.body);
    const agent = res.json().data;
    assert.equal(agent.name, 'Helper');
    assert.equal(agent.site_type, 'generic');
    assert.equal(agent.is_published, false);
    assert.equal(agent.language_default, 'pt-br');
    assert.deepEqual(agent.allowed_origins, ['https://shop.example.com', 'http://localhost:3000']);
    assert.equal(agent.theme.primary, '#112233');
    assert.equal(agent.theme.position, 'bottom-right');
    const stored = await t.database.db
      .selectFrom('agents')
      .selectAll()
      .where('id', '=', agent.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.workspace_id, acme.workspace.id);
  });

  test('another workspace gets 404 on read, update and delete, and nothing changes', async () => {
    const created = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Private' }, acme.auth);
    const id = created.json().data.id;
    const read = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/agents/${id}`,
      headers: other.auth,
    });
    assert.equal(read.statusCode, 404);
    assert.deepEqual(read.json(), { message: 'Not found.', code: 'not_found', errors: {} });
    const patch = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/agents/${id}`,
      { name: 'Stolen' },
      other.auth,
    );
    assert.equal(patch.statusCode, 404);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/agents/${id}`,
      headers: other.auth,
    });
    assert.equal(del.statusCode, 404);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/admin/agents', headers: other.auth });
    assert.equal(list.json().data.length, 0);
    const stored = await t.database.db
      .selectFrom('agents')
      .select('name')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.name, 'Private');
  });
});
