import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_THEME, ZAgent } from '@service/contract';
import { expectData, expectError, expectPage, expectValidation } from './support/http.js';
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
    const id = expectData(created, 201, ZAgent).id;
    const snapshot = () =>
      t.database.db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const original = await snapshot();
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
    assert.deepEqual(await snapshot(), original);
    assert.equal(original.workspace_id, acme.workspace.id);
  });
});

describe('admin API: agents CRUD', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  const agents = (id = '') => `/api/v1/admin/agents${id ? `/${id}` : ''}`;
  const countAgents = async (workspaceId: string) =>
    (await t.database.db.selectFrom('agents').select('id').where('workspace_id', '=', workspaceId).execute())
      .length;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme CRUD');
    other = await seedTenant(t, 'Other CRUD');
  });
  after(() => t.close());

  test('create, list, read, patch (theme merges), delete, then 404', async () => {
    const created = expectData(
      await injectJson(
        t.app,
        'POST',
        agents(),
        {
          name: 'Sales',
          site_type: 'ecommerce',
          theme: { primary: '#abcdef', radius: 4 },
          is_published: true,
        },
        acme.auth,
      ),
      201,
      ZAgent,
    );
    assert.equal(created.site_type, 'ecommerce');
    assert.equal(created.is_published, true);
    assert.deepEqual(created.theme, { ...DEFAULT_THEME, primary: '#abcdef', radius: 4 });
    assert.equal(created.system_prompt, '');
    assert.equal(created.language_default, null);

    const list = expectPage(await t.app.inject({ url: agents(), headers: acme.auth }), 200, ZAgent);
    assert.deepEqual(
      list.map((agent) => agent.id),
      [created.id],
    );
    const read = expectData(await t.app.inject({ url: agents(created.id), headers: acme.auth }), 200, ZAgent);
    assert.deepEqual(read, created);

    const patched = expectData(
      await injectJson(
        t.app,
        'PATCH',
        agents(created.id),
        {
          theme: { accent: '#000', launcher_label: 'Ask' },
          system_prompt: 'Be brief.',
          language_default: 'EN',
        },
        acme.auth,
      ),
      200,
      ZAgent,
    );
    assert.deepEqual(patched.theme, {
      ...DEFAULT_THEME,
      primary: '#abcdef',
      radius: 4,
      accent: '#000',
      launcher_label: 'Ask',
    });
    assert.equal(patched.name, 'Sales');
    assert.equal(patched.site_type, 'ecommerce');
    assert.equal(patched.system_prompt, 'Be brief.');
    assert.equal(patched.language_default, 'en');
    const stored = await t.database.db
      .selectFrom('agents')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored.theme, patched.theme);
    assert.equal(stored.system_prompt, 'Be brief.');

    const cleared = expectData(
      await injectJson(t.app, 'PATCH', agents(created.id), { language_default: null }, acme.auth),
      200,
      ZAgent,
    );
    assert.equal(cleared.language_default, null);
    assert.deepEqual(cleared.theme, patched.theme);

    const del = await t.app.inject({ method: 'DELETE', url: agents(created.id), headers: acme.auth });
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    expectError(await t.app.inject({ url: agents(created.id), headers: acme.auth }), 404, 'not_found');
    expectError(
      await t.app.inject({ method: 'DELETE', url: agents(created.id), headers: acme.auth }),
      404,
      'not_found',
    );
    expectError(
      await injectJson(t.app, 'PATCH', agents(created.id), { name: 'Back' }, acme.auth),
      404,
      'not_found',
    );
    assert.equal(await countAgents(acme.workspace.id), 0);
  });

  const invalidCreates: Array<[string, Record<string, unknown>, string]> = [
    ['empty name', { name: '' }, 'name'],
    ['blank name', { name: '   ' }, 'name'],
    ['missing name', { site_type: 'generic' }, 'name'],
    ['long name', { name: 'x'.repeat(121) }, 'name'],
    ['colour word', { name: 'A', theme: { primary: 'red' } }, 'theme.primary'],
    ['colour without #', { name: 'A', theme: { accent: '112233' } }, 'theme.accent'],
    ['radius too big', { name: 'A', theme: { radius: 33 } }, 'theme.radius'],
    ['radius negative', { name: 'A', theme: { radius: -1 } }, 'theme.radius'],
    ['radius fraction', { name: 'A', theme: { radius: 1.5 } }, 'theme.radius'],
    ['unknown theme key', { name: 'A', theme: { font: 'x' } }, 'theme.font'],
    ['bad position', { name: 'A', theme: { position: 'top' } }, 'theme.position'],
    [
      'origin with path',
      { name: 'A', allowed_origins: ['https://shop.example.com/cart'] },
      'allowed_origins.0',
    ],
    [
      'ftp origin',
      { name: 'A', allowed_origins: ['https://ok.example', 'ftp://files.example.com'] },
      'allowed_origins.1',
    ],
    [
      'origin with credentials',
      { name: 'A', allowed_origins: ['https://u:p@shop.example.com'] },
      'allowed_origins.0',
    ],
    ['bare host origin', { name: 'A', allowed_origins: ['shop.example.com'] }, 'allowed_origins.0'],
    ['language word', { name: 'A', language_default: 'english' }, 'language_default'],
    ['language with underscore', { name: 'A', language_default: 'pt_BR' }, 'language_default'],
    ['site type', { name: 'A', site_type: 'blog' }, 'site_type'],
    ['published as string', { name: 'A', is_published: 'yes' }, 'is_published'],
    ['workspace_id', { name: 'A', workspace_id: 'ws' }, 'workspace_id'],
    ['id', { name: 'A', id: '01AAAAAAAAAAAAAAAAAAAAAAAA' }, 'id'],
    ['created_at', { name: 'A', created_at: '2020-01-01T00:00:00Z' }, 'created_at'],
    ['updated_at', { name: 'A', updated_at: '2020-01-01T00:00:00Z' }, 'updated_at'],
  ];
  for (const [label, body, field] of invalidCreates) {
    test(`POST rejects ${label} with errors.${field} and stores nothing`, async () => {
      const before = await countAgents(acme.workspace.id);
      expectValidation(await injectJson(t.app, 'POST', agents(), body, acme.auth), [field]);
      assert.equal(await countAgents(acme.workspace.id), before);
    });
  }

  test('PATCH rejects bad values and privileged fields, leaving the row unchanged', async () => {
    const created = expectData(
      await injectJson(t.app, 'POST', agents(), { name: 'Steady' }, acme.auth),
      201,
      ZAgent,
    );
    const snapshot = () =>
      t.database.db.selectFrom('agents').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const original = await snapshot();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ theme: { primary: '#12345' } }, 'theme.primary'],
      [{ name: '' }, 'name'],
      [{ name: null }, 'name'],
      [{ allowed_origins: ['ftp://x.example'] }, 'allowed_origins.0'],
      [{ name: 'Moved', workspace_id: other.workspace.id }, 'workspace_id'],
      [{ id: 'another-id' }, 'id'],
      [{ created_at: '2000-01-01T00:00:00Z' }, 'created_at'],
    ];
    for (const [body, field] of cases) {
      expectValidation(await injectJson(t.app, 'PATCH', agents(created.id), body, acme.auth), [field]);
    }
    assert.deepEqual(await snapshot(), original);
    assert.equal(await countAgents(other.workspace.id), 0);
  });
});
