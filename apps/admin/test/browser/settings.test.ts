import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Tenant } from '../../../server/test/support/test-app.js';
import { type SettingsFixture, startSettingsFixture } from './support/agent-settings.js';
import { type ConsoleService, checkScreen, withPage } from './support/console.js';

// An agent's settings in Chromium against the real service: instructions and allowed sites
// (checked as typed with the contract's origin parser, `*` called out), saved and read back; the
// welcome and the site's colour; the service's own 422 next to its field; behaviour rules added,
// refused, removed and saved. The live preview has its own file (settings-preview.test.ts).

describe('admin console: agent settings', () => {
  let fixture: SettingsFixture;
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let agentId = '';
  let shopOrigin = '';

  before(async () => {
    fixture = await startSettingsFixture();
    ({ browser, service, tenant, agentId, shopOrigin } = fixture);
  });
  after(async () => {
    await fixture?.close();
  });

  const storedAgent = () => fixture.storedAgent();
  const openSettings = (page: Page) => fixture.openSettings(page);

  test('instructions and allowed sites: a bad origin is named, * is warned about, saved values come back', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await openSettings(page);
      await page.getByText('All changes saved').waitFor();
      await page
        .getByLabel('Instructions')
        .fill('You are the friendly assistant of Acme Coffee. Answer briefly.');
      await page.getByRole('status').getByText('Unsaved changes').waitFor();

      const origins = page.getByLabel('Allowed sites');
      await origins.fill('https://shop.example.com\nshop.example.com/path');
      const originError = page.locator('#field-allowed_origins-error');
      await originError.getByText(/Line 2: “shop\.example\.com\/path” is not an origin/).waitFor();
      assert.equal(await origins.getAttribute('aria-invalid'), 'true');
      await page.getByRole('button', { name: 'Save' }).click();
      await page
        .getByRole('alert')
        .getByText(/Some fields need a change/)
        .waitFor();
      assert.deepEqual((await storedAgent()).allowed_origins, [], 'nothing sent');

      await origins.fill('https://shop.example.com\n*');
      await originError.waitFor({ state: 'detached' });
      await page.getByText('* allows any site.').waitFor();
      await checkScreen(page, 'agent-settings-wildcard');

      await origins.fill('https://Shop.Example.com/\nhttps://blog.example.com:8443');
      assert.equal(await page.getByText('* allows any site.').count(), 0, 'the warning goes with the *');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      // The service normalised the origins; the form shows what it stored.
      assert.equal(await origins.inputValue(), 'https://shop.example.com\nhttps://blog.example.com:8443');

      await page.reload();
      await page.getByLabel('Instructions').waitFor();
      assert.equal(
        await page.getByLabel('Instructions').inputValue(),
        'You are the friendly assistant of Acme Coffee. Answer briefly.',
      );
      assert.equal(
        await page.getByLabel('Allowed sites').inputValue(),
        'https://shop.example.com\nhttps://blog.example.com:8443',
      );
    });
    const agent = await storedAgent();
    assert.equal(agent.system_prompt, 'You are the friendly assistant of Acme Coffee. Answer briefly.');
    // One save, of the fields edited only: the audit record names them.
    const audits = await service.t.database.db
      .selectFrom('audit_logs')
      .select(['metadata'])
      .where('action', '=', 'agent.updated')
      .where('target_id', '=', agentId)
      .execute();
    assert.deepEqual(
      audits.map((row) => row.metadata),
      [{ fields: ['allowed_origins', 'system_prompt'] }],
    );
    assert.deepEqual(agent.allowed_origins, ['https://shop.example.com', 'https://blog.example.com:8443']);
  });

  test('the welcome (at most four starters, saved and shown again) and “Use my site’s colour” (read into the form, unsaved)', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await openSettings(page);
      await page.getByText('All changes saved').waitFor();
      const greeting = page.getByLabel('Greeting');
      assert.equal(
        await greeting.inputValue(),
        'Hi! How can I help you today?',
        'a new agent has a greeting',
      );
      await greeting.fill('Welcome to Acme Coffee!');
      const starters = page.getByLabel('Starter questions');
      await starters.fill(
        'Which beans for espresso?\nHow fresh is it?\nDo you ship abroad?\nReturns?\nGift cards?',
      );
      await page.getByRole('button', { name: 'Save' }).click();
      await page
        .locator('[id="field-welcome.starters-error"]')
        .getByText(/at most 4 questions/)
        .waitFor();
      assert.equal(await starters.getAttribute('aria-invalid'), 'true');
      assert.equal((await storedAgent()).welcome.greeting, 'Hi! How can I help you today?', 'nothing sent');
      await checkScreen(page, 'agent-settings-welcome');

      await starters.fill('Which beans for espresso?\n\nDo you ship abroad?');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      await page.reload();
      await page.getByLabel('Greeting').waitFor();
      assert.equal(await page.getByLabel('Greeting').inputValue(), 'Welcome to Acme Coffee!');
      assert.equal(
        await page.getByLabel('Starter questions').inputValue(),
        'Which beans for espresso?\nDo you ship abroad?',
      );
    });
    const { welcome } = await storedAgent();
    assert.equal(welcome.greeting, 'Welcome to Acme Coffee!');
    assert.deepEqual(welcome.starters, ['Which beans for espresso?', 'Do you ship abroad?']);

    // One sign-in per test: the login limit is 5 a minute. The site colour on the same agent:
    const patched = await service.t.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/agents/${agentId}`,
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ allowed_origins: [shopOrigin] }),
    });
    assert.equal(patched.statusCode, 200, patched.body);
    await withPage(browser, {}, async ({ page }) => {
      await openSettings(page);
      await page.getByRole('button', { name: 'Use my site’s colour' }).click();
      await page.getByText(/Found #f4c430 on http:\/\/127\.0\.0\.1/).waitFor();
      assert.equal(await page.getByLabel('Main colour', { exact: true }).inputValue(), '#f4c430');
      await page.getByRole('status').getByText('Unsaved changes').waitFor();
      await checkScreen(page, 'agent-settings-site-colour');
    });
    assert.notEqual((await storedAgent()).theme.primary, '#f4c430', 'nothing saved until Save');
  });

  test('the service’s own 422 lands next to the field it names, and nothing is stored', async () => {
    const before = await storedAgent();
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await openSettings(page);
        // The form checks with the same schema as the service, so only an altered request can
        // reach the service's check: the body is changed in flight, the real service answers.
        await page.route(`**/api/v1/admin/agents/${agentId}`, async (route) => {
          const request = route.request();
          if (request.method() !== 'PATCH') return route.continue();
          const body = JSON.parse(request.postData() ?? '{}');
          body.theme = { ...body.theme, primary: 'blue' };
          return route.continue({ postData: JSON.stringify(body) });
        });
        await page.getByLabel('Name', { exact: true }).fill('Shop helper 2');
        await page.getByRole('button', { name: 'Save' }).click();
        await page
          .locator('[id="field-theme.primary-error"]')
          .getByText(/hex colour/)
          .waitFor();
        await page.getByRole('alert').waitFor();
        assert.equal(
          await page.getByLabel('Main colour', { exact: true }).getAttribute('aria-invalid'),
          'true',
        );
      },
      /^(401 GET \/api\/v1\/admin\/session|422 PATCH \/api\/v1\/admin\/agents\/[^/]+)$/,
    );
    assert.deepEqual(await storedAgent(), before);
  });

  test('behaviour rules and features: added, refused, removed, saved; Reset drops unsaved rules', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await openSettings(page);
      await page.getByText('No rules: the chat waits to be opened.').waitFor();
      const rules = page.getByRole('list', { name: 'Behaviour rules' }).locator('> li');
      const add = page.getByRole('button', { name: 'Add rule' });

      await add.click();
      await rules.nth(0).getByLabel('Message').fill('Need help choosing a coffee?');
      await add.click();
      const second = rules.nth(1);
      await second.getByLabel('When').selectOption('scroll');
      await second.getByLabel('Percent of the page').fill('150');
      await second.getByLabel('Then').selectOption('open');
      await add.click();
      const third = rules.nth(2);
      await third.getByLabel('When').selectOption('exit_intent');
      await third.getByLabel('Message').fill('Before you go: 10% off your first order.');
      await page.getByLabel('Human handoff').uncheck();

      await page.getByRole('button', { name: 'Save' }).click();
      await second.getByText('Scroll depth is a percentage (1–100).').waitFor();
      // The first field to fix has the focus.
      await page.waitForFunction(() => document.activeElement?.id === 'field-behavior_rules.1.threshold');
      assert.deepEqual((await storedAgent()).behavior_rules, [], 'nothing sent');
      await second.getByLabel('Percent of the page').fill('50');
      await page.getByRole('button', { name: 'Remove rule 1' }).click();
      assert.equal(await rules.count(), 2);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      await checkScreen(page, 'agent-settings-rules');

      // Up to ten (added by keyboard); Reset brings back what is stored.
      await add.focus();
      for (let count = 2; count < 10; count += 1) await page.keyboard.press('Enter');
      assert.equal(await rules.count(), 10);
      assert.equal(await add.isDisabled(), true, 'no eleventh rule');
      await page.getByText('At most 10 rules.').waitFor();
      await page.getByRole('button', { name: 'Reset' }).click();
      assert.equal(await rules.count(), 2);
      await page.getByRole('status').getByText('Changes discarded.').waitFor();
    });
    const agent = await storedAgent();
    assert.deepEqual(agent.behavior_rules, [
      { trigger: 'scroll', threshold: 50, action: 'open' },
      { trigger: 'exit_intent', action: 'message', message: 'Before you go: 10% off your first order.' },
    ]);
    assert.deepEqual(agent.widget_features, { leads: true, human: false, satisfaction: true });
  });
});
