import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { addText } from '../../../server/test/support/widget.js';
import { requestsTo, withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import { embedPage, type HostSite } from './support/host.js';
import { eventually, hostAgent, type Service } from './support/service.js';
import {
  ask,
  assertCitations,
  assistantMessages,
  byTestId,
  doneFrame,
  loadWidget,
  nextInit,
  openPanel,
  parseFrames,
  uiString,
} from './support/widget.js';

// The built widget on a host page of another origin, talking to the real service (offline
// answers: no model configured, so the answer is an extract of the indexed text).

const SOURCE_NAME = 'Returns policy';
const SOURCE_TEXT = `Returns policy of the shop.

Unworn hiking boots can be returned within 45 days of delivery for a full refund. Gift cards are never refundable. Refunds reach the original payment method within five business days.`;

const ZTyping = z.object({ typing: z.boolean() });

describe('widget in Chromium: chat', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  /** A published agent allowing the host site, with the returns policy indexed. */
  async function agentWithPolicy(agent: Record<string, unknown> = {}): Promise<string> {
    const { tenant, agentId } = await hostAgent(service, host.origin, agent);
    await addText(service.t, tenant, agentId, SOURCE_NAME, SOURCE_TEXT);
    return agentId;
  }

  test('the launcher appears in the shadow root, init succeeds, and a question streams a cited answer', async () => {
    const agentId = await agentWithPolicy();
    const url = host.serve('/chat', { html: embedPage({ service: service.base, agentId }) });
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      const launcher = byTestId(page, 'launcher');
      // Its visible label names it (label in name); an aria-label would hide that text.
      assert.equal(await launcher.getAttribute('aria-label'), null);
      assert.equal((await launcher.textContent())?.trim(), 'Chat with us');
      const inShadow = await page.evaluate(() => {
        const container = document.querySelector('[data-service-widget]');
        return {
          open: container?.shadowRoot?.mode === 'open',
          inside: Boolean(container?.shadowRoot?.querySelector('[data-testid="launcher"]')),
          leaked: document.querySelectorAll('[data-testid="launcher"]').length,
        };
      });
      assert.deepEqual(
        inShadow,
        { open: true, inside: true, leaked: 0 },
        'the UI lives in an open shadow root',
      );

      await openPanel(page);
      const response = await ask(page, 'How many days do I have to return unworn hiking boots?');
      assert.equal(response.status(), 200);
      assert.match(response.headers()['content-type'] ?? '', /^text\/event-stream/);
      const frames = parseFrames(await response.text());
      assert.ok(
        frames.filter((frame) => frame.event === 'token').length >= 1,
        'the answer came as token frames',
      );
      const done = await doneFrame(response);
      assert.deepEqual(
        done.citations.map((c) => c.title),
        [SOURCE_NAME],
      );

      const answer = assistantMessages(page).last();
      const text = (await answer.innerText()).replace(/\s+/g, ' ');
      assert.match(text, /within 45 days of delivery/, 'the answer quotes the source');
      const visitor = page.locator('[data-service-widget] [data-testid="message"][data-role="visitor"]');
      assert.equal(
        await visitor.last().innerText(),
        'How many days do I have to return unworn hiking boots?',
      );
      const citations = answer.locator('[data-testid="citation"]');
      await assertCitations(citations, SOURCE_NAME);
    });
  });

  test('the lead form submits and stores a lead', async () => {
    const { agentId } = await hostAgent(service, host.origin, { widget_features: { leads: true } });
    const url = host.serve('/lead', { html: embedPage({ service: service.base, agentId }) });
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      await openPanel(page);
      await byTestId(page, 'menu').click();
      await byTestId(page, 'menu-lead').click();
      const form = byTestId(page, 'lead-form');
      await form.waitFor({ state: 'visible' });
      // An invalid email is refused in the page, before a request is made.
      await byTestId(page, 'lead-email').fill('not-an-email');
      await byTestId(page, 'lead-submit').click();
      await form.getByText(uiString('en', 'emailInvalid')).waitFor();

      await byTestId(page, 'lead-email').fill('  Ada.Visitor@Example.com ');
      await byTestId(page, 'lead-name').fill('Ada Visitor');
      await byTestId(page, 'lead-phone').fill('+33 1 23 45 67 89');
      const posted = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/widget/leads');
      await byTestId(page, 'lead-submit').click();
      assert.equal((await posted).status(), 201);
      await form.getByText(uiString('en', 'leadThanks')).waitFor();
    });
    const leads = await service.t.database.db
      .selectFrom('leads')
      .select(['email_normalized', 'name', 'phone', 'conversation_id'])
      .where('agent_id', '=', agentId)
      .execute();
    assert.equal(leads.length, 1);
    assert.equal(leads[0]?.email_normalized, 'ada.visitor@example.com');
    assert.equal(leads[0]?.name, 'Ada Visitor');
    assert.equal(leads[0]?.phone, '+33 1 23 45 67 89');
    assert.ok(leads[0]?.conversation_id, 'the lead is linked to the conversation');
  });

  test('the typing signal is debounced: a burst of keystrokes sends one or two signals, sending ends it', async () => {
    const agentId = await agentWithPolicy();
    const url = host.serve('/typing', { html: embedPage({ service: service.base, agentId }) });
    // The conversation row appears at the token's first call (init stores nothing): no row yet
    // reads as "not typing".
    const typingAt = async (id: string) =>
      (
        await service.t.database.db
          .selectFrom('conversations')
          .select('visitor_typing_at')
          .where('id', '=', id)
          .executeTakeFirst()
      )?.visitor_typing_at ?? null;
    await withPage(browser, {}, async (watched) => {
      const { page } = watched;
      const init = await loadWidget(page, url);
      await openPanel(page);
      assert.equal(await typingAt(init.conversation_id), null, 'not typing before a keystroke');
      const question = 'Can I return unworn hiking boots that I bought last month?';
      await byTestId(page, 'input').pressSequentially(question);
      const typing = await eventually(
        () => typingAt(init.conversation_id),
        (value) => value !== null,
      );
      assert.ok(typing instanceof Date, 'the service stored that the visitor is typing');

      // Sending ends the signal: one `typing: false`, and the service forgets it.
      const stream = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/widget/messages/stream');
      await byTestId(page, 'send').click();
      await (await stream).finished();
      await page.locator('[data-service-widget] [data-testid="messages"]:not([aria-busy])').waitFor();
      const signals = requestsTo(watched, '/v1/widget/typing', 'POST').map(
        (request) => ZTyping.parse(JSON.parse(request.postData() ?? 'null')).typing,
      );
      const on = signals.filter((value) => value);
      assert.ok(on.length >= 1 && on.length <= 2, `${question.length} keystrokes sent ${on.length} signals`);
      assert.deepEqual(signals, [...on, false], 'the signals while typing, then one "stopped"');
      const cleared = await eventually(
        () => typingAt(init.conversation_id),
        (value) => value === null,
      );
      assert.equal(cleared, null, 'no longer typing once the message is sent');
      assert.match(await assistantMessages(page).last().innerText(), /45 days/);
    });
  });

  test('a reload keeps the anonymous id and shows the conversation again', async () => {
    const agentId = await agentWithPolicy();
    const url = host.serve('/reload', { html: embedPage({ service: service.base, agentId }) });
    await withPage(browser, {}, async ({ page }) => {
      const first = await loadWidget(page, url);
      assert.deepEqual(first.messages, [], 'a new visitor starts with no history');
      await openPanel(page);
      await ask(page, 'Are gift cards refundable?');
      const anonBefore = await page.evaluate(() => localStorage.getItem('svc_anon_id'));
      assert.match(anonBefore ?? '', /^[A-Za-z0-9_-]{8,64}$/);
      const cookie = (await page.context().cookies(url)).find((c) => c.name === 'svc_conversation');
      assert.equal(cookie?.value, first.conversation_id, 'the conversation cookie names the conversation');

      const second = await nextInit(page, () => page.reload());
      assert.equal(await page.evaluate(() => localStorage.getItem('svc_anon_id')), anonBefore);
      assert.equal(second.conversation_id, first.conversation_id, 'the same conversation resumes');
      assert.deepEqual(
        second.messages.map((m) => m.role),
        ['visitor', 'assistant'],
      );
      await openPanel(page);
      const visitor = page.locator('[data-service-widget] [data-testid="message"][data-role="visitor"]');
      await visitor.first().waitFor();
      assert.equal(await visitor.count(), 1);
      assert.equal(await visitor.first().innerText(), 'Are gift cards refundable?');
      assert.match(await assistantMessages(page).first().innerText(), /Gift cards are never refundable/);
    });
  });
});
