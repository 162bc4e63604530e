import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import { createWidgetAgent } from '../../../server/test/support/widget.js';
import { embedPage, type HostSite, startHostSite } from '../../../widget/test/browser/support/host.js';
import {
  ask,
  assistantMessages,
  byTestId,
  loadWidget,
  openPanel,
} from '../../../widget/test/browser/support/widget.js';
import {
  type ConsoleService,
  launchBrowser,
  signIn,
  startConsoleService,
  WAIT_MS,
} from './support/console.js';

// The handoff scenario across two browser contexts against the real service: a visitor
// (the embedded widget on a host page) asks for a human; the operator, with the console open on
// the inbox, gets the notification, the title badge and the conversation without reloading,
// claims it; each sees the other typing; the reply reaches the widget; the bot stays silent
// while the operator holds it; release hands it back. NEEDS the event stream branch
// (GET /api/v1/admin/stream, POST .../typing, operator_typing in the widget poll).

const PASSWORD = 'correct horse battery';
const REPLY = 'Hi, this is the support team: your parcel left this morning.';

/**
 * Replaces the browser's Notification with a recorder that starts with permission granted. A
 * string, not a function: tsx would add its own helpers (`__name`) to a function's source, and the
 * page has none of them.
 */
const recordNotifications = `
  window.shownNotifications = [];
  window.Notification = class {
    static permission = 'granted';
    static requestPermission = async () => 'granted';
    constructor(title, options) {
      window.shownNotifications.push({ title, body: (options && options.body) || '' });
      this.onclick = null;
    }
    close() {}
  };
`;

