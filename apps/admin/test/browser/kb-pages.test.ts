import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { seedDemo } from '../../../server/src/services/ops/demo-seed.js';
import { injectJson, seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  assertAccessible,
  type ConsoleService,
  checkScreen,
  createAgentAs,
  launchBrowser,
  startConsoleService,
  withPage,
} from './support/console.js';

// The public pages a shop links to, in Chromium against the real service: the KB home, an
// article (with the workspace's colour, logo and embedded widget) and /demo. Each is checked
// with axe-core at 1280 px, 390 px and in dark colours (pictured for docs/screenshots), with
// no CSP violation reported by the page, no console error and no failed request.

const ARTICLE = `Orders leave the roastery within **two business days** of roasting.

## Delivery times

| Destination | Days | Cost |
| --- | --- | --- |
| France | 1–2 | free over 40 € |
| Rest of the EU | 3–5 | 4.90 € |

1. Pick your coffee and grind.
2. Pay by card or PayPal.
3. Follow the tracking link we email you.

> Roasting days are Monday and Thursday.

Use the code \`WELCOME10\` on a first order. See [carrier tracking](https://carrier.example/track).`;

/** Collects Content-Security-Policy violations the page reports (the init script is not subject to CSP). */
async function watchPolicy(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    Object.defineProperty(window, '__cspViolations', { value: seen });
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return () => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
}

describe('public knowledge base and demo pages', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    const { t } = service;
    await seedDemo({
      db: t.database.db,
      clock: t.clock,
      queue: t.queue,
      appKey: t.config.appKey,
      origins: [service.base],
      log: { info: () => {} },
    });
    // After the demo: seeding only happens on a store with no other workspace.
    tenant = await seedTenant(t, 'Northwind Coffee');
    const articles = [
      { title: 'Shipping and delivery', category: 'Orders', body_markdown: ARTICLE },
      { title: 'Returns and refunds', category: 'Orders', body_markdown: 'Unopened bags: 30 days.' },
      { title: 'Changing an order', category: 'Orders', body_markdown: 'Write to us before roasting day.' },
      { title: 'Choosing a grind', category: 'Coffee', body_markdown: 'Espresso, filter, French press.' },
      { title: 'Storing beans', category: 'Coffee', body_markdown: 'Airtight, dark, cool.' },
      { title: 'Opening hours', category: '', body_markdown: 'Tuesday to Saturday, 9:00 to 18:00.' },
    ];
    for (const article of articles) {
      const res = await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/kb/articles',
        { ...article, is_published: true },
        tenant.auth,
      );
      assert.equal(res.statusCode, 201, res.body);
    }
    const agentId = await createAgentAs(t, tenant, 'Coffee helper');
    const agent = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/agents/${agentId}`,
      { is_published: true, allowed_origins: [service.base] },
      tenant.auth,
    );
    assert.equal(agent.statusCode, 200, agent.body);
    const settings = await injectJson(
      t.app,
      'PATCH',
      '/api/v1/admin/kb/settings',
      { title: 'Northwind Help', color: '#b45309', logo_url: '/admin/favicon.svg', widget_agent_id: agentId },
      tenant.auth,
    );
    assert.equal(settings.statusCode, 200, settings.body);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('the KB home: accessible at 1280 px, 390 px and dark, no CSP violation, widget loaded', async () => {
    await withPage(browser, {}, async ({ page }) => {
      const violations = await watchPolicy(page);
      await page.goto(`${service.base}/kb/${tenant.workspace.slug}`);
      await page.getByRole('heading', { level: 1, name: 'Northwind Help' }).waitFor();
      // The widget mounted (its host element appears once the loader ran).
      await page.waitForFunction(() => document.body.children.length > 0 && 'Service' in window);
      await checkScreen(page, 'kb-home');
      assert.deepEqual(await violations(), []);
    });
  });

  test('searching from the box lands on accessible results with the match marked', async () => {
    await withPage(browser, {}, async ({ page }) => {
      const violations = await watchPolicy(page);
      await page.goto(`${service.base}/kb/${tenant.workspace.slug}`);
      await page.getByRole('searchbox', { name: 'Search articles' }).fill('roasting');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('heading', { level: 1, name: 'Search results for “roasting”' }).waitFor();
      const titles = await page.locator('.results h2').allInnerTexts();
      assert.deepEqual(titles.sort(), ['Changing an order', 'Shipping and delivery']);
      assert.ok((await page.locator('.results mark').count()) > 0);
      await assertAccessible(page, 'kb-search');
      await page.emulateMedia({ colorScheme: 'dark' });
      await assertAccessible(page, 'kb-search (dark)');
      assert.deepEqual(await violations(), []);
    });
  });

  test('an article: accessible at 1280 px, 390 px and dark, no CSP violation; next goes on', async () => {
    await withPage(browser, {}, async ({ page }) => {
      const violations = await watchPolicy(page);
      await page.goto(`${service.base}/kb/${tenant.workspace.slug}/shipping-and-delivery`);
      await page.getByRole('heading', { level: 1, name: 'Shipping and delivery' }).waitFor();
      await page.waitForFunction(() => 'Service' in window);
      await checkScreen(page, 'kb-article');
      assert.deepEqual(await violations(), []);
      const crumbs = await page.getByRole('navigation', { name: 'Breadcrumb' }).innerText();
      assert.deepEqual(crumbs.split('\n'), ['Northwind Help', 'Orders', 'Shipping and delivery']);
      await page.getByRole('link', { name: /Previous/ }).click();
      await page.getByRole('heading', { level: 1, name: 'Returns and refunds' }).waitFor();
    });
  });

  test('/demo: accessible, no CSP violation with the widget running', async () => {
    await withPage(browser, {}, async ({ page }) => {
      const violations = await watchPolicy(page);
      await page.goto(`${service.base}/demo`);
      await page.getByRole('heading', { level: 1, name: 'Try the chat assistant' }).waitFor();
      await page.waitForFunction(() => 'Service' in window);
      await checkScreen(page, 'demo');
      assert.deepEqual(await violations(), []);
    });
  });
});
