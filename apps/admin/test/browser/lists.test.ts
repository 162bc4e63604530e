import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { insertTokens } from '../../../server/test/support/bulk-rows.js';
import { seedAgent } from '../../../server/test/support/conversations.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  addMember,
  assertAccessible,
  type ConsoleService,
  checkScreen,
  launchBrowser,
  PHONE,
  screenshot,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// Paged lists with 10,000 rows behind them, and the header's workspace switcher, in Chromium
// against the real service. Each test signs in as its own user (5 sign-ins a minute per email).

const PASSWORD = 'correct horse battery';
const ROWS = 10_000;
const PAGE = 25;

describe('admin console: paged lists and the workspace switcher', () => {
  let browser: Browser;
  let service: ConsoleService;
  let big: Tenant;
  let home: Tenant;
  let second: Tenant;

  /** A console user: a member (admin) of each workspace given, the first one their default. */
  async function member(email: string, workspaces: Tenant[]): Promise<void> {
    await addMember(
      service.t,
      { email, password: PASSWORD },
      workspaces.map((w) => w.workspace.id),
    );
  }

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    big = await seedTenant(service.t, 'Ten Thousand Tokens');
    await insertTokens(service.t.database.db, big.workspace.id, ROWS);
    await member('lists@example.com', [big]);
    home = await seedTenant(service.t, 'Alpha Bakery');
    second = await seedTenant(service.t, 'Beta Books');
    await seedAgent(service.t, home.workspace.id, 'Bakery helper');
    await seedAgent(service.t, second.workspace.id, 'Books helper');
    await member('switcher@example.com', [home, second]);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const url = (path: string) => `${service.base}${path}`;

  const signInAs = (page: Page, email: string) => signIn(page, service.base, { email, password: PASSWORD });

  const tokenTitles = (page: Page) => page.locator('ul[aria-label="Tokens"] > li h2').allTextContents();

  test('with 10,000 tokens the list shows the first page and loads the next on request', async () => {
    await withPage(browser, {}, async ({ page }) => {
      const listed: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/api/v1/admin/tokens') listed.push(request.url());
      });
      await signInAs(page, 'lists@example.com');
      await page.getByRole('link', { name: 'API tokens' }).click();
      await page.getByText(`Showing the first ${PAGE} tokens.`).waitFor();
      const first = await tokenTitles(page);
      // Newest first: the last bulk tokens made, down from the 10,000th.
      const newest = (from: number) => Array.from({ length: PAGE }, (_, i) => `Bulk token ${from - i}`);
      assert.deepEqual(first, newest(ROWS));
      await checkScreen(page, 'tokens-paged');

      // By keyboard: the button is reachable and works with Enter.
      const more = page.getByRole('button', { name: 'Load more tokens' });
      await more.focus();
      await page.keyboard.press('Enter');
      await page.getByText(`Showing the first ${PAGE * 2} tokens.`).waitFor();
      const both = await tokenTitles(page);
      assert.equal(both.length, PAGE * 2);
      assert.deepEqual(both.slice(0, PAGE), first);
      assert.equal(new Set(both).size, both.length, 'no token twice');
      assert.deepEqual(both.slice(PAGE), newest(ROWS - PAGE));
      // Each request asked for one page, never the whole list.
      assert.ok(listed.length >= 2);
      for (const request of listed) assert.equal(new URL(request).searchParams.get('limit'), String(PAGE));
      assert.ok(new URL(listed.at(-1) ?? '').searchParams.get('cursor'));
    });
  });

  test('a user in two workspaces switches from the header and sees the other workspace’s agents', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signInAs(page, 'switcher@example.com');
      await page.getByRole('heading', { name: 'Bakery helper' }).waitFor();
      const toggle = page.getByRole('button', { name: /Workspace: Alpha Bakery/ });
      await toggle.waitFor();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');

      // Keyboard: open, Escape closes and gives the focus back.
      await toggle.focus();
      await page.keyboard.press('Enter');
      const list = page.locator('#workspace-list');
      await list.waitFor();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      await page.keyboard.press('Escape');
      await list.waitFor({ state: 'detached' });
      assert.equal(
        await page.evaluate(() => document.activeElement?.textContent ?? ''),
        await toggle.textContent(),
      );

      await toggle.click();
      await list.waitFor();
      await assertAccessible(page, 'workspace switcher (open)');
      await screenshot(page, 'workspace-switcher-desktop');
      await page.setViewportSize(PHONE);
      await screenshot(page, 'workspace-switcher-phone');
      await assertAccessible(page, 'workspace switcher (open, phone)');

      await list.getByRole('button', { name: /Beta Books/ }).click();
      await page.getByRole('heading', { name: 'Books helper' }).waitFor();
      assert.equal(page.url(), url('/admin/agents'));
      assert.equal(await page.getByRole('heading', { name: 'Bakery helper' }).count(), 0);
      await page.getByRole('button', { name: /Workspace: Beta Books/ }).waitFor();
      await checkScreen(page, 'agents-switched');
    });
  });
});
