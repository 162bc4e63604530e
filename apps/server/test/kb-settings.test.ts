import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZKbSettings } from '@service/contract';
import { auditRows, expectData, expectError, expectValidation } from './support/http.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

const SETTINGS = '/api/v1/admin/kb/settings';

describe('knowledge base settings: title, logo, colour, embedded widget', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  const patch = (tenant: Tenant, body: unknown) => injectJson(t.app, 'PATCH', SETTINGS, body, tenant.auth);
  const read = (tenant: Tenant) => t.app.inject({ url: SETTINGS, headers: tenant.auth });
  const agentOf = async (tenant: Tenant, name: string) => {
    const res = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name }, tenant.auth);
    assert.equal(res.statusCode, 201, res.body);
    return String(res.json().data.id);
  };

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://help.example.com' } });
    acme = await seedTenant(t, 'Acme Settings');
    other = await seedTenant(t, 'Other Settings');
  });
  after(() => t.close());

  test('defaults, then a full change read back, audited with the changed field names', async () => {
    const initial = expectData(await read(acme), 200, ZKbSettings);
    assert.deepEqual(initial, {
      title: '',
      logo_url: null,
      color: null,
      widget_agent_id: null,
      url: `https://help.example.com/kb/${acme.workspace.slug}`,
    });
    const agentId = await agentOf(acme, 'Helper');
    const changed = expectData(
      await patch(acme, {
        title: '  Acme Help  ',
        logo_url: 'https://cdn.example.com/logo.svg',
        color: '#1A2B3C',
        widget_agent_id: agentId,
      }),
      200,
      ZKbSettings,
    );
    assert.deepEqual(
      { ...changed, url: undefined },
      {
        title: 'Acme Help',
        logo_url: 'https://cdn.example.com/logo.svg',
        color: '#1a2b3c',
        widget_agent_id: agentId,
        url: undefined,
      },
    );
    assert.deepEqual(expectData(await read(acme), 200, ZKbSettings), changed);
    const audit = (await auditRows(t, acme.workspace.id)).filter(
      (row) => row.action === 'kb_settings.updated',
    );
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]?.metadata, { fields: ['color', 'logo_url', 'title', 'widget_agent_id'] });

    // A same-origin path is a logo too; null clears each field.
    assert.equal(
      expectData(await patch(acme, { logo_url: '/files/logo.png' }), 200, ZKbSettings).logo_url,
      '/files/logo.png',
    );
    const cleared = expectData(
      await patch(acme, { logo_url: null, color: null, widget_agent_id: null, title: '' }),
      200,
      ZKbSettings,
    );
    assert.deepEqual(
      [cleared.logo_url, cleared.color, cleared.widget_agent_id, cleared.title],
      [null, null, null, ''],
    );
  });

  test('hostile logos are 422 on logo_url and change nothing', async () => {
    const before = expectData(await read(acme), 200, ZKbSettings);
    for (const logo of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'http://cdn.example.com/logo.png',
      '//evil.example/logo.png',
      '/\\evil.example/logo.png',
      '/\tevil',
      ' https://cdn.example.com/logo.png',
      'https://user:pass@cdn.example.com/logo.png',
      'https:logo.png',
      'logo.png',
      '',
      `https://cdn.example.com/${'a'.repeat(2000)}`,
    ]) {
      expectValidation(await patch(acme, { logo_url: logo }), ['logo_url']);
    }
    assert.deepEqual(expectData(await read(acme), 200, ZKbSettings), before);
  });

  test('colours must be #rrggbb; titles at most 120 characters; unknown fields refused', async () => {
    for (const color of ['#fff', 'red', '#12345g', '#1234567', '1f6feb', 'rgb(0,0,0)', '#1f6feb;}body{x:y']) {
      expectValidation(await patch(acme, { color }), ['color']);
    }
    expectData(await patch(acme, { title: 'x'.repeat(120) }), 200, ZKbSettings);
    expectValidation(await patch(acme, { title: 'x'.repeat(121) }), ['title']);
    expectValidation(await patch(acme, { title: 'ok', css: 'body{}' }), []);
  });

  test("another workspace's agent, or an unknown one, cannot be embedded (422 on widget_agent_id)", async () => {
    const theirs = await agentOf(other, 'Theirs');
    expectValidation(await patch(acme, { widget_agent_id: theirs }), ['widget_agent_id']);
    expectValidation(await patch(acme, { widget_agent_id: 'no-such-agent' }), ['widget_agent_id']);
    assert.equal(expectData(await read(acme), 200, ZKbSettings).widget_agent_id, null);
  });

  test('a deleted agent leaves the setting empty', async () => {
    const agentId = await agentOf(acme, 'Short-lived');
    expectData(await patch(acme, { widget_agent_id: agentId }), 200, ZKbSettings);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/agents/${agentId}`,
      headers: acme.auth,
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal(expectData(await read(acme), 200, ZKbSettings).widget_agent_id, null);
  });

  test('no credential is 401, a token without the admin ability is 403; each workspace sees its own', async () => {
    expectError(await t.app.inject({ url: SETTINGS }), 401);
    expectError(await injectJson(t.app, 'PATCH', SETTINGS, { title: 'x' }), 401);
    const plugin = await issueToken(t, acme, ['wp:integration']);
    const headers = { authorization: `Bearer ${plugin.token}` };
    expectError(await t.app.inject({ url: SETTINGS, headers }), 403);
    expectError(await injectJson(t.app, 'PATCH', SETTINGS, { title: 'x' }, headers), 403);
    expectData(await patch(acme, { title: 'Only Acme' }), 200, ZKbSettings);
    assert.equal(expectData(await read(other), 200, ZKbSettings).title, '');
  });
});
