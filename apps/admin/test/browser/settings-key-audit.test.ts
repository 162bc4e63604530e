import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { newId } from '../../../server/src/security/ids.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  checkScreen,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The model key and audit log screens in Chromium against the real service: a user without
// BYOK is told why and cannot set a key; with it, the key is saved, shown masked (never the
// key), and removed; the audit log filters by action and shows an operator's on-behalf-of row.

const PASSWORD = 'correct horse battery';
const SECRET_KEY = 'sk-test-abcdefghijklmnop1234';

describe('admin console: model key and audit log', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    tenant = await seedTenant(service.t, 'Acme Key Audit');
    await service.t.database.db
      .insertInto('audit_logs')
      .values({
        id: newId(),
        workspace_id: tenant.workspace.id,
        actor_type: 'user',
        actor_id: 'operator-7',
        action: 'agent.updated',
        target_type: 'agent',
        target_id: 'agent-1',
        metadata: JSON.stringify({ name: '<b>bold</b>' }),
        on_behalf_of_user_id: tenant.user.id,
      })
      .execute();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const setByok = (on: boolean) =>
    service.t.database.db
      .updateTable('users')
      .set({ byok_enabled: on })
      .where('id', '=', tenant.user.id)
      .execute();

  test('model key: refused without BYOK; set, shown masked, removed with it', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await setByok(false);
        await signIn(page, service.base, { email: tenant.user.email, password: PASSWORD });
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Model key' }).click();
        await page.getByRole('heading', { name: 'No model key' }).waitFor();
        await page.getByText(/Your account may not set a model key/).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Set a key' }).isDisabled(), true);

        await setByok(true);
        await page.reload();
        await page.getByRole('heading', { name: 'No model key' }).waitFor();
        await page.getByRole('button', { name: 'Set a key' }).click();
        const form = page.getByRole('form', { name: 'Set a model key' });
        await form.getByLabel('API key').fill('short');
        await form.getByRole('button', { name: 'Save the key' }).click();
        await form.locator('#field-api_key-error').waitFor();
        await form.getByLabel('Provider').selectOption('anthropic');
        await form.getByLabel('API key').fill(SECRET_KEY);
        await form.getByRole('button', { name: 'Save the key' }).click();
        await page.getByRole('heading', { name: 'Anthropic key' }).waitFor();
        await page.getByText('••••1234').waitFor();
        assert.equal((await page.content()).includes(SECRET_KEY), false, 'the key is never shown');
        await checkScreen(page, 'model-key');

        await page.getByRole('button', { name: 'Remove…' }).click();
        await page.getByRole('button', { name: 'Yes, remove it' }).click();
        await page.getByRole('heading', { name: 'No model key' }).waitFor();
        const stored = await service.t.database.db
          .selectFrom('workspace_llm_keys')
          .select('workspace_id')
          .where('workspace_id', '=', tenant.workspace.id)
          .execute();
        assert.deepEqual(stored, []);
      },
      /^(401 GET \/api\/v1\/admin\/session|404 GET \/api\/v1\/admin\/llm-key)$/,
    );
  });

  test('audit log: filters by action and shows on-behalf-of rows', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signIn(page, service.base, { email: tenant.user.email, password: PASSWORD });
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
      const list = page.getByRole('list', { name: 'Audit records' });
      await list.getByRole('heading', { name: 'agent.updated' }).waitFor();
      const behalf = list.getByRole('listitem').filter({ hasText: 'agent.updated' });
      await behalf.getByText('Operator viewing as a member').waitFor();
      await behalf.getByText(tenant.user.id).waitFor();
      await behalf.getByText('{"name":"<b>bold</b>"}').waitFor();
      await checkScreen(page, 'audit-log');

      const filters = page.getByRole('form', { name: 'Filter the audit log' });
      await filters.getByLabel('Action').fill('workspace.bootstrapped');
      await filters.getByRole('button', { name: 'Filter' }).click();
      await list.getByRole('heading', { name: 'agent.updated' }).waitFor({ state: 'detached' });
      assert.deepEqual(await list.getByRole('heading').allTextContents(), ['workspace.bootstrapped']);
      await filters.getByLabel('Action').fill('no.such.action');
      await filters.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('heading', { name: 'No record matches' }).waitFor();
    });
  });
});
