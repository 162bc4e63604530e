import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { runPlanCommand } from '../../../server/test/support/billing.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  addMember,
  type ConsoleService,
  checkScreen,
  createAgentAs,
  DESKTOP,
  launchBrowser,
  PHONE,
  screenshot,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The Platform page and "View as…" in Chromium against the real service: an operator lists the
// workspaces, changes a plan, views the console as a member (a banner on every screen, secrets
// refused), and ends it back in their own session; a member sees no Platform page. Checked at
// 1280 and 390 px and in dark colours.

const PASSWORD = 'correct horse battery';
const STAFF = { email: 'sam@corner-bakery.example', password: PASSWORD };

describe('admin console: platform operators', () => {
  let browser: Browser;
  let service: ConsoleService;
  let root: Tenant;
  let bakery: Tenant;
  /** The operator's cookies: this file signs each user in once (the 5-a-minute login limit). */
  let operatorCookies: Awaited<ReturnType<BrowserContext['cookies']>> | null = null;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    root = await seedTenant(service.t, 'Platform HQ');
    bakery = await seedTenant(service.t, 'Corner Bakery');
    await seedTenant(service.t, 'Hillside Books');
    await createAgentAs(service.t, bakery, 'Bread helper');
    await addMember(service.t, STAFF, [bakery.workspace.id]);
    await runPlanCommand(service.t, 'plan:set', { key: 'pro', name: 'Pro', agents: '20' });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const planOf = async (workspaceId: string) =>
    (
      await service.t.database.db
        .selectFrom('workspaces')
        .select('plan_key')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).plan_key;
  const auditActions = async (workspaceId: string) =>
    (
      await service.t.database.db
        .selectFrom('audit_logs')
        .select(['action', 'actor_id', 'on_behalf_of_user_id'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('id')
        .execute()
    ).filter((row) => row.action.startsWith('impersonation.') || row.action === 'plan.changed');

  test('an operator lists every workspace and changes a plan', async () => {
    await withPage(browser, { viewport: DESKTOP }, async ({ page }) => {
      await signIn(page, service.base, { email: root.user.email, password: PASSWORD });
      await page.getByRole('link', { name: 'Platform' }).click();
      await page.waitForURL(`${service.base}/admin/platform`);
      await page.getByRole('heading', { name: 'Platform', exact: true }).waitFor();
      const cards = page.getByRole('list', { name: 'Workspaces' }).getByRole('listitem');
      await cards.first().waitFor();
      const names = await page
        .getByRole('list', { name: 'Workspaces' })
        .getByRole('heading')
        .allTextContents();
      assert.deepEqual(names, ['Hillside Books', 'Corner Bakery', 'Platform HQ']);
      const card = page
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { name: 'Corner Bakery' }) });
      assert.match((await card.textContent()) ?? '', /Members\s*2/);
      await checkScreen(page, 'platform');

      await card.getByLabel('Plan of Corner Bakery').selectOption('pro');
      await card.getByRole('button', { name: 'Change plan' }).click();
      await card.getByText('Now on Pro.').waitFor();
      assert.equal(await planOf(bakery.workspace.id), 'pro');
      operatorCookies = await page.context().cookies();
    });
  });

  test('View as…: a reason is required; the banner is on every screen; secrets are refused; End returns', async () => {
    assert.ok(operatorCookies, 'the first test signed the operator in');
    await withPage(
      browser,
      { viewport: DESKTOP },
      async ({ page }) => {
        await page.context().addCookies(operatorCookies ?? []);
        await page.goto(`${service.base}/admin/platform`);
        const card = page
          .getByRole('listitem')
          .filter({ has: page.getByRole('heading', { name: 'Corner Bakery' }) });
        await card.getByRole('button', { name: 'View as…' }).click();
        await card.getByLabel('Member').selectOption({ label: `${STAFF.email} (admin)` });
        await card.getByRole('button', { name: 'Start viewing' }).click();
        await card.getByText('Say why you need to view as this member.').waitFor();
        await card.getByLabel('Reason').fill('Ticket 4711: the widget shows no answers');
        await screenshot(page, 'platform-view-as-desktop');
        await card.getByRole('button', { name: 'Start viewing' }).click();
        await page.waitForURL(`${service.base}/admin/agents`);

        const banner = page.getByRole('region', { name: 'Viewing as a member' });
        await banner.waitFor();
        assert.match(
          (await banner.textContent()) ?? '',
          /Viewing as sam@corner-bakery\.example — Corner Bakery, ends in 30 min/,
        );
        await page.getByRole('link', { name: 'Bread helper' }).first().waitFor();
        assert.equal(
          await page.getByRole('link', { name: 'Platform' }).count(),
          0,
          'no Platform entry in it',
        );
        assert.equal(
          await page.getByRole('button', { name: 'Sign out' }).count(),
          0,
          'End replaces sign-out',
        );
        await checkScreen(page, 'impersonation');

        // Another screen: the banner stays; creating an API token is refused with the reason.
        await page.getByRole('link', { name: 'API tokens' }).click();
        await page.waitForURL(`${service.base}/admin/tokens`);
        await banner.waitFor();
        await page.getByRole('button', { name: 'New token' }).click();
        await page.getByLabel('Name').fill('Sneaky');
        await page.getByRole('button', { name: 'Create token' }).click();
        await page.getByText(/Not while viewing as a member/).waitFor();
        const tokens = await service.t.database.db.selectFrom('api_tokens').select('name').execute();
        assert.ok(!tokens.some((row) => row.name === 'Sneaky'));

        // On a phone the banner still shows, End included.
        await page.setViewportSize(PHONE);
        await page.getByRole('button', { name: 'End' }).waitFor();
        await page.setViewportSize(DESKTOP);

        await banner.getByRole('button', { name: 'End' }).click();
        await banner.waitFor({ state: 'detached' });
        await page.getByText(root.user.email).waitFor();
        await page.getByRole('link', { name: 'Platform' }).waitFor();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        operatorCookies = await page.context().cookies();
      },
      /^(401 GET \/api\/v1\/admin\/session|403 POST \/api\/v1\/admin\/tokens)$/,
    );
    const trail = await auditActions(bakery.workspace.id);
    const staff = await service.t.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', STAFF.email)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      trail.map((row) => [row.action, row.actor_id, row.on_behalf_of_user_id]),
      [
        ['plan.changed', root.user.id, null],
        ['impersonation.started', root.user.id, staff.id],
        ['impersonation.ended', root.user.id, staff.id],
      ],
    );
  });

  test('past its end the service answers 401 and the console returns the operator to their own session', async () => {
    assert.ok(operatorCookies, 'the operator is signed in');
    await withPage(
      browser,
      { viewport: DESKTOP },
      async ({ page }) => {
        await page.context().addCookies(operatorCookies ?? []);
        await page.goto(`${service.base}/admin/platform`);
        const card = page
          .getByRole('listitem')
          .filter({ has: page.getByRole('heading', { name: 'Corner Bakery' }) });
        await card.getByRole('button', { name: 'View as…' }).click();
        await card.getByLabel('Reason').fill('Ticket 4712');
        await card.getByRole('button', { name: 'Start viewing' }).click();
        const banner = page.getByRole('region', { name: 'Viewing as a member' });
        await banner.waitFor();
        // The 30 minutes pass (the service's clock is the system's here: move the end instead).
        await service.t.database.db
          .updateTable('admin_sessions')
          .set({ expires_at: new Date(Date.now() - 1_000) })
          .where('impersonator_user_id', 'is not', null)
          .execute();
        await page.getByRole('link', { name: 'Knowledge base' }).click();
        await banner.waitFor({ state: 'detached' });
        await page.getByText(root.user.email).waitFor();
        await page.getByRole('link', { name: 'Platform' }).waitFor();
        assert.equal(await page.getByText('Your session ended').count(), 0);
      },
      /^401 (GET|POST|DELETE) \/api\/v1\/admin\/.*$/,
    );
    const ended = await auditActions(bakery.workspace.id);
    assert.equal(ended.at(-1)?.action, 'impersonation.ended');
  });

  test('a member sees no Platform entry and finds nothing at its address', async () => {
    await withPage(browser, { viewport: DESKTOP }, async ({ page }) => {
      await signIn(page, service.base, STAFF);
      await page.getByRole('heading', { name: 'Agents' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Platform' }).count(), 0);
      await page.goto(`${service.base}/admin/platform`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      assert.equal(await page.getByRole('region', { name: 'Viewing as a member' }).count(), 0);
    });
  });
});
