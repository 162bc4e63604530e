// The demo shop in real Chromium, as a newcomer sees it: the widget loads on the shop's pages
// under the shop's strict Content-Security-Policy, answers about a coffee from the synced
// catalogue, and a coupon applied in the chat shows up on the shop's cart page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createAgent } from '../../../apps/server/test/support/site-sync.js';
import { issueToken, seedTenant, workerServices } from '../../../apps/server/test/support/test-app.js';
import { launchBrowser, withPage } from '../../../apps/widget/test/browser/support/browser.js';
import { eventually, type Service, startService } from '../../../apps/widget/test/browser/support/service.js';
import {
  ask,
  assistantMessages,
  loadWidget,
  openPanel,
} from '../../../apps/widget/test/browser/support/widget.js';
import { type DemoShop, startDemoShop } from '../src/index.js';
import { freePort } from './support/loopback.js';

describe('demo shop in Chromium', () => {
  let browser: Browser;
  let service: Service;
  let shop: DemoShop;

  before(async () => {
    browser = await launchBrowser();
    const port = await freePort();
    service = await startService({ SAFE_URL_ALLOW: `127.0.0.1:${port}` });
    const { t } = service;
    await t.queue.work(workerServices(t), { pollingIntervalSeconds: 0.5 });
    const tenant = await seedTenant(t, 'Northwind Coffee Roasters');
    const agentId = await createAgent(t, tenant, {
      is_published: true,
      allowed_origins: [`http://127.0.0.1:${port}`],
    });
    const { token } = await issueToken(t, tenant, ['wp:integration']);
    shop = await startDemoShop({
      serviceUrl: service.base,
      apiToken: token,
      agentId,
      port,
      dataDir: null,
      log: () => {},
    });
    const pending = await eventually(
      async () =>
        (
          await t.database.db
            .selectFrom('documents')
            .select('id')
            .where('agent_id', '=', agentId)
            .where('index_status', '!=', 'indexed')
            .execute()
        ).length,
      (n) => n === 0,
      60_000,
    );
    assert.equal(pending, 0, 'the synced catalogue is indexed');
  });
  after(async () => {
    await browser?.close();
    await shop?.close();
    await service?.close();
  });

  test('the widget answers on the shop under its CSP, and a chat coupon lands on the cart', async () => {
    await withPage(browser, {}, async ({ page }) => {
      const home = await fetch(`${shop.url}/`);
      assert.match(
        home.headers.get('content-security-policy') ?? '',
        /script-src 'self' http:\/\/127\.0\.0\.1/,
      );
      const init = await loadWidget(page, `${shop.url}/`);
      await openPanel(page);

      await ask(page, 'Tell me about the Ethiopia Yirgacheffe');
      const product = assistantMessages(page).last().locator('[data-testid="block-product"]');
      await product.first().waitFor();
      assert.match(await product.first().innerText(), /Yirgacheffe/);

      await ask(page, 'Is there a welcome code for new customers?');
      const card = assistantMessages(page).last().locator('[data-testid="block-coupon"]');
      await card.waitFor();
      assert.match(await card.innerText(), /WELCOME10/);
      const applied = page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/api/v1/widget/coupon/apply',
      );
      await card.locator('[data-testid="coupon-apply"]').click();
      assert.equal((await applied).status(), 200);

      // The next cart load on the shop applies the staged code, found by the widget's cookie.
      const cookie = (await page.context().cookies(shop.url)).find((c) => c.name === 'svc_conversation');
      assert.equal(cookie?.value, init.conversation_id);
      await page.goto(`${shop.url}/cart`);
      const notice = page.locator('[data-testid="coupon-applied-from-chat"]');
      assert.match(await notice.innerText(), /WELCOME10/);
    });
  });
});
