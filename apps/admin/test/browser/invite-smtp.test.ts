import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import { createMailer, type Mailer } from '../../../server/src/mail/mail-transport.js';
import type { JobQueue } from '../../../server/src/queue/job-queue.js';
import { plainTextOf } from '../../../server/test/support/mail.js';
import { type Received, startMailWorker, startSmtpServer } from '../../../server/test/support/smtp-server.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// A member invited from the console's Members screen, by mail through a real SMTP exchange (an
// SMTP server inside the test process): the invite leaves through the job queue, the person
// opens the mailed link in another browser, joins as a viewer, signs in, and the console and the
// API refuse what a viewer may not do.

const PASSWORD = 'correct horse battery';
const JOINER = 'mailed.viewer@example.com';
const JOINER_PASSWORD = 'a viewer with a long password';

async function waitForMail(received: Received[], to: string): Promise<Received> {
  for (let i = 0; i < 300; i += 1) {
    const found = received.find((message) => message.to.includes(to));
    if (found) return found;
    await sleep(100);
  }
  throw new Error(`no mail reached ${to}`);
}

describe('admin console: an invite mailed over SMTP', () => {
  let browser: Browser;
  let service: ConsoleService;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let mailer: Mailer;
  let worker: JobQueue;
  let tenant: Tenant;

  before(async () => {
    smtp = await startSmtpServer();
    browser = await launchBrowser();
    service = await startConsoleService({
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Support <support@chat.example.test>',
    });
    mailer = createMailer({
      smtpUrl: service.t.config.mail.smtpUrl,
      outboxDir: join(service.t.config.dataDir, 'outbox'),
      from: service.t.config.mail.from,
    });
    assert.equal(mailer.kind, 'smtp');
    worker = await startMailWorker(service.t, mailer);
    tenant = await seedTenant(service.t, 'Acme Mailed');
  });
  after(async () => {
    // The worker stops before the store closes under it.
    await worker?.stop(5_000);
    await browser?.close();
    await service?.close();
    mailer?.close();
    await smtp?.close();
  });

  test('invited from the console, joins from the mail, signs in as a viewer and is refused an edit', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signIn(page, service.base, { email: tenant.user.email, password: PASSWORD });
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
      await page.getByRole('button', { name: 'Invite' }).click();
      const form = page.getByRole('form', { name: 'Invite a member' });
      await form.getByLabel('Email').fill(JOINER);
      await form.getByLabel('Role').selectOption('viewer');
      await form.getByRole('button', { name: 'Send invite' }).click();
      await page.getByRole('list', { name: 'Pending invites' }).getByText(JOINER).waitFor();
    });

    const message = await waitForMail(smtp.received, JOINER);
    assert.equal(message.from, 'support@chat.example.test');
    const text = plainTextOf(message.raw);
    assert.match(text, /Acme Mailed/, 'the mail names the workspace');
    const link = /https?:\/\/\S+\/admin\/accept-invite#token=\S+/.exec(text)?.[0];
    assert.ok(link, text);
    const mailed = new URL(link);

    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(`${service.base}${mailed.pathname}${mailed.hash}`);
        await page.getByRole('heading', { name: 'Join Acme Mailed' }).waitFor();
        await page.getByLabel('Your name').fill('Vi Ewer');
        await page.getByLabel('Choose a password').fill(JOINER_PASSWORD);
        await page.getByRole('button', { name: 'Create my account and join' }).click();
        await page.getByRole('heading', { name: 'You joined Acme Mailed' }).waitFor();
        await page.getByRole('link', { name: 'Sign in' }).click();
        await signIn(page, service.base, { email: JOINER, password: JOINER_PASSWORD });

        // The console offers a viewer nothing to configure…
        const nav = page.getByRole('navigation', { name: 'Main' });
        await nav.getByRole('link', { name: 'Agents' }).waitFor();
        for (const entry of ['Members', 'API tokens', 'Webhooks', 'Saved replies']) {
          assert.equal(await nav.getByRole('link', { name: entry }).count(), 0, `${entry} is hidden`);
        }
        assert.equal(await page.getByRole('link', { name: 'New agent' }).count(), 0);
        await page.goto(`${service.base}/admin/members`);
        await page.getByText("Your role (viewer) can't do this.").first().waitFor();

        // …and the service refuses it even when asked directly, with the session's CSRF token.
        const refused = await page.evaluate(async () => {
          const session = await fetch('/api/v1/admin/session', { credentials: 'same-origin' });
          const body = (await session.json()) as { data: { csrf_token: string } };
          const answer = await fetch('/api/v1/admin/agents', {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'content-type': 'application/json', 'x-csrf-token': body.data.csrf_token },
            body: JSON.stringify({ name: 'Not allowed' }),
          });
          return answer.status;
        });
        assert.equal(refused, 403);
      },
      /^(401 GET \/api\/v1\/admin\/session|403 GET \/api\/v1\/admin\/(members|invites)|403 POST \/api\/v1\/admin\/agents)$/,
    );

    const member = await service.t.database.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['memberships.role', 'users.name'])
      .where('memberships.workspace_id', '=', tenant.workspace.id)
      .where('users.email', '=', JOINER)
      .executeTakeFirstOrThrow();
    assert.deepEqual(member, { role: 'viewer', name: 'Vi Ewer' });
    const agents = await service.t.database.db
      .selectFrom('agents')
      .select('id')
      .where('workspace_id', '=', tenant.workspace.id)
      .where('name', '=', 'Not allowed')
      .execute();
    assert.deepEqual(agents, [], 'the refused write changed nothing');
  });
});
