import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';
import { injectJson, type Tenant } from '../../../server/test/support/test-app.js';
import { requestsTo, withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import { embedPage, type HostSite } from './support/host.js';
import { eventually, hostAgent, type Service } from './support/service.js';
import { ask, assistantMessages, byTestId, loadWidget, openPanel, uiString } from './support/widget.js';

// "Talk to a human" end to end: the visitor asks for a person, an operator claims the
// conversation and replies through the admin API, the reply reaches the widget by polling;
// then the satisfaction prompt, "new conversation" and "forget me".

const OPERATOR_REPLY = 'Hi, this is Ana from the support team. Let me check your order.';
const isPath = (url: string, path: string) => new URL(url).pathname === path;
const ZLeadBody = z.object({ email: z.string(), name: z.string(), phone: z.string() });

describe('widget in Chromium: talk to a human', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  const conversation = (id: string) =>
    service.t.database.db
      .selectFrom('conversations')
      .select(['id', 'status', 'visitor_id', 'satisfaction_rating', 'satisfaction_comment'])
      .where('id', '=', id)
      .executeTakeFirst();

  /** An agent with humans and ratings on (leads too when asked), embedded on a host page (no sources: no answers). */
  async function humanAgent(
    path: string,
    leads = false,
  ): Promise<{ tenant: Tenant; agentId: string; url: string }> {
    const { tenant, agentId } = await hostAgent(service, host.origin, {
      widget_features: { leads, human: true, satisfaction: true },
    });
    const url = host.serve(path, { html: embedPage({ service: service.base, agentId }) });
    return { tenant, agentId, url };
  }

  /** Opens the ⋯ menu and picks an item. */
  async function menuItem(page: Page, testid: string): Promise<void> {
    await byTestId(page, 'menu').click();
    await byTestId(page, testid).click();
  }

  /** The operator (the workspace owner, whom the bootstrap admin token acts for) claims and replies. */
  async function operatorReplies(tenant: Tenant, conversationId: string, content: string): Promise<void> {
    const base = `/api/v1/admin/conversations/${conversationId}`;
    const claim = await service.t.app.inject({ method: 'POST', url: `${base}/claim`, headers: tenant.auth });
    assert.equal(claim.statusCode, 200, claim.body);
    const reply = await injectJson(service.t.app, 'POST', `${base}/messages`, { content }, tenant.auth);
    assert.equal(reply.statusCode, 201, reply.body);
  }

  /** Marks the tenant's owner as an operator with the console open (what an open admin stream records). */
  async function operatorOnline(tenant: Tenant): Promise<void> {
    await service.t.database.db
      .insertInto('operator_presence')
      .values({
        stream_id: `test-${tenant.workspace.id}`,
        workspace_id: tenant.workspace.id,
        user_id: tenant.user.id,
        seen_at: new Date(),
      })
      .execute();
  }

  test('the escalation button after an unanswered question reaches an operator, whose reply is polled in; then a rating', async () => {
    const { tenant, url } = await humanAgent('/escalate');
    await operatorOnline(tenant);
    await withPage(browser, {}, async (watched) => {
      const { page } = watched;
      const init = await loadWidget(page, url);
      await openPanel(page);
      // An order question from a visitor who is not signed in: asked to sign in, offered a human.
      await ask(page, 'Can you tell me where my order 4711 is?');
      const escalation = assistantMessages(page).last().locator('[data-testid="escalation"]');
      await escalation.waitFor({ state: 'visible' });
      assert.equal((await escalation.innerText()).trim(), uiString('en', 'human'));

      const requested = page.waitForResponse((r) => isPath(r.url(), '/v1/widget/request-human'));
      await escalation.click();
      assert.equal((await requested).status(), 200);
      assert.equal(await escalation.isDisabled(), true, 'the button is used once');
      await byTestId(page, 'notice')
        .filter({ hasText: uiString('en', 'humanWaiting') })
        .waitFor();
      assert.equal((await conversation(init.conversation_id))?.status, 'waiting');

      await operatorReplies(tenant, init.conversation_id, OPERATOR_REPLY);
      assert.equal((await conversation(init.conversation_id))?.status, 'claimed');
      const operator = page.locator('[data-service-widget] [data-testid="message"][data-role="operator"]');
      await operator.first().waitFor({ state: 'visible' });
      const shown = (await operator.first().innerText()).split(/\n+/).map((line) => line.trim());
      assert.deepEqual(shown, [uiString('en', 'operator'), OPERATOR_REPLY], 'labelled as the support agent');
      assert.ok(
        requestsTo(watched, '/v1/widget/conversation/messages', 'GET').length >= 1,
        'the reply came by polling',
      );
      // Polling goes on without showing the reply twice.
      await page.waitForResponse((r) => isPath(r.url(), '/v1/widget/conversation/messages'));
      assert.equal(await operator.count(), 1);

      // Rate: thumbs up, then a comment.
      await menuItem(page, 'menu-rate');
      const card = byTestId(page, 'satisfaction');
      await card.waitFor({ state: 'visible' });
      const rated = page.waitForResponse((r) => isPath(r.url(), '/v1/widget/satisfaction'));
      await card.locator('[data-testid="rate-up"]').click();
      assert.equal((await rated).status(), 200);
      await card.getByText(uiString('en', 'rateThanks')).waitFor();
      await card.locator('textarea').fill('Quick and friendly.');
      const commented = page.waitForResponse((r) => isPath(r.url(), '/v1/widget/satisfaction'));
      await card.getByRole('button', { name: uiString('en', 'submit') }).click();
      assert.equal((await commented).status(), 200);
      await card.locator('textarea').waitFor({ state: 'detached' });
      const row = await conversation(init.conversation_id);
      assert.equal(row?.satisfaction_rating, 1);
      assert.equal(row?.satisfaction_comment, 'Quick and friendly.');
    });
  });

  test('after escalation the lead form is offered: an empty or invalid email is refused in the page, a valid one is stored', async () => {
    const { agentId, url } = await humanAgent('/escalate-lead', true);
    await withPage(browser, {}, async (watched) => {
      const { page } = watched;
      const init = await loadWidget(page, url);
      await openPanel(page);
      assert.equal(await byTestId(page, 'lead-form').count(), 0, 'no lead form before the escalation');
      await ask(page, 'Could someone from your team call me back about wholesale prices?');
      const escalation = assistantMessages(page).last().locator('[data-testid="escalation"]');
      const requested = page.waitForResponse((r) => isPath(r.url(), '/v1/widget/request-human'));
      await escalation.click();
      assert.equal((await requested).status(), 200);
      const form = byTestId(page, 'lead-form');
      await form.waitFor({ state: 'visible' });
      assert.equal(await form.count(), 1, 'one lead form');
      assert.match(await form.innerText(), new RegExp(uiString('en', 'leadTitle')));

      const email = form.locator('[data-testid="lead-email"]');
      const emailError = form
        .locator('label', { has: page.locator('[data-testid="lead-email"]') })
        .getByRole('alert');
      const submit = form.locator('[data-testid="lead-submit"]');
      const focused = () =>
        page.evaluate(
          () =>
            document
              .querySelector('[data-service-widget]')
              ?.shadowRoot?.activeElement?.getAttribute('data-testid') ?? null,
        );
      // Empty, then malformed: the message shows under the field, which takes the focus.
      for (const value of ['', '   ', 'visitor@', 'visitor at example.com']) {
        await email.fill(value);
        // fill() focused the email field: move away, so the focus check below proves the refusal.
        await byTestId(page, 'lead-name').focus();
        await submit.click();
        await emailError.filter({ hasText: uiString('en', 'emailInvalid') }).waitFor();
        assert.equal(await focused(), 'lead-email', `the email field is focused after "${value}"`);
        assert.equal(await form.isVisible(), true, 'the form stays');
      }

      await email.fill('Grace.Visitor@Example.org');
      await byTestId(page, 'lead-name').fill('Grace Visitor');
      const posted = page.waitForResponse((r) => isPath(r.url(), '/v1/widget/leads'));
      await submit.click();
      assert.equal((await posted).status(), 201);
      await byTestId(page, 'messages').getByText(uiString('en', 'leadThanks')).waitFor();
      assert.equal(await emailError.count(), 0, 'the form was replaced by the thanks');
      // Request events arrive in order: the refused attempts, made earlier, would be listed too.
      const sent = requestsTo(watched, '/v1/widget/leads', 'POST');
      assert.equal(sent.length, 1, 'only the valid email was sent');
      assert.deepEqual(ZLeadBody.parse(JSON.parse(sent[0]?.postData() ?? 'null')), {
        email: 'Grace.Visitor@Example.org',
        name: 'Grace Visitor',
        phone: '',
      });

      const leads = await service.t.database.db
        .selectFrom('leads')
        .select(['email_normalized', 'name', 'conversation_id'])
        .where('agent_id', '=', agentId)
        .execute();
      assert.deepEqual(leads, [
        {
          email_normalized: 'grace.visitor@example.org',
          name: 'Grace Visitor',
          conversation_id: init.conversation_id,
        },
      ]);
      assert.equal(
        (await conversation(init.conversation_id))?.status,
        'waiting',
        'still waiting for a human',
      );
    });
  });

  test('the menu asks for a human; "new conversation" closes it and starts another; "forget me" erases the visitor', async () => {
    const { agentId, url } = await humanAgent('/menu');
    await withPage(browser, {}, async ({ page, context }) => {
      const init = await loadWidget(page, url);
      const anonId = await page.evaluate(() => localStorage.getItem('svc_anon_id'));
      assert.match(anonId ?? '', /^[A-Za-z0-9_-]{8,64}$/);
      await openPanel(page);
      await ask(page, 'Hello?');
      await menuItem(page, 'menu-human');
      // Nobody has the console open for this workspace: the visitor is told so.
      await byTestId(page, 'notice')
        .filter({ hasText: uiString('en', 'humanOffline') })
        .waitFor();
      const waiting = await eventually(
        () => conversation(init.conversation_id),
        (row) => row?.status === 'waiting',
      );
      assert.equal(waiting?.status, 'waiting');
      const visitorId = waiting?.visitor_id ?? '';

      // New conversation: the log empties (but for the welcome), the old one is closed, a new open one exists.
      const messages = page.locator('[data-service-widget] [data-testid="messages"] > *');
      assert.ok((await messages.count()) >= 3, 'question, answer and notice shown');
      const cleared = page.waitForResponse((r) => isPath(r.url(), '/v1/widget/conversation/clear'));
      await byTestId(page, 'clear').click();
      assert.equal((await cleared).status(), 200);
      await page.waitForFunction(() => {
        const log = document
          .querySelector('[data-service-widget]')
          ?.shadowRoot?.querySelector('[data-testid="messages"]');
        const shown = log?.querySelectorAll('[data-testid="message"], [data-testid="notice"]').length;
        return shown === 0 && log?.querySelector('[data-testid="welcome"]') !== null;
      });
      assert.equal((await conversation(init.conversation_id))?.status, 'closed');
      const rows = await service.t.database.db
        .selectFrom('conversations')
        .select(['id', 'status'])
        .where('visitor_id', '=', visitorId)
        .execute();
      const fresh = rows.filter((row) => row.id !== init.conversation_id);
      assert.equal(fresh.length, 1, 'one new conversation for the same visitor');
      assert.equal(fresh[0]?.status, 'open');
      const cookie = (await context.cookies(url)).find((c) => c.name === 'svc_conversation');
      assert.equal(cookie?.value, fresh[0]?.id, 'the cookie names the new conversation');

      // The new conversation is usable.
      await ask(page, 'Second question');
      assert.equal(await assistantMessages(page).count(), 1);

      // Forget me: DELETE me, no visitor row left, the stored anonymous id is gone.
      const erased = page.waitForResponse(
        (r) => isPath(r.url(), '/v1/widget/me') && r.request().method() === 'DELETE',
      );
      await menuItem(page, 'menu-forget');
      assert.equal((await erased).status(), 204);
      await byTestId(page, 'notice')
        .filter({ hasText: uiString('en', 'forgotten') })
        .waitFor();
      const visitors = await service.t.database.db
        .selectFrom('visitors')
        .select(['id', 'anon_id'])
        .where('agent_id', '=', agentId)
        .execute();
      assert.deepEqual(visitors, [], 'no visitor row left');
      const leftovers = await service.t.database.db
        .selectFrom('conversations')
        .select('id')
        .where('visitor_id', '=', visitorId)
        .execute();
      assert.deepEqual(leftovers, [], 'no conversation left');
      const stored = await page.evaluate(() => localStorage.getItem('svc_anon_id'));
      assert.notEqual(stored, anonId, 'the erased anonymous id is no longer stored');
      const cookieAfter = (await context.cookies(url)).find((c) => c.name === 'svc_conversation');
      assert.equal(cookieAfter, undefined, 'the conversation cookie is removed');
    });
  });

  // docs/widget.md: "Delete my data … also removes `svc_anon_id` and the cookie from the browser."
  test('"forget me" leaves no svc_anon_id in localStorage', async () => {
    const { url } = await humanAgent('/forget');
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      assert.ok(await page.evaluate(() => localStorage.getItem('svc_anon_id')), 'an id is stored at first');
      await openPanel(page);
      const erased = page.waitForResponse(
        (r) => isPath(r.url(), '/v1/widget/me') && r.request().method() === 'DELETE',
      );
      await menuItem(page, 'menu-forget');
      assert.equal((await erased).status(), 204);
      await byTestId(page, 'notice')
        .filter({ hasText: uiString('en', 'forgotten') })
        .waitFor();
      assert.equal(await page.evaluate(() => localStorage.getItem('svc_anon_id')), null);
    });
  });
});
