import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type TAgent, ZAgent } from '@service/contract';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  checkScreen,
  createAgentAs,
  DESKTOP,
  launchBrowser,
  PHONE,
  screenshot,
  signIn,
  startConsoleService,
  WAIT_MS,
  withPage,
} from './support/console.js';

// An agent's settings in Chromium against the real service: instructions and allowed sites
// (checked as typed with the contract's origin parser, `*` called out), saved and read back;
// behaviour rules added, refused, removed and saved; and the live preview, the widget bundle
// the service serves in a same-origin frame, following unsaved edits without making a visitor.

const PASSWORD = 'correct horse battery';
const NEW_PRIMARY = '#c2185b';

/** `#rrggbb` as getComputedStyle reports it. */
function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

describe('admin console: agent settings', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let agentId = '';

  // The shop whose theme colour "Use my site's colour" reads (loopback, let through by SAFE_URL_ALLOW).
  let shop: Server;
  let shopOrigin = '';

  before(async () => {
    browser = await launchBrowser();
    shop = createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><meta name="theme-color" content="#f4c430"></head></html>');
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    const address = shop.address();
    shopOrigin = `http://127.0.0.1:${address !== null && typeof address === 'object' ? address.port : 0}`;
    service = await startConsoleService({ SAFE_URL_ALLOW: shopOrigin.replace('http://', '') });
    tenant = await seedTenant(service.t, 'Acme Settings');
    agentId = await createAgentAs(service.t, tenant, 'Shop helper');
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await new Promise((resolve) => shop?.close(resolve));
  });

  const url = (path: string) => `${service.base}${path}`;
  const settingsUrl = () => url(`/admin/agents/${agentId}/settings`);

  /** The agent as the admin API reads it (what was really stored). */
  async function storedAgent(): Promise<TAgent> {
    const res = await service.t.app.inject({ url: `/api/v1/admin/agents/${agentId}`, headers: tenant.auth });
    assert.equal(res.statusCode, 200, res.body);
    return ZAgent.parse(res.json().data);
  }

  async function countRows(table: 'visitors' | 'conversations'): Promise<number> {
    const row = await service.t.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The first session's cookies: this file's tests sign in once and reuse the session, since
   * six sign-ins within a minute would meet the contract's 5-a-minute login limit.
   */
  let session: Awaited<ReturnType<BrowserContext['cookies']>> | null = null;

  /** Signs in (once per file) and opens the settings from the agents list, as an owner would. */
  async function openSettings(page: Page): Promise<void> {
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
    await page.waitForURL(settingsUrl());
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    await page.getByLabel('Name', { exact: true }).waitFor();
  }

  const preview = (page: Page): FrameLocator => page.frameLocator('iframe[title="Widget preview"]');
  const launcherColour = (page: Page) =>
    preview(page)
      .getByTestId('launcher')
      .evaluate((el) => getComputedStyle(el).backgroundColor);

  /** Waits until `read` gives `expected` (the preview follows by postMessage, not at once). */
  async function until<T>(read: () => Promise<T>, expected: T, what: string): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    let last = await read();
    while (last !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      last = await read();
    }
    assert.equal(last, expected, what);
  }

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

  test('the preview shows the served widget and follows an unsaved colour; the stored colour stays', async () => {
    const stored = (await storedAgent()).theme;
    const visitors = await countRows('visitors');
    const conversations = await countRows('conversations');
    let askedBeforeLeaving = false;
    await withPage(browser, {}, async ({ page }) => {
      page.on('dialog', (dialog) => {
        askedBeforeLeaving ||= dialog.type() === 'beforeunload';
        void dialog.accept();
      });
      await openSettings(page);
      const launcher = preview(page).getByTestId('launcher');
      await launcher.waitFor();
      await until(() => launcherColour(page), rgb(stored.primary), 'the stored colour at first');
      const script = await page
        .frameLocator('iframe[title="Widget preview"]')
        .locator('script[data-preview]')
        .getAttribute('src');
      assert.match(script ?? '', /^\/widget\/widget\.js\?v=[0-9a-f]{8}$/, 'the bundle the service serves');

      await page.getByLabel('Main colour', { exact: true }).fill(NEW_PRIMARY);
      await until(() => launcherColour(page), rgb(NEW_PRIMARY), 'the preview follows the typed colour');
      await page.getByLabel('Button text').fill('Ask Acme');
      await launcher.getByText('Ask Acme').waitFor();
      await page.getByLabel('Bottom left').check();
      const frameBox = await page.locator('iframe[title="Widget preview"]').boundingBox();
      await until(
        async () => ((await launcher.boundingBox())?.x ?? 999) - (frameBox?.x ?? 0) < 60,
        true,
        'the launcher moves to the left corner',
      );
      await page.getByLabel('Corner radius').fill('2');
      await launcher.click();
      const panel = preview(page).getByTestId('panel');
      await panel.waitFor();
      await until(
        () => panel.evaluate((el) => getComputedStyle(el).borderTopLeftRadius),
        '2px',
        'the panel takes the radius',
      );
      await preview(page).getByText('Do you ship abroad?').waitFor();
      assert.equal(await preview(page).getByTestId('input').isDisabled(), true, 'nothing can be sent');

      // A message that is not from the console (the frame posting to itself) changes nothing.
      await page
        .frames()
        .find((frame) => frame.url().endsWith('/api/v1/admin/widget-preview'))
        ?.evaluate(() =>
          window.postMessage(
            {
              type: 'service-widget-preview:agent',
              agent: {
                name: 'Forged',
                language_default: null,
                theme: {
                  position: 'bottom-right',
                  primary: '#000000',
                  accent: '#000000',
                  radius: 0,
                  launcher_label: 'x',
                },
                features: { leads: false, human: false, satisfaction: false },
              },
              samples: [],
              note: '',
            },
            location.origin,
          ),
        );
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(await launcherColour(page), rgb(NEW_PRIMARY), 'a forged message is ignored');
      await page.getByRole('status').getByText('Unsaved changes').waitFor();
      await checkScreen(page, 'agent-settings-preview');
      // The pictures for docs/: the top of the form beside the preview on a desktop; on a phone
      // the whole page, scrolled to its end (where the sticky save bar rests in its place).
      await page.setViewportSize({ width: DESKTOP.width, height: 1000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, 'agent-settings-desktop', { fullPage: false });
      await page.setViewportSize(PHONE);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await screenshot(page, 'agent-settings-phone');
      await page.setViewportSize(DESKTOP);

      await page.reload();
      await page.getByLabel('Main colour', { exact: true }).waitFor();
      assert.equal(await page.getByLabel('Main colour', { exact: true }).inputValue(), stored.primary);
      await until(() => launcherColour(page), rgb(stored.primary), 'the stored colour after a reload');
    });
    assert.ok(askedBeforeLeaving, 'leaving with unsaved changes asks first');
    assert.deepEqual((await storedAgent()).theme, stored, 'nothing saved');
    assert.equal(await countRows('visitors'), visitors, 'the preview made no visitor');
    assert.equal(await countRows('conversations'), conversations, 'the preview made no conversation');
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
