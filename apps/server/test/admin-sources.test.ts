import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { wpPost } from './support/site-sync.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

describe('admin API: sources of synced sites', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  let agentId: string;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme');
    other = await seedTenant(t, 'Other');
    agentId = (await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Bot' }, acme.auth)).json()
      .data.id;
    const plugin = (await issueToken(t, acme, ['wp:integration'])).token;
    const common = { agent_id: agentId, site_url: 'https://Shop.Example.com/', plugin_version: '2.0.1' };
    const post = {
      wp_id: 1,
      post_type: 'post',
      permalink: 'https://shop.example.com/hello',
      title: 'Hello',
      content_html: '<p>Hello world</p>',
      content_hash: 'aaaa1111',
      modified_at: '2026-11-01T10:00:00+01:00',
    };
    assert.equal((await wpPost(t, 'posts/sync', plugin, { ...common, posts: [post] })).statusCode, 200);
    const coupons = [{ code: 'WELCOME10', label: 'Welcome', discount: '10%', expires_at: null }];
    assert.equal((await wpPost(t, 'coupons/sync', plugin, { ...common, coupons })).statusCode, 200);
  });
  after(() => t.close());

  test("lists an agent's sources with counts, site URL, plugin version and the default plugin_base", async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/agents/${agentId}/sources`,
      headers: acme.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    const sources: Array<Record<string, unknown>> = res.json().data;
    const site = sources.find((source) => source.type === 'site');
    const products = sources.find((source) => source.type === 'products');
    assert.ok(site && products);
    assert.equal(site.site_url, 'https://shop.example.com');
    assert.equal(site.plugin_version, '2.0.1');
    assert.equal(site.plugin_base, 'https://shop.example.com/wp-json/service/v1/');
    assert.equal(site.document_count, 1);
    assert.equal(products.coupon_count, 1);
    assert.equal(typeof site.last_synced_at, 'string');
  });

  test('PATCH changes plugin_base (a trailing slash is added), audited; bad values are 422 and change nothing', async () => {
    const site = await t.database.db
      .selectFrom('sources')
      .selectAll()
      .where('type', '=', 'site')
      .executeTakeFirstOrThrow();
    const res = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/sources/${site.id}`,
      { plugin_base: 'https://shop.example.com/index.php?rest_route=' },
      acme.auth,
    );
    assert.equal(res.statusCode, 422);
    for (const bad of ['ftp://shop.example.com/', 'javascript:alert(1)', 'not a url', 42]) {
      const r = await injectJson(
        t.app,
        'PATCH',
        `/api/v1/admin/sources/${site.id}`,
        { plugin_base: bad },
        acme.auth,
      );
      assert.equal(r.statusCode, 422, String(bad));
      assert.ok(r.json().errors.plugin_base);
    }
    const extra = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/sources/${site.id}`,
      { plugin_base: 'https://shop.example.com/api/', site_url: 'https://evil.example' },
      acme.auth,
    );
    assert.equal(extra.statusCode, 422);
    const unchanged = await t.database.db
      .selectFrom('sources')
      .select('plugin_base')
      .where('id', '=', site.id)
      .executeTakeFirstOrThrow();
    assert.equal(unchanged.plugin_base, 'https://shop.example.com/wp-json/service/v1/');

    const ok = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/sources/${site.id}`,
      { plugin_base: 'https://shop.example.com/custom/service/v1' },
      acme.auth,
    );
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.plugin_base, 'https://shop.example.com/custom/service/v1/');
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('action', '=', 'source.updated')
      .where('target_id', '=', site.id)
      .execute();
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]?.metadata, {
      plugin_base: {
        from: 'https://shop.example.com/wp-json/service/v1/',
        to: 'https://shop.example.com/custom/service/v1/',
      },
    });
  });

  test('a products-only shop can correct plugin_base on its products source; sources without one are 422', async () => {
    const products = await t.database.db
      .selectFrom('sources')
      .select('id')
      .where('type', '=', 'products')
      .executeTakeFirstOrThrow();
    const res = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/sources/${products.id}`,
      { plugin_base: 'https://shop.example.com/x/' },
      acme.auth,
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.plugin_base, 'https://shop.example.com/x/');
    await t.database.db
      .updateTable('sources')
      .set({ plugin_base: null })
      .where('id', '=', products.id)
      .execute();
    const none = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/sources/${products.id}`,
      { plugin_base: 'https://shop.example.com/y/' },
      acme.auth,
    );
    assert.equal(none.statusCode, 422);
  });

  test('another workspace gets 404 on list, read and update', async () => {
    const site = await t.database.db
      .selectFrom('sources')
      .select(['id', 'plugin_base'])
      .where('type', '=', 'site')
      .executeTakeFirstOrThrow();
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/agents/${agentId}/sources`,
      headers: other.auth,
    });
    assert.equal(list.statusCode, 404);
    const read = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/sources/${site.id}`,
      headers: other.auth,
    });
    assert.equal(read.statusCode, 404);
    const patch = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/sources/${site.id}`,
      { plugin_base: 'https://evil.example/' },
      other.auth,
    );
    assert.equal(patch.statusCode, 404);
    const after = await t.database.db
      .selectFrom('sources')
      .select('plugin_base')
      .where('id', '=', site.id)
      .executeTakeFirstOrThrow();
    assert.equal(after.plugin_base, site.plugin_base);
  });
});
