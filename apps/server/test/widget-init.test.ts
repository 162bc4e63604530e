import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgent } from '@service/contract';
import { expectData, expectValidation } from './support/http.js';
import { createSite, PLUGIN_VERSION, sampleCoupon, sampleProduct, wpPost } from './support/site-sync.js';
import { runFetchJob } from './support/sources.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initRequest, initSession, newAnonId, widgetCall } from './support/widget.js';

describe('widget init', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('returns theme, features, behaviour rules, language and a new conversation; records the page', async () => {
    const rules = [
      { trigger: 'scroll', threshold: 60, action: 'message', message: 'Need help choosing?' },
      { trigger: 'exit_intent', action: 'open' },
    ];
    const { agentId } = await createWidgetAgent(t, {
      behavior_rules: rules,
      theme: { launcher_label: 'Ask us' },
    });
    const res = await initRequest(
      t,
      {
        agent_id: agentId,
        anon_id: newAnonId(),
        page_url: 'https://shop.example.com/shoes',
        page_title: 'Shoes',
      },
      { headers: { 'accept-language': 'de-CH, de;q=0.9, en;q=0.5' } },
    );
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data;
    assert.equal(data.agent.theme.launcher_label, 'Ask us');
    assert.deepEqual(data.agent.features, { coupons: false, leads: true, human: true, satisfaction: true });
    assert.deepEqual(data.agent.behavior_rules, rules);
    assert.equal(data.language, 'de-ch', 'from Accept-Language when the agent has no default');
    assert.deepEqual(data.messages, []);
    assert.equal(data.conversation_status, 'open');
    assert.ok(Date.parse(data.expires_at) > Date.now() + 59 * 60_000);
    // The page is recorded when the conversation is stored: at the token's first call.
    const event = await widgetCall(t, 'POST', '/v1/widget/events', data.token, { kind: 'widget_opened' });
    assert.equal(event.statusCode, 202, event.body);
    const conversation = await t.database.db
      .selectFrom('conversations')
      .selectAll()
      .where('id', '=', data.conversation_id)
      .executeTakeFirstOrThrow();
    assert.equal(conversation.page_url, 'https://shop.example.com/shoes');
    assert.equal(conversation.page_title, 'Shoes');
    assert.equal(conversation.visitor_id, data.visitor_id);
  });

  test("the agent's default language wins over Accept-Language; an explicit locale over both", async () => {
    const { agentId } = await createWidgetAgent(t, { language_default: 'fr' });
    const headers = { 'accept-language': 'es' };
    assert.equal(
      (await initRequest(t, { agent_id: agentId, anon_id: newAnonId() }, { headers })).json().data.language,
      'fr',
    );
    assert.equal(
      (await initRequest(t, { agent_id: agentId, anon_id: newAnonId(), locale: 'pt-BR' }, { headers })).json()
        .data.language,
      'pt-br',
    );
  });

  test('coupons are on only for a commerce site that synced coupons', async () => {
    const site = await createSite(t, { is_published: true, allowed_origins: ['https://shop.example.com'] });
    const body = {
      agent_id: site.agentId,
      site_url: 'https://shop.example.com',
      plugin_version: PLUGIN_VERSION,
    };
    assert.equal((await initSession(t, site.agentId)).agent.features.coupons, false);
    assert.equal(
      (await wpPost(t, 'products/sync', site.token, { ...body, products: [sampleProduct(1)] })).statusCode,
      200,
    );
    assert.equal(
      (await initSession(t, site.agentId)).agent.features.coupons,
      false,
      'commerce but no coupons yet',
    );
    assert.equal(
      (
        await wpPost(t, 'coupons/sync', site.token, {
          ...body,
          coupons: [sampleCoupon('SAVE10', { expires_at: null })],
        })
      ).statusCode,
      200,
    );
    assert.equal((await initSession(t, site.agentId)).agent.features.coupons, true);
    assert.equal((await wpPost(t, 'coupons/sync', site.token, { ...body, coupons: [] })).statusCode, 200);
    assert.equal((await initSession(t, site.agentId)).agent.features.coupons, false);
  });

  test('bad bodies are 422 and create nothing', async () => {
    const { agentId } = await createWidgetAgent(t);
    expectValidation(await initRequest(t, { agent_id: agentId, anon_id: 'short' }), ['anon_id']);
    expectValidation(await initRequest(t, { agent_id: agentId, anon_id: 'has spaces in it' }), ['anon_id']);
    expectValidation(await initRequest(t, { anon_id: newAnonId() }), ['agent_id']);
    expectValidation(
      await initRequest(t, { agent_id: agentId, anon_id: newAnonId(), page_url: 'x'.repeat(2049) }),
      ['page_url'],
    );
    const rows = await t.database.db
      .selectFrom('visitors')
      .select('id')
      .where('agent_id', '=', agentId)
      .execute();
    assert.equal(rows.length, 0);
  });

  test('behaviour rules and widget features are validated by the admin API', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const patch = (body: unknown) =>
      injectJson(t.app, 'PATCH', `/api/v1/admin/agents/${agentId}`, body, tenant.auth);
    expectValidation(await patch({ behavior_rules: [{ trigger: 'scroll', threshold: 150, message: 'x' }] }), [
      'behavior_rules.0.threshold',
    ]);
    expectValidation(
      await patch({ behavior_rules: [{ trigger: 'idle', action: 'message', threshold: 30 }] }),
      ['behavior_rules.0.message'],
    );
    expectValidation(await patch({ behavior_rules: [{ trigger: 'hover', action: 'open' }] }), [
      'behavior_rules.0.trigger',
    ]);
    expectValidation(await patch({ widget_features: { coupons: true } }), ['widget_features.coupons']);
    const ok = expectData(
      await patch({ widget_features: { leads: false }, auto_index_pages: true }),
      200,
      ZAgent,
    );
    assert.deepEqual(ok.widget_features, { leads: false, human: true, satisfaction: true });
    assert.equal(ok.auto_index_pages, true);
    assert.equal((await initSession(t, agentId)).agent.features.leads, false);
  });

  test('visitor-page auto-index: off by default; on, only explicitly allowed origins, once, through the guard', async () => {
    const db = t.database.db;
    const pageSources = (agentId: string) =>
      db
        .selectFrom('sources')
        .selectAll()
        .where('agent_id', '=', agentId)
        .where('type', '=', 'url')
        .execute();
    const off = await createWidgetAgent(t);
    await initSession(t, off.agentId, { page_url: 'https://shop.example.com/a' });
    assert.equal((await pageSources(off.agentId)).length, 0);

    const on = await createWidgetAgent(t, {
      auto_index_pages: true,
      allowed_origins: ['https://shop.example.com', 'http://127.0.0.1:9'],
    });
    await initSession(t, on.agentId, { page_url: 'https://shop.example.com/a#top' });
    await initSession(t, on.agentId, { page_url: 'https://shop.example.com/a' });
    await initSession(t, on.agentId, { page_url: 'https://elsewhere.test/b' });
    await initSession(t, on.agentId, { page_url: 'javascript:alert(1)' });
    assert.deepEqual(
      (await pageSources(on.agentId)).map((s) => s.config.url),
      ['https://shop.example.com/a'],
    );

    // A private host, even when listed, is refused by the crawl-safety guard before any connection.
    await initSession(t, on.agentId, { page_url: 'http://127.0.0.1:9/admin' }, 'http://127.0.0.1:9');
    const local = (await pageSources(on.agentId)).find((s) => s.config.url === 'http://127.0.0.1:9/admin');
    assert.ok(local, 'queued like any page');
    await runFetchJob(t, local.id);
    const after = await db
      .selectFrom('sources')
      .select(['status', 'error'])
      .where('id', '=', local.id)
      .executeTakeFirstOrThrow();
    assert.equal(after.status, 'failed');
    assert.match(String(after.error), /loopback|private|not allowed/i);

    const star = await createWidgetAgent(t, { auto_index_pages: true, allowed_origins: ['*'] });
    await initSession(t, star.agentId, { page_url: 'https://anything.test/page' }, null);
    assert.equal((await pageSources(star.agentId)).length, 0, "with * alone no site is the agent's own");
  });
});
