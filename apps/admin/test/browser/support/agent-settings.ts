import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { type TAgent, ZAgent } from '@service/contract';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { seedTenant, type Tenant } from '../../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  createAgentAs,
  launchBrowser,
  signIn,
  startConsoleService,
  WAIT_MS,
} from './console.js';

// What the agent settings' browser tests share: a service with one tenant and agent, a shop whose
// theme colour "Use my site's colour" reads, and helpers to open the settings and read back what
// was stored.

const PASSWORD = 'correct horse battery';

/** `#rrggbb` as getComputedStyle reports it. */
export function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

export type SettingsFixture = Awaited<ReturnType<typeof startSettingsFixture>>;

/** Starts Chromium, a shop on loopback and the service (which may read the shop), with one agent. */
export async function startSettingsFixture() {
  const browser: Browser = await launchBrowser();
  const shop: Server = createServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<html><head><meta name="theme-color" content="#f4c430"></head></html>');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const address = shop.address();
  const shopOrigin = `http://127.0.0.1:${address !== null && typeof address === 'object' ? address.port : 0}`;
  const service: ConsoleService = await startConsoleService({
    SAFE_URL_ALLOW: shopOrigin.replace('http://', ''),
  });
  const tenant: Tenant = await seedTenant(service.t, 'Acme Settings');
  const agentId = await createAgentAs(service.t, tenant, 'Shop helper');
  const settingsUrl = `${service.base}/admin/agents/${agentId}/settings`;

  /**
   * The first session's cookies: a file's tests sign in once and reuse the session, since six
   * sign-ins within a minute would meet the contract's 5-a-minute login limit.
   */
  let session: Awaited<ReturnType<BrowserContext['cookies']>> | null = null;

  return {
    browser,
    service,
    tenant,
    agentId,
    shopOrigin,
    settingsUrl,

    /** The agent as the admin API reads it (what was really stored). */
    async storedAgent(): Promise<TAgent> {
      const res = await service.t.app.inject({
        url: `/api/v1/admin/agents/${agentId}`,
        headers: tenant.auth,
      });
      assert.equal(res.statusCode, 200, res.body);
      return ZAgent.parse(res.json().data);
    },

    async countRows(table: 'visitors' | 'conversations'): Promise<number> {
      const row = await service.t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Signs in (once per file) and opens the settings from the agents list, as an owner would. */
    async openSettings(page: Page): Promise<void> {
      if (session) {
        await page.context().addCookies(session);
        await page.goto(`${service.base}/admin/agents`);
      } else {
        await signIn(
          page,
          service.base,
          { email: tenant.user.email, password: PASSWORD },
          { from: '/admin/agents' },
        );
        session = await page.context().cookies();
      }
      await page.getByRole('link', { name: 'Settings of Shop helper' }).click();
      await page.waitForURL(settingsUrl);
      await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
      await page.getByLabel('Name', { exact: true }).waitFor();
    },

    async close(): Promise<void> {
      await browser.close();
      await service.close();
      await new Promise((resolve) => shop.close(resolve));
    },
  };
}

/** The settings page's live preview frame. */
export const preview = (page: Page): FrameLocator => page.frameLocator('iframe[title="Widget preview"]');

/** The preview launcher's background colour. */
export const launcherColour = (page: Page) =>
  preview(page)
    .getByTestId('launcher')
    .evaluate((el) => getComputedStyle(el).backgroundColor);

/** Waits until `read` gives `expected` (the preview follows by postMessage, not at once). */
export async function until<T>(read: () => Promise<T>, expected: T, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  let last = await read();
  while (last !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  assert.equal(last, expected, what);
}
