import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZCoupon, ZProduct } from '@service/contract';
import type { JobQueue } from '../src/queue/job-queue.js';
import { updateAgent } from '../src/services/agents/agents.js';
import type { TenantScope } from '../src/services/context.js';
import { type SyncDeps, syncCoupons, syncProducts } from '../src/services/knowledge/site-sync.js';
import { deleteSource, updateSource } from '../src/services/knowledge/sources.js';
import { readWidgetAgent } from '../src/services/widget/widget-session.js';
import {
  createSite,
  PLUGIN_VERSION,
  SITE_URL,
  type Site,
  sampleCoupon,
  sampleProduct,
} from './support/site-sync.js';
import { createTestApp, type TestApp } from './support/test-app.js';

// Init keeps a published agent for a second (services/widget/widget-agent-cache.ts). The services
// that write what it holds clear it themselves, so these writes are called directly (no HTTP):
// each is seen by the very next read, well inside the cache's second.
describe('widget agent cache: cleared by the services that write agents, sources and coupons', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  function scopeOf(site: Site): TenantScope & { queue: JobQueue } {
    return {
      db: t.database.db,
      clock: t.clock,
      workspaceId: site.tenant.workspace.id,
      actor: { type: 'cli', id: null },
      queue: t.queue,
    };
  }

  function syncDeps(site: Site): SyncDeps {
    return {
      db: t.database.db,
      clock: t.clock,
      queue: t.queue,
      caller: { tokenId: site.tokenId, workspaceId: site.tenant.workspace.id },
    };
  }

  const target = (site: Site) => ({
    agent_id: site.agentId,
    site_url: SITE_URL,
    plugin_version: PLUGIN_VERSION,
  });

  async function shopWithCoupons(): Promise<Site> {
    const site = await createSite(t, { is_published: true, allowed_origins: [SITE_URL] });
    await syncProducts(syncDeps(site), { ...target(site), products: [ZProduct.parse(sampleProduct(1))] });
    await syncCoupons(syncDeps(site), {
      ...target(site),
      coupons: [ZCoupon.parse(sampleCoupon('SAVE10', { expires_at: null }))],
    });
    return site;
  }

  async function productsSourceId(site: Site): Promise<string> {
    const row = await t.database.db
      .selectFrom('sources')
      .select('id')
      .where('agent_id', '=', site.agentId)
      .where('type', '=', 'products')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  test('an agent update (name, unpublish) is seen at once', async () => {
    const site = await createSite(t, { name: 'Before', is_published: true, allowed_origins: [SITE_URL] });
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.agent.name, 'Before');
    await updateAgent(scopeOf(site), site.agentId, { name: 'After' });
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.agent.name, 'After');
    await updateAgent(scopeOf(site), site.agentId, { is_published: false });
    assert.equal(await readWidgetAgent(t.database.db, site.agentId), null);
  });

  test('a product sync that makes the agent a shop is seen at once (site type)', async () => {
    const site = await createSite(t, { is_published: true, allowed_origins: [SITE_URL] });
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.agent.site_type, 'generic');
    await syncProducts(syncDeps(site), { ...target(site), products: [ZProduct.parse(sampleProduct(1))] });
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.agent.site_type, 'ecommerce');
  });

  test('a coupon sync is seen at once, both ways', async () => {
    const site = await shopWithCoupons();
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.hasCoupons, true);
    await syncCoupons(syncDeps(site), { ...target(site), coupons: [] });
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.hasCoupons, false);
    await syncCoupons(syncDeps(site), {
      ...target(site),
      coupons: [ZCoupon.parse(sampleCoupon('BACK', { expires_at: null }))],
    });
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.hasCoupons, true);
  });

  test('deleting the products source (and with it the coupons) is seen at once', async () => {
    const site = await shopWithCoupons();
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.hasCoupons, true);
    await deleteSource(scopeOf(site), await productsSourceId(site));
    assert.equal((await readWidgetAgent(t.database.db, site.agentId))?.hasCoupons, false);
  });

  test("a source update (the products source's plugin_base) clears the cache too", async () => {
    const site = await shopWithCoupons();
    const before = await readWidgetAgent(t.database.db, site.agentId);
    assert.equal(before?.hasCoupons, true);
    // Still coupons after the update, but read afresh: the cached object is not the one served.
    await updateSource(scopeOf(site), await productsSourceId(site), { plugin_base: `${SITE_URL}/api/shop/` });
    const after = await readWidgetAgent(t.database.db, site.agentId);
    assert.equal(after?.hasCoupons, true);
    assert.notEqual(after, before);
    // An unchanged read inside the second is the cached object itself (what the other tests rely on).
    assert.equal(await readWidgetAgent(t.database.db, site.agentId), after);
  });
});
