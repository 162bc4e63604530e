import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { runPlanCommand } from '../../../server/test/support/billing.js';
import { seedTenant } from '../../../server/test/support/test-app.js';
import {
  addMember,
  type ConsoleService,
  checkScreen,
  createAgentAs,
  DESKTOP,
  launchBrowser,
  PHONE,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The plan banner in Chromium against the real service: absent while the workspace is under
// its plan's limits, over every screen once a limit is reached (naming each one), and gone again
// when the workspace is back under it. Checked at 1280 and 390 px and in dark colours.

const PASSWORD = 'correct horse battery';
const AT_LIMIT = { email: 'limited@example.com', password: PASSWORD };
const UNDER = { email: 'roomy@example.com', password: PASSWORD };

describe('admin console: plan limit banner', () => {
  let browser: Browser;
  let service: ConsoleService;
  let limitedAgent: string;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    const limited = await seedTenant(service.t, 'Limited Bakery');
    const roomy = await seedTenant(service.t, 'Roomy Bakery');
    await runPlanCommand(service.t, 'plan:set', {
      key: 'starter',
      name: 'Starter',
      agents: '1',
      messages: '0',
    });
    await runPlanCommand(service.t, 'plan:assign', { workspace: limited.workspace.id, plan: 'starter' });
    limitedAgent = await createAgentAs(service.t, limited, 'Shop assistant');
    await createAgentAs(service.t, roomy, 'Helper');
    await addMember(service.t, AT_LIMIT, [limited.workspace.id]);
    await addMember(service.t, UNDER, [roomy.workspace.id]);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('under every limit: no banner', async () => {
    await withPage(browser, { viewport: DESKTOP }, async ({ page }) => {
      await signIn(page, service.base, UNDER);
      await page.getByRole('heading', { name: 'Agents' }).waitFor();
      assert.equal(await page.getByRole('status', { name: 'Plan limit reached' }).count(), 0);
    });
  });

  test('at the limit: the banner names each limit reached, on every screen, and fits a phone', async () => {
    await withPage(browser, { viewport: DESKTOP }, async ({ page }) => {
      await signIn(page, service.base, AT_LIMIT);
      const banner = page.getByRole('status', { name: 'Plan limit reached' });
      await banner.waitFor();
      const text = (await banner.textContent()) ?? '';
      assert.match(text, /reached a limit of its plan \(Starter\)/);
      assert.match(text, /Agents: 1 of 1\. New agents can't be added\./);
      assert.match(text, /Visitor messages this month: 0 of 0/);
      await checkScreen(page, 'plan-banner-agents');
      await page.setViewportSize(PHONE);
      await page.goto(`${service.base}/admin/agents/${limitedAgent}/knowledge`);
      await banner.waitFor();
      await checkScreen(page, 'plan-banner-knowledge');
    });
  });

  test('the plan and usage page: each limit with its usage, what stops at the limit, the subscription', async () => {
    await withPage(browser, { viewport: DESKTOP }, async ({ page }) => {
      await signIn(page, service.base, AT_LIMIT);
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Plan and usage' })
        .click();
      await page.getByRole('heading', { name: 'Plan and usage', level: 1 }).waitFor();
      await page.getByText('Starter', { exact: true }).waitFor();
      await page.getByText('No subscription').waitFor();
      const limits = page.getByRole('list', { name: 'Limits' });
      const agents = limits
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { name: 'Agents' }) });
      assert.match((await agents.textContent()) ?? '', /1 of 1.*Limit reached\. New agents can't be added\./);
      const bar = agents.getByRole('meter');
      assert.deepEqual([await bar.getAttribute('value'), await bar.getAttribute('max')], ['1', '1']);
      const messages = limits
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { name: 'Visitor messages this month' }) });
      assert.match((await messages.textContent()) ?? '', /0 of 0.*Limit reached/);
      const sources = limits
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { name: 'Knowledge sources' }) });
      assert.match((await sources.textContent()) ?? '', /0 · no limit/);
      assert.equal(await sources.getByRole('meter').count(), 0, 'no bar without a limit');
      await checkScreen(page, 'plan-usage');
    });
  });

  test('back under the limit: the banner goes on the next screen', async () => {
    await runPlanCommand(service.t, 'plan:set', { key: 'starter', agents: '5', messages: 'none' });
    await withPage(browser, { viewport: DESKTOP }, async ({ page }) => {
      await signIn(page, service.base, AT_LIMIT);
      await page.getByRole('heading', { name: 'Agents' }).waitFor();
      await page.waitForLoadState('networkidle');
      assert.equal(await page.getByRole('status', { name: 'Plan limit reached' }).count(), 0);
    });
  });
});