describe('admin console: live handoff between a visitor and an operator', () => {
  let browser: Browser;
  let service: ConsoleService;
  let host: HostSite;
  let tenant: Tenant;
  let hostUrl = '';

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    host = await startHostSite();
    tenant = await seedTenant(service.t, 'Acme Live');
    // No sources: the bot cannot answer, so it offers a human.
    const { agentId } = await createWidgetAgent(
      service.t,
      {
        name: 'Shop helper',
        allowed_origins: [host.origin],
        widget_features: { leads: false, human: true, satisfaction: true },
      },
      tenant,
    );
    hostUrl = host.serve('/shop', { html: embedPage({ service: service.base, agentId }) });
  });
  after(async () => {
    await browser?.close();
    await host?.close();
    await service?.close();
  });

  const status = (id: string) =>
    service.t.database.db
      .selectFrom('conversations')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  // First in the file: no operator has signed in yet, so nobody is online.
  test('nobody online: the visitor who asks for a human is told so, and asked to leave an email', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(WAIT_MS);
    try {
      const visitor = await context.newPage();
      const init = await loadWidget(visitor, hostUrl);
      await openPanel(visitor);
      await ask(visitor, 'Where is my order 4711?');
      await assistantMessages(visitor).last().locator('[data-testid="escalation"]').click();
      await byTestId(visitor, 'notice')
        .filter({ hasText: "Nobody is online right now. Leave your email and we'll get back to you." })
        .waitFor();
      assert.equal((await status(init.conversation_id)).status, 'waiting');
      // Closed again, so the next test starts with nobody waiting.
      await service.t.database.db
        .updateTable('conversations')
        .set({ status: 'closed' })
        .where('id', '=', init.conversation_id)
        .execute();
    } finally {
      await context.close();
    }
  });

  test('handoff: notified, appears live, claimed, typing both ways, reply reaches the widget, bot silent, release', async () => {
    const operatorContext = await browser.newContext();
    const visitorContext = await browser.newContext();
    operatorContext.setDefaultTimeout(WAIT_MS);
    visitorContext.setDefaultTimeout(WAIT_MS);
    const errors: string[] = [];
    try {
      const operator = await operatorContext.newPage();
      await operator.addInitScript({ content: recordNotifications });
      operator.on('pageerror', (error) => errors.push(`operator: ${error.message}`));
      // Chromium's "Failed to load resource" lines are checked through the answers, which name the URL
      // (reading the session before signing in is the one expected 401), as withPage does.
      operator.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource:'))
          errors.push(`operator: ${m.text()}`);
      });
      operator.on('response', (response) => {
        const line = `${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`;
        if (response.status() >= 400 && line !== '401 GET /api/v1/admin/session')
          errors.push(`operator: ${line}`);
      });
      await signIn(
        operator,
        service.base,
        { email: tenant.user.email, password: PASSWORD },
        {
          from: '/admin/inbox',
          to: '/admin/inbox',
        },
      );
      await operator.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
      await operator.getByText('Nobody is waiting for a human right now.').waitFor();
      await operator.getByRole('button', { name: 'Turn on alerts' }).click();
      await operator.getByRole('button', { name: /^Alerts on/ }).waitFor();

      // The visitor asks a question the bot cannot answer, then asks for a human.
      const visitor = await visitorContext.newPage();
      visitor.on('pageerror', (error) => errors.push(`visitor: ${error.message}`));
      const init = await loadWidget(visitor, hostUrl);
      await openPanel(visitor);
      await ask(visitor, 'Where is my order 4711?');
      const escalation = assistantMessages(visitor).last().locator('[data-testid="escalation"]');
      await escalation.click();

      // The operator: the row appears without a reload, with the notification and the title badge.
      const row = operator.locator(`.inbox-row a[href*="${init.conversation_id}"]`);
      await row.waitFor();
      await operator.waitForFunction(() => document.title.startsWith('(1) '));
      const notes = await operator.evaluate(
        () => (window as unknown as { shownNotifications: Array<{ title: string }> }).shownNotifications,
      );
      assert.deepEqual(
        notes.map((n) => n.title),
        ['A visitor asks for a human'],
      );

      await row.click();
      await operator.getByRole('button', { name: 'Claim', exact: true }).click();
      await operator.getByText('held by you').waitFor();
      assert.equal((await status(init.conversation_id)).status, 'claimed');
      // Seen: the badge clears.
      await operator.waitForFunction(() => !document.title.startsWith('('));

      // The operator types: the widget's poll says so.
      const sawTyping = visitor.waitForResponse(
        async (response) =>
          response.url().includes('/v1/widget/conversation/messages') &&
          (await response.json().catch(() => ({})))?.data?.operator_typing === true,
      );
      await operator.getByLabel('Reply to the visitor').pressSequentially('Hi, this', { delay: 30 });
      await sawTyping;
      await visitor
        .locator('[data-service-widget] [data-role="operator"] [role="img"][aria-label="Typing…"]')
        .waitFor();
      // The visitor types: the console shows it.
      await byTestId(visitor, 'input').pressSequentially('Hello?', { delay: 30 });
      await operator.getByText('The visitor is typing…').waitFor();

      await operator.getByLabel('Reply to the visitor').fill(REPLY);
      await operator.getByRole('button', { name: 'Send reply' }).click();
      const shown = visitor.locator('[data-service-widget] [data-testid="message"][data-role="operator"]');
      await shown.filter({ hasText: REPLY }).waitFor();

      // The bot stays silent while the operator holds the conversation.
      const answersBefore = await assistantMessages(visitor).count();
      await byTestId(visitor, 'input').fill('Thanks! And the invoice?');
      await byTestId(visitor, 'send').click();
      await operator.getByText('Thanks! And the invoice?').waitFor();
      assert.equal(await assistantMessages(visitor).count(), answersBefore, 'no bot answer while claimed');

      await operator.getByRole('button', { name: 'Release', exact: true }).click();
      await operator.getByText('Handed back to the bot.').waitFor();
      assert.equal((await status(init.conversation_id)).status, 'open');
      assert.deepEqual(errors, [], 'no page or console errors');
    } finally {
      await operatorContext.close();
      await visitorContext.close();
    }
  });
});
