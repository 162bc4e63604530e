// The demo shop in real Chromium, as a newcomer sees it: the widget loads on the shop's pages
// under the shop's strict Content-Security-Policy, answers about a coffee from the synced
// catalogue, and a coupon applied in the chat shows up on the shop's cart page. The shop is
// connected to the service's seeded demo agent (as `demo:connect` does), so the service's own
// /demo page shows the same catalogue's product cards, with the shop's images.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createLogger } from '../../../apps/server/src/logger.js';
import { connectDemoShop, seedDemo } from '../../../apps/server/src/services/ops/demo-seed.js';
import { workerServices } from '../../../apps/server/test/support/test-app.js';
import { launchBrowser, withPage } from '../../../apps/widget/test/browser/support/browser.js';
import { eventually, type Service, startService } from '../../../apps/widget/test/browser/support/service.js';
import {
  ask,
  assistantMessages,
  byTestId,
  doneFrame,
  loadWidget,
  openPanel,
  uiString,
} from '../../../apps/widget/test/browser/support/widget.js';
import { type DemoShop, startDemoShop } from '../src/index.js';
import { freePort } from './support/loopback.js';

describe('demo shop in Chromium', () => {
  let browser: Browser;
  let service: Service;
  let shop: DemoShop;
  let agentId = '';

  before(async () => {
    browser = await launchBrowser();
    const port = await freePort();
    service = await startService({ SAFE_URL_ALLOW: `127.0.0.1:${port}` });
    const { t } = service;
    await t.queue.work(workerServices(t), { pollingIntervalSeconds: 0.5 });
    const seeded = await seedDemo({
      db: t.database.db,
      clock: t.clock,
      queue: t.queue,
      appKey: t.config.appKey,
      origins: [service.base],
      log: createLogger('silent'),
    });
    assert.ok(seeded?.created, 'a fresh store gets the demo agent');
    const connected = await connectDemoShop({
      db: t.database.db,
      clock: t.clock,
      origin: `http://127.0.0.1:${port}`,
    });
    agentId = connected.agent_id;
    const token = connected.token;
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
      assert.match(await card.innerText(), /10% off/, 'the card says what the code does');
      const apply = card.locator('[data-testid="coupon-apply"]');
      await apply.click();
      assert.equal((await applied).status(), 200);
      // Applied: the button is off and says the code is in the cart.
      await card.getByText(uiString('en', 'inCart')).waitFor();
      assert.equal(await apply.isDisabled(), true);

      // The next cart load on the shop applies the staged code, found by the widget's cookie.
      const cookie = (await page.context().cookies(shop.url)).find((c) => c.name === 'svc_conversation');
      assert.equal(cookie?.value, init.conversation_id);
      await page.goto(`${shop.url}/cart`);
      const notice = page.locator('[data-testid="coupon-applied-from-chat"]');
      assert.match(await notice.innerText(), /WELCOME10/);
    });
  });

  test('suggestion chips come from the answer and its sources, never unrelated products', async () => {
    const products = await service.t.database.db
      .selectFrom('documents')
      .select('title')
      .where('agent_id', '=', agentId)
      .where('kind', '=', 'product')
      .execute();
    const productNames = new Set(products.map((row) => row.title.toLowerCase()));
    assert.ok(productNames.size > 5, 'the catalogue is synced');
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, `${shop.url}/`);
      await openPanel(page);
      for (const question of ['Can I return an opened bag?', 'How long does delivery take to Switzerland?']) {
        const done = await doneFrame(await ask(page, question));
        const answer = assistantMessages(page).last();
        const chips = await answer.locator('[data-testid="suggestion"]').allInnerTexts();
        const text = done.text.toLowerCase();
        for (const chip of chips) {
          assert.ok(
            !productNames.has(chip.toLowerCase()) || text.includes(chip.toLowerCase()),
            `"${chip}" is a product the answer to "${question}" never names`,
          );
          assert.ok(!done.citations.some((c) => c.title === chip), `"${chip}" is already cited`);
        }
      }
    });
  });

  test('/demo shows product cards with the shop images, with no CSP violation', async () => {
    await withPage(browser, {}, async ({ page }) => {
      // Scripts as text: this package's types have no DOM (the page records violations itself).
      await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
        const seen = JSON.parse(sessionStorage.getItem('csp') ?? '[]');
        seen.push(event.violatedDirective + ' ' + event.blockedURI);
        sessionStorage.setItem('csp', JSON.stringify(seen));
      });`);
      const demo = await fetch(`${service.base}/demo`);
      assert.match(demo.headers.get('content-security-policy') ?? '', new RegExp(`img-src [^;]*${shop.url}`));
      await loadWidget(page, `${service.base}/demo`);
      await openPanel(page);
      await ask(page, 'Tell me about the Ethiopia Yirgacheffe');
      const image = assistantMessages(page).last().locator('[data-testid="block-product"] img').first();
      await image.waitFor();
      assert.ok(
        (await image.getAttribute('src'))?.startsWith(`${shop.url}/images/`),
        'the shop serves the image',
      );
      const loaded = `(() => {
        const root = document.querySelector('[data-service-widget]')?.shadowRoot;
        const img = root?.querySelector('[data-testid="block-product"] img');
        return Boolean(img && img.complete && img.naturalWidth > 0);
      })()`;
      await page.waitForFunction(loaded, undefined, { timeout: 15_000 });
      assert.equal(await page.evaluate(loaded), true, 'the image loaded');
      assert.equal(await page.evaluate("sessionStorage.getItem('csp') ?? '[]'"), '[]', 'no CSP violation');
      assert.equal(
        await byTestId(page, 'launcher').isVisible(),
        false,
        'the launcher hides while the panel is open',
      );
    });
  });
});
