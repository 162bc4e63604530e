import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { resetLinkOf, storedMailText } from '../../../server/test/support/mail.js';
import { seedTenant } from '../../../server/test/support/test-app.js';
import {
  addMember,
  type ConsoleService,
  checkScreen,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// "Forgot password?" on sign-in, the request page and the page the mailed link opens, in
// Chromium against the real service: each screen checked at 1280 px, 390 px and in dark colours.

const OLD_PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a fresh start 2026';
const EMAIL = 'forgetful@example.com';

describe('admin console: password reset', () => {
  let browser: Browser;
  let service: ConsoleService;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    const tenant = await seedTenant(service.t, 'Acme Tea');
    await addMember(service.t, { email: EMAIL, password: OLD_PASSWORD }, [tenant.workspace.id]);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const url = (path: string) => `${service.base}${path}`;

  /** The reset link of the newest mail to EMAIL, pointed at this test's service. */
  async function mailedLink(): Promise<{ path: string; token: string }> {
    const mail = await service.t.database.db
      .selectFrom('mail_messages')
      .select('id')
      .where('to_address', '=', EMAIL)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const { link, token } = resetLinkOf(
      await storedMailText(service.t.database.db, service.t.config.appKey, mail.id),
    );
    const parsed = new URL(link);
    return { path: `${parsed.pathname}${parsed.hash}`, token };
  }

  test('sign-in offers "Forgot password?"; the request page answers the same for any address', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await page.goto(url('/admin/sign-in'));
      await page.getByRole('link', { name: 'Forgot password?' }).waitFor();
      await checkScreen(page, 'sign-in-with-reset-link');
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.waitForURL(url('/admin/forgot-password'));
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await checkScreen(page, 'forgot-password');

      await page.getByRole('button', { name: 'Mail me a reset link' }).click();
      await page.locator('#field-email-error').waitFor();
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByRole('button', { name: 'Mail me a reset link' }).click();
      await page.getByRole('status').getByText('If an account uses this address').waitFor();
      await checkScreen(page, 'forgot-password-sent');
      await page.getByRole('link', { name: 'Back to sign-in' }).click();
      await page.waitForURL(url('/admin/sign-in'));
    });
    const mails = await service.t.database.db
      .selectFrom('mail_messages')
      .select(['kind', 'status'])
      .where('to_address', '=', EMAIL)
      .execute();
    assert.deepEqual(mails, [{ kind: 'password_reset', status: 'pending' }]);
  });

  test('the mailed link sets a new password once; the old one stops working, the link too', async () => {
    const { path } = await mailedLink();
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url(path));
        await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        assert.equal(new URL(page.url()).hash, '', 'the token is taken out of the address bar');
        await checkScreen(page, 'reset-password');

        await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
        await page.getByLabel('New password again').fill(`${NEW_PASSWORD}!`);
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page.locator('#field-repeat-error').getByText('The two passwords differ.').waitFor();
        await page.getByLabel('New password', { exact: true }).fill('short');
        await page.getByLabel('New password again').fill('short');
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page.locator('#field-password-error').getByText('at least 8 characters').waitFor();
        await checkScreen(page, 'reset-password-errors');

        await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
        await page.getByLabel('New password again').fill(NEW_PASSWORD);
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page.getByRole('heading', { name: 'Password changed' }).waitFor();
        await checkScreen(page, 'reset-password-done');
        await page.getByRole('link', { name: 'Sign in' }).click();
        await page.waitForURL(url('/admin/sign-in'));
      },
      /^401 GET \/api\/v1\/admin\/session$/,
    );

    // The old password no longer signs in; the new one does.
    const old = await fetch(url('/api/v1/admin/session'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: OLD_PASSWORD }),
    });
    assert.equal(old.status, 401);
    await withPage(browser, {}, async ({ page }) => {
      await signIn(page, service.base, { email: EMAIL, password: NEW_PASSWORD });
    });

    // The same link again: refused, with the way to a new one.
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url(path));
        await page.getByLabel('New password', { exact: true }).fill('another good one');
        await page.getByLabel('New password again').fill('another good one');
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page
          .getByRole('alert')
          .getByText('This reset link is invalid, has expired or was already used')
          .waitFor();
        await checkScreen(page, 'reset-password-bad-link');
        await page.getByRole('link', { name: 'Ask for a new link' }).click();
        await page.waitForURL(url('/admin/forgot-password'));
      },
      /^(401 GET \/api\/v1\/admin\/session|422 POST \/api\/v1\/admin\/password-reset\/confirm)$/,
    );
  });
});
