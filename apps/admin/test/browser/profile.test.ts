import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { verifyPassword } from '../../../server/src/security/passwords.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  checkScreen,
  launchBrowser,
  screenshot,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The profile screen in Chromium against the real service: the name is saved and shown; a
// wrong current password, a short new one and two differing new ones are refused beside their
// fields and change nothing; a good change keeps this session and mails a notice.

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

describe('admin console: profile and password', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    tenant = await seedTenant(service.t, 'Acme Profile');
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const storedUser = () =>
    service.t.database.db
      .selectFrom('users')
      .select(['name', 'password_hash'])
      .where('id', '=', tenant.user.id)
      .executeTakeFirstOrThrow();

  test('edits the name, refuses bad password changes beside their fields, then changes it', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await signIn(page, service.base, { email: tenant.user.email, password: PASSWORD });
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
        await page.waitForURL(`${service.base}/admin/account/profile`);
        const profile = page.getByRole('form', { name: 'Name and email' });
        await profile.getByLabel('Email').waitFor();
        assert.equal(await profile.getByLabel('Email').inputValue(), tenant.user.email);
        await checkScreen(page, 'profile');

        await profile.getByLabel('Name').fill('Ada Lovelace');
        await profile.getByRole('button', { name: 'Save profile' }).click();
        await profile.getByText('Profile saved.').waitFor();
        assert.equal((await storedUser()).name, 'Ada Lovelace');

        const form = page.getByRole('form', { name: 'Password' });
        const before = (await storedUser()).password_hash;
        await form.getByLabel('Current password').fill('not my password');
        await form.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
        await form.getByLabel('New password again').fill(NEW_PASSWORD);
        await form.getByRole('button', { name: 'Change password' }).click();
        await form.getByText('The current password is not right.').waitFor();
        assert.equal(
          await form.getByLabel('Current password').getAttribute('aria-invalid'),
          'true',
          'the error is tied to its field',
        );
        await assertSamePassword(before);

        await form.getByLabel('Current password').fill(PASSWORD);
        await form.getByLabel('New password', { exact: true }).fill('short');
        await form.getByLabel('New password again').fill('short');
        await form.getByRole('button', { name: 'Change password' }).click();
        await form.getByText('The password must be at least 8 characters.').waitFor();
        await form.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
        await form.getByLabel('New password again').fill(`${NEW_PASSWORD}!`);
        await form.getByRole('button', { name: 'Change password' }).click();
        await form.getByText('The two new passwords differ.').waitFor();
        await assertSamePassword(before);
        await screenshot(page, 'profile-refused-desktop');

        await form.getByLabel('New password again').fill(NEW_PASSWORD);
        await form.getByRole('button', { name: 'Change password' }).click();
        await form.getByText(/Password changed\. Your other sessions were signed out/).waitFor();
        assert.ok(await verifyPassword(NEW_PASSWORD, (await storedUser()).password_hash));
        assert.equal(await form.getByLabel('Current password').inputValue(), '');
        // This session goes on.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
        await page.getByRole('heading', { name: 'Agents' }).first().waitFor();
        const mails = await service.t.database.db
          .selectFrom('mail_messages')
          .select('kind')
          .where('to_address', '=', tenant.user.email)
          .execute();
        assert.deepEqual(
          mails.map((mail) => mail.kind),
          ['password_changed'],
        );
        await page.goto(`${service.base}/admin/account/profile`);
        await page.getByRole('link', { name: 'Forgot your password?' }).click();
        await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      },
      /^(401 GET \/api\/v1\/admin\/session|422 POST \/api\/v1\/admin\/me\/password)$/,
    );

    async function assertSamePassword(before: string) {
      assert.equal((await storedUser()).password_hash, before, 'nothing changed');
    }
  });
});
