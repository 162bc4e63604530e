import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { seedTenant } from '../../../server/test/support/test-app.js';
import {
  addMember,
  type ConsoleService,
  checkScreen,
  DESKTOP,
  launchBrowser,
  PHONE,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The main navigation in Chromium against the real service: a column of links on a desktop,
// folded behind a Menu button at 390 px (no entry cut off), opened and closed by keyboard.

const PASSWORD = 'correct horse battery';
const USER = { email: 'navigator@example.com', password: PASSWORD };
/** An admin's entries: Inbox, Agents, Knowledge base, Leads, Members, API tokens, Model key, Audit log, Webhooks, Plan and usage, Profile, Two-factor. */
const NAV_ENTRIES = 13;

describe('admin console: main navigation', () => {
  let browser: Browser;
  let service: ConsoleService;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    const tenant = await seedTenant(service.t, 'Acme Coffee');
    await addMember(service.t, USER, [tenant.workspace.id]);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const url = (path: string) => `${service.base}${path}`;

  const signInAs = (page: Page) => signIn(page, service.base, USER);

  /** Whether each entry of the main nav lies wholly inside the viewport's width. */
  const entriesInView = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll('nav[aria-label="Main"] a')].map((link) => {
        const box = link.getBoundingClientRect();
        return box.width > 0 && box.left >= 0 && box.right <= window.innerWidth;
      }),
    );

  test('desktop: every entry shown, no Menu button', async () => {
    await withPage(browser, { viewport: DESKTOP }, async ({ page }) => {
      await signInAs(page);
      const nav = page.getByRole('navigation', { name: 'Main' });
      assert.equal(await nav.getByRole('button', { name: /Menu/ }).isVisible(), false);
      assert.deepEqual(await entriesInView(page), Array(NAV_ENTRIES).fill(true));
      await nav.getByRole('link', { name: 'API tokens' }).click();
      await page.waitForURL(url('/admin/tokens'));
      assert.equal(await nav.getByRole('link', { name: 'API tokens' }).getAttribute('aria-current'), 'page');
    });
  });

  test('390 px: a Menu button opens the entries, Escape closes it, a link is followed by keyboard', async () => {
    await withPage(browser, { viewport: PHONE }, async ({ page }) => {
      await signInAs(page);
      const nav = page.getByRole('navigation', { name: 'Main' });
      const menu = nav.getByRole('button', { name: /^Menu/ });
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      assert.match((await menu.textContent()) ?? '', /Agents$/, 'the button names the current section');
      assert.equal(await nav.getByRole('link', { name: 'API tokens' }).isVisible(), false);
      await checkScreen(page, 'nav-closed');
      // checkScreen ends at desktop width.
      await page.setViewportSize(PHONE);

      await menu.focus();
      await page.keyboard.press('Enter');
      assert.equal(await menu.getAttribute('aria-expanded'), 'true');
      // Every entry is whole on a phone: none is cut off at the edge.
      assert.deepEqual(await entriesInView(page), Array(NAV_ENTRIES).fill(true));
      await checkScreen(page, 'nav-open');
      await page.setViewportSize(PHONE);

      await page.keyboard.press('Tab');
      // The inbox comes first: where the team answers visitors.
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Inbox');
      await page.keyboard.press('Escape');
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('nav-toggle')), true);
      assert.equal(await nav.getByRole('link', { name: 'Two-factor' }).isVisible(), false);

      await page.keyboard.press('Enter');
      await nav.getByRole('link', { name: 'Two-factor' }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(url('/admin/account/two-factor'));
      // Following a link closes the menu; the button now names where you are.
      await page.getByRole('heading', { level: 1 }).waitFor();
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      assert.match((await menu.textContent()) ?? '', /Two-factor$/);
    });
  });
});
