import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { signedInMember } from '../../../server/test/support/members.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  askWidget,
  createWidgetAgent,
  initSession,
  pollMessages,
  widgetCall,
  ZPoll,
} from '../../../server/test/support/widget.js';
import {
  type ConsoleService,
  checkScreen,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The operator inbox in Chromium against the real service: filters, search, opening a
// conversation, claim, a saved reply sent (it reaches the widget's conversation through the
// widget API), an internal note (never in the widget's answer), release and close; and a viewer,
// who reads but finds every action disabled. Live updates and typing need the event stream:
// inbox-live.test.ts covers them.

const PASSWORD = 'correct horse battery';
/** Before the event stream route exists the live client's open is a 404, and so is typing. */
const PRE_STREAM =
  /^(401 GET \/api\/v1\/admin\/session|404 GET \/api\/v1\/admin\/stream|404 POST \/api\/v1\/admin\/conversations\/[^/]+\/typing)$/;

describe('admin console: the inbox', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let waiting: { id: string; token: string };
  let other: { id: string; token: string };

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    tenant = await seedTenant(service.t, 'Acme Shoes');
    const { agentId } = await createWidgetAgent(service.t, { name: 'Shop helper' }, tenant);
    const first = await initSession(service.t, agentId, { locale: 'fr-FR' });
    await askWidget(service.t, first.token, 'Where is my parcel? It is late.');
    const asked = await widgetCall(service.t, 'POST', '/v1/widget/request-human', first.token);
    assert.equal(asked.statusCode, 200, asked.body);
    waiting = { id: first.conversation_id, token: first.token };
    const second = await initSession(service.t, agentId);
    await askWidget(service.t, second.token, 'Can I get a refund for my shoes?');
    other = { id: second.conversation_id, token: second.token };
    const saved = await service.t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/saved-replies',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({
        title: 'Parcel delay',
        body: 'Sorry for the delay: your parcel leaves today.',
      }),
    });
    assert.equal(saved.statusCode, 201, saved.body);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const rows = (page: Page) => page.getByRole('list', { name: 'Conversations' }).getByRole('listitem');

  test('filters, search, then claim, a saved reply that reaches the widget, a note it never sees, release, close', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await signIn(
          page,
          service.base,
          { email: tenant.user.email, password: PASSWORD },
          {
            from: '/admin/inbox',
            to: '/admin/inbox',
          },
        );
        await page.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
        // Waiting is the first tab: the one visitor who asked for a human, unread.
        await page
          .getByRole('button', { name: /^Waiting/ })
          .and(page.locator('[aria-pressed="true"]'))
          .waitFor();
        await rows(page).first().waitFor();
        assert.equal(await rows(page).count(), 1);
        await page.getByRole('button', { name: /^Waiting 1 unread/ }).waitFor();
        await checkScreen(page, 'inbox');

        await page.getByRole('button', { name: /^All/ }).click();
        await page.waitForURL(/filter=all/);
        await page.waitForFunction(() => document.querySelectorAll('.inbox-row').length === 2);
        await page.getByLabel('Search what visitors wrote').fill('refund');
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.waitForFunction(() => document.querySelectorAll('.inbox-row').length === 1);
        // The row shows the newest message (the bot's answer); it is the other visitor's conversation.
        await page.locator(`.inbox-row a[href*="${other.id}"]`).waitFor();
        await page.getByLabel('Search what visitors wrote').fill('');
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.waitForFunction(() => document.querySelectorAll('.inbox-row').length === 2);

        // Open the waiting conversation and take it over.
        await page.locator(`.inbox-row a[href*="${waiting.id}"]`).click();
        await page.waitForURL(new RegExp(`/admin/inbox/${waiting.id}`));
        await page.getByText('waiting for a human', { exact: false }).first().waitFor();
        await page.getByText('fr-FR').waitFor();
        assert.equal(
          await page.getByRole('button', { name: 'Send reply' }).count(),
          0,
          'no reply before the claim',
        );
        await page.getByRole('button', { name: 'Claim', exact: true }).click();
        await page.getByText('held by you').waitFor();
        await page.getByLabel('Saved reply').selectOption({ label: 'Parcel delay' });
        assert.equal(
          await page.getByLabel('Reply to the visitor').inputValue(),
          'Sorry for the delay: your parcel leaves today.',
        );
        await page.getByRole('button', { name: 'Send reply' }).click();
        await page.getByRole('status').getByText('Reply sent.').waitFor();
        const polled = ZPoll.parse((await pollMessages(service.t, waiting.token)).json().data);
        assert.equal(polled.status, 'claimed');
        assert.ok(
          polled.messages.some(
            (m) => m.role === 'operator' && m.content === 'Sorry for the delay: your parcel leaves today.',
          ),
        );

        await page.getByRole('button', { name: 'Internal note' }).click();
        await page.getByLabel('Internal note').fill('Customer is a VIP: offer free shipping.');
        await page.getByRole('button', { name: 'Add note' }).click();
        await page.getByText('only your team sees this').waitFor();
        const afterNote = await pollMessages(service.t, waiting.token);
        assert.ok(!afterNote.body.includes('VIP'), 'the widget never sees a note');
        await page.getByText('Claimed by').first().waitFor();
        await checkScreen(page, 'inbox-conversation');

        await page.getByRole('button', { name: 'Release', exact: true }).click();
        await page.getByText('Handed back to the bot.').waitFor();
        await page.getByRole('button', { name: 'Close', exact: true }).click();
        await page.getByText('Conversation closed.').waitFor();
        await page.getByText('· closed').waitFor();
        assert.equal(
          (await pollMessages(service.t, waiting.token)).statusCode,
          401,
          'the widget sees it closed',
        );
        assert.ok(await page.getByRole('button', { name: 'Claim', exact: true }).isDisabled());
        // The other visitor's conversation is untouched.
        const untouched = ZPoll.parse((await pollMessages(service.t, other.token)).json().data);
        assert.equal(untouched.status, 'open');
      },
      PRE_STREAM,
    );
  });

  test('a viewer reads the inbox but every action is disabled and there is no composer', async () => {
    const viewer = await signedInMember(service.t, tenant, 'viewer');
    await withPage(
      browser,
      {},
      async ({ page }) => {
        const path = `/admin/inbox/${other.id}?filter=all`;
        await signIn(
          page,
          service.base,
          { email: viewer.email, password: PASSWORD },
          { from: path, to: path },
        );
        await page.getByText('Can I get a refund for my shoes?').first().waitFor();
        for (const name of ['Claim', 'Release', 'Close']) {
          assert.ok(
            await page.getByRole('button', { name, exact: true }).isDisabled(),
            `${name} is disabled`,
          );
        }
        await page.getByText('Your role can read conversations but not answer them.').first().waitFor();
        assert.equal(await page.locator('textarea').count(), 0);
        assert.equal(
          await page.getByRole('button', { name: /alerts/i }).count(),
          0,
          'no alerts switch for a viewer',
        );
        await checkScreen(page, 'inbox-viewer');
      },
      PRE_STREAM,
    );
  });
});
