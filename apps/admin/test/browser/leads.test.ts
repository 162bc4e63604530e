import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { newId } from '../../../server/src/security/ids.js';
import { seedConversation } from '../../../server/test/support/conversations.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  checkScreen,
  createAgentAs,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The leads screen in Chromium against the real service: the leads newest first with the site
// push result, search and agent filters, the CSV export link carrying the same filters, and the
// link to each lead's conversation; hostile text shows as text.

const PASSWORD = 'correct horse battery';

describe('admin console: leads', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let shopAgent = '';
  let blogAgent = '';

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    tenant = await seedTenant(service.t, 'Acme Leads');
    shopAgent = await createAgentAs(service.t, tenant, 'Shop helper');
    blogAgent = await createAgentAs(service.t, tenant, 'Blog helper');
    const { conversationId, visitorId } = await seedConversation(service.t, {
      workspaceId: tenant.workspace.id,
      agentId: shopAgent,
    });
    const rows = [
      {
        agent: shopAgent,
        email: 'ann@example.com',
        name: 'Ann Lee',
        phone: '+49 30 1234',
        pushed: true,
        error: null,
      },
      {
        agent: shopAgent,
        email: 'bob@example.com',
        name: '<img src=x onerror=alert(1)>',
        phone: '',
        pushed: false,
        error: 'site answered HTTP 500',
      },
      { agent: blogAgent, email: 'cy@blog.test', name: 'Cy', phone: '', pushed: false, error: null },
    ];
    for (const [index, row] of rows.entries()) {
      await service.t.database.db
        .insertInto('leads')
        .values({
          id: newId(),
          workspace_id: tenant.workspace.id,
          agent_id: row.agent,
          conversation_id: index === 0 ? conversationId : null,
          visitor_id: index === 0 ? visitorId : null,
          email: row.email,
          email_normalized: row.email,
          name: row.name,
          phone: row.phone,
          site_user_id: row.pushed ? 42 : null,
          pushed_at: row.pushed ? new Date() : null,
          push_error: row.error,
        })
        .execute();
    }
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('lists, searches, filters by agent, exports with the same filters, links the conversation', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signIn(page, service.base, { email: tenant.user.email, password: PASSWORD });
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leads' }).click();
      await page.waitForURL(`${service.base}/admin/leads`);
      const list = page.getByRole('list', { name: 'Leads' });
      await list.getByRole('heading', { name: 'ann@example.com' }).waitFor();
      assert.deepEqual(await list.getByRole('heading').allTextContents(), [
        'cy@blog.test',
        'bob@example.com',
        'ann@example.com',
      ]);
      // Hostile text is shown as text, never run.
      await list.getByText('<img src=x onerror=alert(1)>').waitFor();
      await list.getByText('Failed: site answered HTTP 500').waitFor();
      await list.getByText(/\(site user 42\)/).waitFor();
      const open = list.getByRole('link', { name: 'Open the conversation with ann@example.com' });
      assert.match(String(await open.getAttribute('href')), /^\/admin\/inbox\/[0-9A-Z]{26}$/);
      await checkScreen(page, 'leads');

      const filters = page.getByRole('form', { name: 'Filter leads' });
      await filters.getByLabel('Search').fill('EXAMPLE');
      await filters.getByRole('button', { name: 'Filter' }).click();
      await list.getByRole('heading', { name: 'cy@blog.test' }).waitFor({ state: 'detached' });
      assert.deepEqual(await list.getByRole('heading').allTextContents(), [
        'bob@example.com',
        'ann@example.com',
      ]);
      const exportLink = page.getByRole('link', { name: 'Export CSV' });
      assert.equal(await exportLink.getAttribute('href'), '/api/v1/admin/leads/export?q=EXAMPLE');

      await filters.getByLabel('Search').fill('');
      await filters.getByLabel('Agent').selectOption({ label: 'Blog helper' });
      await filters.getByRole('button', { name: 'Filter' }).click();
      await list.getByRole('heading', { name: 'ann@example.com' }).waitFor({ state: 'detached' });
      assert.deepEqual(await list.getByRole('heading').allTextContents(), ['cy@blog.test']);
      assert.equal(await exportLink.getAttribute('href'), `/api/v1/admin/leads/export?agent_id=${blogAgent}`);

      // The export link downloads the CSV with the session cookie.
      const csv = await page.evaluate(
        async (href) => (await fetch(href)).text(),
        String(await exportLink.getAttribute('href')),
      );
      assert.match(csv, /^created_at,email,name/);
      assert.ok(csv.includes('cy@blog.test') && !csv.includes('ann@example.com'));

      await filters.getByLabel('Search').fill('nobody-here');
      await filters.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('heading', { name: 'No lead matches' }).waitFor();
      await page.getByRole('button', { name: 'Clear' }).click();
      await list.getByRole('heading', { name: 'ann@example.com' }).waitFor();
    });
  });
});
