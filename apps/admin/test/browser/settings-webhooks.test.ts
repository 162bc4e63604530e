import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { deliverWebhookJob } from '../../../server/src/jobs/deliver-webhook.js';
import { captureLead } from '../../../server/src/services/conversations/leads.js';
import {
  seedVisitor,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../server/test/support/fake-site.js';
import { addMember as addRoleMember, MEMBER_PASSWORD } from '../../../server/test/support/members.js';
import { createSite, type Site } from '../../../server/test/support/site-sync.js';
import { workerContext } from '../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  checkScreen,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The webhooks screen in Chromium against the real service: create (the secret shown once), a
// bad URL refused beside the field (by the console, then by the service's guard), a lead's
// delivery to a loopback receiver with its request body and response excerpt, redelivery, off,
// delete; an editor sees no entry and is told the page is not for their role.

const PASSWORD = 'correct horse battery';
/** A lead name that would run as markup if the request body were not escaped. */
const HOSTILE_NAME = '<img src=x onerror="document.title=1">Ada';

describe('admin console: webhooks', () => {
  let browser: Browser;
  let service: ConsoleService;
  let receiver: WebhookReceiver;
  let site: Site;
  let editor: { email: string };

  before(async () => {
    receiver = await startWebhookReceiver();
    browser = await launchBrowser();
    service = await startConsoleService({ SAFE_URL_ALLOW: receiver.allowEntry });
    site = await createSite(service.t, {}, 'Acme Hooks');
    editor = await addRoleMember(service.t, site.tenant, 'editor');
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await receiver?.close();
  });

  const db = () => service.t.database.db;
  /** Captures a lead (as the widget does) and answers its delivery's id. */
  let leads = 0;
  const newLead = async () => {
    leads += 1;
    const visitor = await seedVisitor(service.t, site);
    const lead = await captureLead({
      db: db(),
      clock: service.t.clock,
      queue: service.t.queue,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      ...visitor,
      input: { email: `hook${leads}@example.com`, name: HOSTILE_NAME },
    });
    const row = await db()
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subject_id', '=', lead.id)
      .executeTakeFirstOrThrow();
    return row.id;
  };
  /** Works the queued delivery as the worker would (the test queue runs nothing by itself). */
  const deliver = (deliveryId: string) => deliverWebhookJob.handle({ deliveryId }, workerContext(service.t));

  test('create (secret once), bad URL refused, delivery shown, redeliver, off, delete', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await signIn(page, service.base, { email: site.tenant.user.email, password: PASSWORD });
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
        await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
        await page.getByRole('button', { name: 'New webhook' }).click();
        const form = page.getByRole('form', { name: 'New webhook' });

        // Refused by the console's check (the contract's schema), then by the service's guard.
        await form.getByLabel('URL').fill('ftp://example.com/hook');
        await form.getByRole('button', { name: 'Create webhook' }).click();
        await form.locator('#field-url-error').getByText('Must be an http or https URL.').waitFor();
        await form.getByLabel('URL').fill('http://10.0.0.5/hook');
        await form.getByRole('button', { name: 'Create webhook' }).click();
        await form
          .locator('#field-url-error')
          .getByText(/private/)
          .waitFor();
        assert.equal(await form.getByLabel('URL').getAttribute('aria-invalid'), 'true');
        await form.getByLabel('lead.captured').uncheck();
        await form.getByLabel('URL').fill(receiver.url);
        await form.getByRole('button', { name: 'Create webhook' }).click();
        await form.locator('#events-error').getByText('Choose at least one event.').waitFor();
        assert.equal(
          await db()
            .selectFrom('webhooks')
            .select('id')
            .execute()
            .then((r) => r.length),
          0,
        );

        await form.getByLabel('lead.captured').check();
        await form.getByRole('button', { name: 'Create webhook' }).click();
        await page.getByText(/you won’t see it again/).waitFor();
        const secret = (await page.locator('.secret-value').textContent()) ?? '';
        assert.match(secret, /^whsec_/);
        receiver.secret = secret;
        const list = page.getByRole('list', { name: 'Webhooks' });
        const row = list.getByRole('listitem').filter({ hasText: receiver.url }).first();
        await row.getByText('On', { exact: true }).waitFor();
        await page.reload();
        await row.getByText('lead.captured').waitFor();
        await row.getByText('JSON (signed event)').waitFor();
        assert.equal((await page.content()).includes(secret), false, 'the secret is gone after a reload');

        // A lead is delivered to the receiver; its log shows it with the body and the answer.
        const deliveryId = await newLead();
        await deliver(deliveryId);
        assert.equal(receiver.deliveries.at(-1)?.signature, 'ok');
        await row.getByRole('button', { name: 'Show deliveries' }).click();
        const delivery = row.getByRole('list', { name: 'Deliveries' }).getByRole('listitem').first();
        await delivery.locator('.badge', { hasText: 'Delivered' }).waitFor();
        await delivery.getByText('200', { exact: true }).waitFor();
        await delivery.getByText('Request and response').click();
        const body = (await delivery.getByRole('region', { name: 'Request body' }).textContent()) ?? '';
        assert.match(body, /\n {2}"event": "lead.captured"/, 'pretty JSON');
        assert.ok(body.includes(JSON.stringify(HOSTILE_NAME)), 'the markup is shown as text');
        assert.equal(await delivery.locator('img').count(), 0, 'and never runs');
        assert.equal(await delivery.getByRole('region', { name: 'Response excerpt' }).textContent(), 'ok');
        await checkScreen(page, 'webhooks');

        // Redeliver: the delivery is queued again, then delivered again.
        await delivery.getByRole('button', { name: 'Redeliver' }).click();
        await delivery.locator('.badge', { hasText: 'Pending' }).waitFor();
        const pending = await db()
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('id', '=', deliveryId)
          .executeTakeFirstOrThrow();
        assert.equal(pending.status, 'pending');
        const received = receiver.deliveries.length;
        await deliver(deliveryId);
        assert.equal(receiver.deliveries.length, received + 1);
        await row.getByRole('button', { name: 'Refresh' }).click();
        await delivery.locator('.badge', { hasText: 'Delivered' }).waitFor();

        // Off, then deleted after a confirmation, by keyboard.
        await row.getByRole('button', { name: 'Turn off' }).click();
        await row.getByText('Off', { exact: true }).waitFor();
        const stored = await db().selectFrom('webhooks').select('is_active').executeTakeFirstOrThrow();
        assert.equal(stored.is_active, false);
        await row.getByRole('button', { name: 'Delete…' }).focus();
        await page.keyboard.press('Enter');
        await row.getByRole('button', { name: 'Yes, delete it' }).focus();
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
        assert.deepEqual(await db().selectFrom('webhooks').select('id').execute(), []);
        assert.deepEqual(await db().selectFrom('webhook_deliveries').select('id').execute(), []);
      },
      /^(401 GET \/api\/v1\/admin\/session|422 POST \/api\/v1\/admin\/webhooks)$/,
    );
  });

  test('the delivery log pages: the first 25, then the rest on demand', async () => {
    const created = await service.t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/webhooks',
      headers: { ...site.tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: receiver.url, events: ['lead.captured'] }),
    });
    assert.equal(created.statusCode, 201, created.body);
    for (let lead = 0; lead < 26; lead += 1) await newLead();
    await withPage(browser, {}, async ({ page }) => {
      await signIn(page, service.base, { email: site.tenant.user.email, password: PASSWORD });
      await page.goto(`${service.base}/admin/settings/webhooks`);
      await page.getByRole('button', { name: 'Show deliveries' }).click();
      const deliveries = page.getByRole('list', { name: 'Deliveries' }).getByRole('listitem');
      await page.getByText('Showing the first 25 deliveries.').waitFor();
      assert.equal(await deliveries.count(), 25);
      await page.getByRole('button', { name: 'Load more deliveries' }).click();
      await page.getByText('All 26 deliveries shown.').waitFor();
      assert.equal(await deliveries.count(), 26);
    });
  });

  test('an editor sees no Webhooks entry and is told the page is not for their role', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signIn(page, service.base, { email: editor.email, password: MEMBER_PASSWORD });
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Agents' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'Webhooks' }).count(), 0);
      await page.goto(`${service.base}/admin/settings/webhooks`);
      await page.getByText("Your role (editor) can't do this.", { exact: false }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'New webhook' }).count(), 0);
    });
  });
});
