import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { createUser } from '../../../server/src/services/accounts/accounts.js';
import { SESSION_COOKIE } from '../../../server/src/services/accounts/admin-sessions.js';
import { createApiToken } from '../../../server/src/services/accounts/api-tokens.js';
import { SETUP_CODE_FILE } from '../../../server/src/services/accounts/setup-code.js';
import {
  type ConsoleService,
  checkScreen,
  launchBrowser,
  startConsoleService,
  WAIT_MS,
  withPage,
} from './support/console.js';

// First run to a working console in Chromium, on a fresh data dir: setup refused without the
// code, setup with it, the agents list, sign-out, sign-in with and without two-factor, the
// login limit, and a session that ends under the user. Every screen is checked with axe-core
// and at 390 px. The tests run in order: each builds on the account the setup made.

const EMAIL = 'owner@example.com';
/**
 * More admins of the workspace: sign-in allows 5 attempts a minute per email and address (a
 * password step and a code step are two), so the later tests sign in as other members.
 */
const TEAMMATE = 'teammate@example.com';
const TWO_FACTOR_USER = 'two-factor@example.com';
const PASSWORD = 'correct horse battery';

describe('admin console: first run, sign-in and agents', () => {
  let browser: Browser;
  let service: ConsoleService;
  let adminToken = '';
  let workspaceId = '';

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const url = (path: string) => `${service.base}${path}`;
  const sessionCount = async () =>
    (await service.t.database.db.selectFrom('admin_sessions').select('id').execute()).length;
  const userCount = async () =>
    (await service.t.database.db.selectFrom('users').select('id').execute()).length;

  async function fillSetup(page: Page, code: string): Promise<void> {
    await page.getByLabel('Setup code').fill(code);
    await page.getByLabel('Your email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Workspace name').fill('Acme Coffee');
    await page.getByRole('button', { name: 'Create account' }).click();
  }

  async function signInWithPassword(page: Page, password = PASSWORD, email = EMAIL): Promise<void> {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  test('the root sends a browser to setup, and setup is refused without the right code', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url('/'));
        await page.waitForURL(url('/admin/setup'));
        await page.getByRole('heading', { name: 'Set up the service' }).waitFor();
        await checkScreen(page, 'setup');

        await fillSetup(page, '');
        await page.locator('#field-setup_code-error').getByText('Enter the setup code').waitFor();
        await fillSetup(page, 'AAAA-BBBB-CCCC-DDDD');
        await page.locator('#field-setup_code-error').getByText('That is not the setup code').waitFor();
        assert.equal(await page.getByLabel('Setup code').getAttribute('aria-invalid'), 'true');
        await checkScreen(page, 'setup-wrong-code');
      },
      /^(401 GET \/api\/v1\/admin\/session|403 POST \/api\/v1\/admin\/setup)$/,
    );
    assert.equal(await userCount(), 0, 'no user without the code');
    assert.ok(existsSync(join(service.t.config.dataDir, SETUP_CODE_FILE)));
  });

  test('setup with the code signs in; the empty list leads to the wizard, which ends with the snippet', async () => {
    await withPage(browser, { permissions: ['clipboard-read', 'clipboard-write'] }, async ({ page }) => {
      await page.goto(url('/admin/'));
      await page.waitForURL(url('/admin/setup'));
      await fillSetup(page, service.setupCode.toLowerCase());
      await page.waitForURL(url('/admin/agents'));
      await page.getByRole('heading', { name: 'No agents yet' }).waitFor();
      await page.getByText('Acme Coffee').waitFor();
      await checkScreen(page, 'agents-empty');

      await page.getByRole('link', { name: 'Create your first agent' }).click();
      await page.waitForURL(url('/admin/agents/new'));
      // Keyboard only: each step's heading has the focus; Tab reaches the field, Enter goes on.
      await page.getByRole('heading', { name: 'What should the agent be called?' }).waitFor();
      await page.waitForFunction(
        () => document.activeElement?.textContent === 'What should the agent be called?',
      );
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'field-name');
      await page.keyboard.press('Enter');
      await page.locator('#field-name-error').getByText('Name the agent.').waitFor();
      await page.keyboard.type('Shop helper');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Where will it answer?' }).waitFor();
      await page.waitForFunction(() => document.activeElement?.textContent === 'Where will it answer?');
      await page.getByLabel('Your site’s address').fill('not a site');
      await page.keyboard.press('Enter');
      await page.locator('[id="field-allowed_origins.0-error"]').waitFor();
      // Any page of the site will do: its origin is what is allowed.
      await page.getByLabel('Your site’s address').fill('shop.example/products?page=2');
      // Reading the site is a crawl job; this test's queue runs none, and it stays off the network.
      await page.getByLabel('Read its pages now').uncheck();
      await checkScreen(page, 'new-agent-site');
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('heading', { name: 'How should the chat button look?' }).waitFor();
      await page.getByLabel('Button text').fill('Ask us');
      await page.getByLabel('Colour').fill('#aa3300');
      await page.getByLabel('Bottom left').check();
      await checkScreen(page, 'new-agent-appearance');
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.getByRole('heading', { name: 'Your agent is live' }).waitFor();
      const snippet = await page.locator('.snippet code').textContent();
      assert.match(snippet ?? '', /^<script src="[^"]*\/widget\/widget\.js[^"]*" data-agent-id="[^"]+"/);
      await page.getByRole('button', { name: 'Copy snippet' }).click();
      await page.getByRole('status').getByText('Copied.').waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippet);
      // "Check my page": the same origin rule as widget init.
      await page.getByLabel('Page address').fill('https://shop.example/contact?x=1');
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await page.getByText('Allowed: the chat loads on https://shop.example/contact?x=1').waitFor();
      await page.getByLabel('Page address').fill('http://shop.example/contact');
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await page.getByRole('alert').getByText('Not allowed: that page is on http://shop.example').waitFor();
      await page.getByLabel('Page address').fill('not a page');
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await page.getByRole('alert').getByText('Enter a page address').waitFor();
      await page.getByLabel('Page address').fill('shop.example/about');
      await page.keyboard.press('Enter');
      await page.getByText('Allowed: the chat loads on https://shop.example/about').waitFor();
      await checkScreen(page, 'new-agent-embed');
      await page.getByRole('link', { name: 'Done' }).click();
      await page.waitForURL(url('/admin/agents'));
      await page.locator('.agent-card', { hasText: 'Shop helper' }).waitFor();
    });
    const agent = await service.t.database.db
      .selectFrom('agents')
      .select(['name', 'is_published', 'allowed_origins', 'theme'])
      .executeTakeFirstOrThrow();
    assert.equal(agent.name, 'Shop helper');
    assert.equal(agent.is_published, true);
    assert.deepEqual(agent.allowed_origins, ['https://shop.example']);
    const { primary, position, launcher_label } = agent.theme;
    assert.deepEqual(
      { primary, position, launcher_label },
      { primary: '#aa3300', position: 'bottom-left', launcher_label: 'Ask us' },
    );
    assert.equal(await userCount(), 1);
    assert.equal(existsSync(join(service.t.config.dataDir, SETUP_CODE_FILE)), false, 'the code is used up');
    const user = await service.t.database.db
      .selectFrom('users')
      .select(['id', 'default_workspace_id'])
      .executeTakeFirstOrThrow();
    workspaceId = user.default_workspace_id ?? '';
    const token = await createApiToken(
      { db: service.t.database.db, clock: service.t.clock, workspaceId, actor: { type: 'cli', id: null } },
      { name: 'browser test', abilities: ['admin'] },
    );
    adminToken = token.token;
    for (const email of [TEAMMATE, TWO_FACTOR_USER]) {
      const member = await createUser(
        service.t.database.db,
        { email, password: PASSWORD, bcryptCost: service.t.config.bcryptCost },
        { role: 'user', defaultWorkspaceId: workspaceId },
      );
      await service.t.database.db
        .insertInto('memberships')
        .values({ workspace_id: workspaceId, user_id: member.id, role: 'admin' })
        .execute();
    }
  });

  test('the agents list shows status, allowed sites and knowledge; sign-out ends the session', async () => {
    const auth = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
    const created = await service.t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/agents',
      headers: auth,
      payload: JSON.stringify({ name: 'Support bot' }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const source = await service.t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/agents/${created.json().data.id}/sources`,
      headers: auth,
      payload: JSON.stringify({ type: 'text', name: 'Shipping', text: 'We ship in two days.' }),
    });
    assert.equal(source.statusCode, 201, source.body);

    await withPage(browser, {}, async ({ page }) => {
      await page.goto(url('/admin/agents'));
      await page.waitForURL(/\/admin\/sign-in\?next=%2Fadmin%2Fagents$/);
      await signInWithPassword(page);
      await page.waitForURL(url('/admin/agents'));
      const helper = page.locator('.agent-card', { hasText: 'Shop helper' });
      await helper.getByText('Published', { exact: true }).waitFor();
      await helper.getByText('https://shop.example').waitFor();
      await helper.getByText('None yet: add pages, files or text').waitFor();
      const bot = page.locator('.agent-card', { hasText: 'Support bot' });
      await bot.getByText('Not published').waitFor();
      await bot.getByText('None yet: the widget loads on no site.').waitFor();
      await bot.getByText(/^1 source, 1 document/).waitFor();
      await checkScreen(page, 'agents');

      const before = await sessionCount();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(url('/admin/sign-in'));
      const cookies = await page.context().cookies(service.base);
      assert.equal(cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value ?? '', '');
      assert.equal(await sessionCount(), before - 1, 'signing out deleted the session');
      await page.goto(url('/admin/agents'));
      await page.waitForURL(/\/admin\/sign-in\?next=/);
    });
  });

  test('sign-in by keyboard: a wrong password is said plainly, the right one opens the page asked for', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url('/admin/agents'));
        await page.waitForURL(/\/admin\/sign-in\?next=%2Fadmin%2Fagents$/);
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        await checkScreen(page, 'sign-in');
        // The email field has the focus on arrival; Tab moves on to the password.
        await page.getByLabel('Email').focus();
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'field-email');
        await page.keyboard.type(EMAIL);
        await page.keyboard.press('Tab');
        await page.keyboard.type('not the password');
        await page.keyboard.press('Enter');
        await page.getByRole('alert').getByText('The email or password is not right.').waitFor();
        await page.getByLabel('Password').fill('');
        await page.getByLabel('Password').focus();
        await page.keyboard.type(PASSWORD);
        await page.keyboard.press('Enter');
        await page.waitForURL(url('/admin/agents'));
        await page.getByRole('heading', { name: 'Agents', exact: true }).waitFor();
        // The first Tab on a signed-in page reaches the skip link.
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
      },
      /^(401 GET \/api\/v1\/admin\/session|401 POST \/api\/v1\/admin\/session)$/,
    );
  });

  test('a session that ends under the user returns to sign-in, then back to the same page', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url('/admin/agents'));
        await signInWithPassword(page, PASSWORD, TEAMMATE);
        await page.waitForURL(url('/admin/agents'));
        // Each navigation reads the plan for the banner; the session ends only once that read is
        // answered, or its 401 would be the one that sends the user to sign-in.
        const planRead = page.waitForResponse((response) => response.url().endsWith('/api/v1/admin/plan'));
        await page.getByRole('link', { name: 'New agent' }).click();
        await page.waitForURL(url('/admin/agents/new'));
        await planRead;
        await page.getByLabel('Agent name').waitFor();
        // The session ends (expired, or revoked elsewhere) while the page is open.
        await service.t.database.db.deleteFrom('admin_sessions').execute();
        await page.getByLabel('Agent name').fill('Too late');
        await page.getByRole('button', { name: 'Next' }).click();
        await page.getByRole('button', { name: 'Next' }).click();
        await page.getByRole('button', { name: 'Create agent' }).click();
        await page.waitForURL(/\/admin\/sign-in\?next=%2Fadmin%2Fagents%2Fnew$/);
        await page.getByText('Your session ended.').waitFor();
        await signInWithPassword(page, PASSWORD, TEAMMATE);
        await page.waitForURL(url('/admin/agents/new'));
        await page.getByRole('heading', { name: 'What should the agent be called?' }).waitFor();
      },
      /^(401 GET \/api\/v1\/admin\/session|401 POST \/api\/v1\/admin\/agents)$/,
    );
  });

  test('the login limit shows a wait with the seconds from Retry-After, and blocks the button', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url('/admin/sign-in'));
        for (let attempt = 1; attempt <= 5; attempt += 1) {
          await signInWithPassword(page, `wrong ${attempt}`, 'someone@example.com');
          await page.getByText('The email or password is not right.').waitFor();
        }
        await signInWithPassword(page, 'wrong 6', 'someone@example.com');
        await page.getByText(/^Too many attempts\. Try again in \d+ seconds?\.$/).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Sign in' }).isDisabled(), true);
        await checkScreen(page, 'sign-in-wait');
      },
      /^(401 GET \/api\/v1\/admin\/session|401 POST \/api\/v1\/admin\/session|429 POST \/api\/v1\/admin\/session)$/,
    );
  });

  test('with two-factor on: the code step after the password, and a recovery code instead', async () => {
    // Turned on through the two-factor admin API, in a session of its own.
    const signIn = await service.t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/session',
      remoteAddress: '10.9.0.1',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: TWO_FACTOR_USER, password: PASSWORD }),
    });
    assert.equal(signIn.statusCode, 200, signIn.body);
    const secretCookie = signIn.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value ?? '';
    const headers = {
      cookie: `${SESSION_COOKIE}=${secretCookie}`,
      'x-csrf-token': signIn.json().data.csrf_token,
      'content-type': 'application/json',
    };
    const setup = await service.t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/me/two-factor',
      headers,
      payload: '{}',
    });
    assert.equal(setup.statusCode, 200, setup.body);
    const secret: string = setup.json().data.secret;
    const nowSeconds = () => Math.floor(Date.now() / 1000);
    const confirm = await service.t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/me/two-factor/confirm',
      headers,
      payload: JSON.stringify({ code: await generate({ secret, epoch: nowSeconds() }) }),
    });
    assert.equal(confirm.statusCode, 200, confirm.body);
    const recovery: string[] = confirm.json().data.recovery_codes;
    const expected = /^(401 GET \/api\/v1\/admin\/session|422 POST \/api\/v1\/admin\/session)$/;

    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url('/admin/sign-in'));
        await signInWithPassword(page, PASSWORD, TWO_FACTOR_USER);
        await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
        await checkScreen(page, 'sign-in-code');
        // A code is used once: the one confirming was this period's, so sign in with the next
        // period's (the service accepts one period either side).
        await page
          .getByLabel('Authenticator code')
          .fill(await generate({ secret, epoch: nowSeconds() + 30 }));
        await page.getByRole('button', { name: 'Verify' }).click();
        await page.waitForURL(url('/admin/agents'), { timeout: WAIT_MS });
      },
      expected,
    );

    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url('/admin/sign-in'));
        await signInWithPassword(page, PASSWORD, TWO_FACTOR_USER);
        await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
        await page.getByLabel('Recovery code').fill(recovery[0] ?? '');
        await checkScreen(page, 'sign-in-recovery');
        await page.getByRole('button', { name: 'Verify' }).click();
        await page.waitForURL(url('/admin/agents'));
      },
      expected,
    );
  });
});
