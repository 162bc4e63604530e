import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { type FakeLlm, startFakeLlm } from '../../../server/test/support/fake-llm.js';
import { type FakeSite, startFakeSite } from '../../../server/test/support/fake-site.js';
import { bearer, expectData } from '../../../server/test/support/http.js';
import {
  createSite,
  sampleCoupon,
  sampleProduct,
  target,
  wpPost,
} from '../../../server/test/support/site-sync.js';
import { indexSource } from '../../../server/test/support/sources.js';
import { injectJson } from '../../../server/test/support/test-app.js';
import { launchBrowser, withPage } from './support/browser.js';
import { embedPage, type HostSite, startHostSite } from './support/host.js';
import { type Service, startService } from './support/service.js';
import {
  ask,
  assertCitations,
  assistantMessages,
  loadWidget,
  openPanel,
  uiString,
} from './support/widget.js';

// Coupon Apply from the browser reaches the shop: the model names a synced code, the widget
// shows a coupon card, and Apply makes the service post a signed cart/coupon to the site.

const ZHandshake = z.object({ token: z.object({ shopper_signing_secret: z.string().min(1) }) });

describe('widget in Chromium: coupon apply', () => {
  let browser: Browser;
  let llm: FakeLlm;
  let site: FakeSite;
  let service: Service;
  let host: HostSite;

  before(async () => {
    browser = await launchBrowser();
    llm = await startFakeLlm();
    site = await startFakeSite({ secret: '', coupons: ['SAVE10'] });
    service = await startService({
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: llm.openAiBaseUrl,
      LLM_API_KEY: 'k',
      SAFE_URL_ALLOW: site.allowEntry,
    });
    host = await startHostSite();
  });
  after(async () => {
    await browser?.close();
    await host?.close();
    await service?.close();
    await site?.close();
    await llm?.close();
  });

  /** An agent connected to the fake site the way the plugin does it, with a product and SAVE10. */
  async function connectShop(): Promise<string> {
    const { t } = service;
    const created = await createSite(t, { is_published: true, allowed_origins: [host.origin] });
    const shake = await injectJson(
      t.app,
      'POST',
      '/api/v1/wp/handshake',
      { site_url: site.siteUrl, plugin_version: '1.2.0', commerce_active: true, cms_version: '6.6' },
      bearer(created.token),
    );
    site.secret = expectData(shake, 200, ZHandshake).token.shopper_signing_secret;
    const products = [
      sampleProduct(1, {
        name: 'Trail Shoe Alpine',
        description: '<p>Waterproof alpine trail shoe with a Vibram sole.</p>',
        permalink: `${site.siteUrl}/product/trail-shoe-alpine`,
        image_url: '',
      }),
    ];
    const synced = await wpPost(t, 'products/sync', created.token, {
      ...target(created.agentId, site.siteUrl),
      products,
    });
    assert.equal(synced.statusCode, 200, synced.body);
    const coupons = await wpPost(t, 'coupons/sync', created.token, {
      ...target(created.agentId, site.siteUrl),
      coupons: [sampleCoupon('SAVE10', { expires_at: null })],
    });
    assert.equal(coupons.statusCode, 200, coupons.body);
    const source = await t.database.db
      .selectFrom('sources')
      .select(['id', 'plugin_base'])
      .where('agent_id', '=', created.agentId)
      .where('type', '=', 'products')
      .executeTakeFirstOrThrow();
    assert.equal(source.plugin_base, site.pluginBase);
    await indexSource(t, source.id);
    return created.agentId;
  }

  test('Apply on a coupon card stages the code on the site for this conversation', async () => {
    const agentId = await connectShop();
    llm.setScript([{ kind: 'text', chunks: ['Use code ', 'SAVE10 [1].'] }]);
    const url = host.serve('/shop', { html: embedPage({ service: service.base, agentId }) });
    await withPage(browser, {}, async ({ page }) => {
      const init = await loadWidget(page, url);
      await openPanel(page);
      await ask(page, 'Do you have a discount on the waterproof alpine trail shoe?');
      const answer = assistantMessages(page).last();
      assert.match(await answer.innerText(), /Use code SAVE10/);
      // [1] cites the synced product: a numbered link to its page, and a product card.
      const citations = answer.locator('[data-testid="citation"]');
      await assertCitations(citations, 'Trail Shoe Alpine');
      const source = answer.locator('[data-testid="source"] a').first();
      assert.equal(await source.getAttribute('href'), `${site.siteUrl}/product/trail-shoe-alpine`);
      assert.match(await answer.locator('[data-testid="block-product"]').innerText(), /Trail Shoe Alpine/);
      const card = answer.locator('[data-testid="block-coupon"]');
      await card.waitFor();
      assert.match(await card.innerText(), /SAVE10/);
      const apply = card.locator('[data-testid="coupon-apply"]');
      assert.equal((await apply.innerText()).trim(), uiString('en', 'apply'));

      const accepted = site.accepted.length;
      const applied = page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/api/v1/widget/coupon/apply',
      );
      await apply.click();
      assert.equal((await applied).status(), 200);
      const expected = 'SAVE10 will be applied to your next cart.';
      await card.getByText(expected).waitFor();
      // Applied: the button stays off and says the code is in the cart.
      assert.equal(await apply.isDisabled(), true);
      assert.equal((await apply.innerText()).trim(), uiString('en', 'inCart'));
      assert.match(await card.innerText(), /10% off/, 'the card spells out what the code does');

      assert.equal(site.accepted.length, accepted + 1, 'the site received one verified request');
      const request = site.accepted.at(-1);
      assert.equal(request?.route, 'cart/coupon');
      assert.deepEqual(request?.body, { code: 'SAVE10', conversation_id: init.conversation_id });
      assert.match(request?.signature ?? '', /^t=\d+,v1=[0-9a-f]{64}$/, 'signed with the shopper secret');
      assert.equal(site.stagedCoupon(init.conversation_id), 'SAVE10');
      const cookie = (await page.context().cookies(url)).find((c) => c.name === 'svc_conversation');
      assert.equal(
        cookie?.value,
        init.conversation_id,
        'the plugin can read the conversation from its cookie',
      );
    });
  });
});
