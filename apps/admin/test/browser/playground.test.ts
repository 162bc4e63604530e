import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { RRF_K } from '../../../server/src/retrieval/fusion.js';
import { FULL_SEARCH } from '../../../server/src/retrieval/search-components.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import { addText } from '../../../server/test/support/widget.js';
import {
  type ConsoleService,
  checkScreen,
  createAgentAs,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// An agent's playground in Chromium against the real service: an agent with a text source
// indexed answers a question (streamed over the admin route), with the chunks it used, their
// ranks and fused scores under the answer; a follow-up carries the history; nothing becomes a
// visitor conversation. An agent without knowledge shows the way to add some. A 429 from the
// expensive budget (set small here) shows the wait. Every screen is checked with axe-core, at
// 390 px and in dark colours.

const PASSWORD = 'correct horse battery';
/** The expensive-route budget per session: the questions of one test fit, the fifth of the 429 test does not. */
const EXPENSIVE_BUDGET = 4;
const SHIPPING =
  'Shipping policy\n\nWe ship every order within two business days from our warehouse in Lyon. ' +
  'Delivery inside Europe takes three to five working days, and parcels are tracked from the moment ' +
  'they leave us until they reach you. Orders placed before noon on a working day leave the same day; ' +
  'orders placed later, or on a weekend, leave on the next working day.\n\n' +
  'Returns are accepted for thirty days after delivery, unworn and in their box.';
/** Knowledge carrying markup: the page must show it as text, never run or render it. */
const HOSTILE =
  'Returns and refunds\n\nRefunds reach your card <img src=x onerror="window.__pwned=1"> within ten days ' +
  'of the return arriving <script>window.__pwned=2</script><b>bold</b>.';

describe('admin console: playground', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let agentId = '';
  let emptyAgentId = '';

  const url = (path: string) => `${service.base}${path}`;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService({
      ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: String(EXPENSIVE_BUDGET),
    });
    tenant = await seedTenant(service.t, 'Acme Shoes');
    agentId = await createAgentAs(service.t, tenant, 'Shop helper');
    emptyAgentId = await createAgentAs(service.t, tenant, 'New helper');
    await addText(service.t, tenant, agentId, 'Shipping policy', SHIPPING);
    await addText(service.t, tenant, agentId, 'Refunds <i>policy</i>', HOSTILE);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  async function signInTo(page: Page, id: string): Promise<void> {
    // Sign-in returns to the page asked for.
    const playground = `/admin/agents/${id}/playground`;
    await signIn(
      page,
      service.base,
      { email: tenant.user.email, password: PASSWORD },
      { from: playground, to: playground },
    );
    await page.getByRole('heading', { name: 'Playground', exact: true }).waitFor();
  }

  const storedConversations = async () =>
    Number(
      (
        await service.t.database.db
          .selectFrom('conversations')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('an agent without knowledge says so and leads to the Knowledge tab', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signInTo(page, emptyAgentId);
      await page.getByRole('heading', { name: 'No knowledge yet' }).waitFor();
      assert.equal(await page.getByLabel('Your question').count(), 0, 'nothing to ask yet');
      const current = page
        .getByRole('navigation', { name: 'Agent' })
        .getByRole('link', { name: 'Playground' });
      assert.equal(await current.getAttribute('aria-current'), 'page');
      await checkScreen(page, 'playground-empty');
      await page.getByRole('link', { name: 'Add knowledge' }).click();
      await page.waitForURL(url(`/admin/agents/${emptyAgentId}/knowledge`));
      await page.getByRole('heading', { name: 'Knowledge', exact: true }).waitFor();
    });
  });

  test('asks by keyboard: the answer streams in with its citation, the chunks used and their ranks', async () => {
    const before = await storedConversations();
    await withPage(browser, {}, async ({ page }) => {
      await signInTo(page, agentId);
      await page.getByText('Ask what a visitor would.').waitFor();
      await checkScreen(page, 'playground-start');

      const box = page.getByLabel('Your question');
      await box.focus();
      await page.keyboard.type('How long does delivery in Europe take?');
      const streamed = page.waitForResponse((response) => response.url().endsWith('/playground'));
      await page.keyboard.press('Enter');
      const response = await streamed;
      assert.equal(response.status(), 200);
      assert.match(response.headers()['content-type'] ?? '', /^text\/event-stream/);

      const turn = page.locator('.pg-turn').first();
      await turn
        .locator('.pg-answer-text')
        .getByText(/three to five working days/)
        .waitFor();
      await page.getByRole('status').getByText('Answer complete.').waitFor();
      assert.match((await turn.locator('.pg-answer-text').textContent()) ?? '', /\[1\]/);
      assert.equal(await box.inputValue(), '', 'the box is cleared for the next question');

      // Sources used: collapsed at first, opened by keyboard.
      const summary = turn.locator('summary');
      assert.match((await summary.textContent()) ?? '', /^Sources used \(\d+, 1 cited\)$/);
      await summary.focus();
      await page.keyboard.press('Enter');
      const chunk = turn.locator('.pg-chunk').first();
      await chunk.waitFor();
      assert.equal(await chunk.locator('.pg-title').textContent(), 'Shipping policy');
      await chunk.getByText('Cited', { exact: true }).waitFor();
      const headers = await chunk.locator('.pg-ranks th').allTextContents();
      assert.deepEqual(headers, ['Full-text', 'Trigram', 'Vector', 'Fused score']);
      const cells = await chunk.locator('.pg-ranks td').allTextContents();
      assert.equal(cells[0], '#1', 'first in the full-text list');
      assert.match(cells[3] ?? '', /^0\.\d{4}$/);
      // The fused score is weighted reciprocal-rank fusion's: weight/(60+rank) summed over the
      // lists that found it (full-text weighs 1, the typo and vector lists the search's weights).
      const weights = [1, FULL_SEARCH.weights.trigram, FULL_SEARCH.weights.vector];
      const fused = cells
        .slice(0, 3)
        .reduce(
          (sum, cell, list) =>
            cell.startsWith('#') ? sum + (weights[list] ?? 0) / (RRF_K + Number(cell.slice(1))) : sum,
          0,
        );
      assert.equal(cells[3], fused.toFixed(4));

      // The excerpt expands to the full chunk text and back.
      const text = chunk.locator('.pg-text');
      assert.match((await text.textContent()) ?? '', /…$/);
      const more = chunk.getByRole('button', { name: 'Show full text' });
      await more.focus();
      await page.keyboard.press('Enter');
      await chunk.getByRole('button', { name: 'Show less' }).waitFor();
      assert.match((await text.textContent()) ?? '', /unworn and in their box\.$/);
      await checkScreen(page, 'playground');

      // A follow-up carries the first turn as history.
      await box.focus();
      await page.keyboard.type('And refunds?');
      const followUp = page.waitForRequest((request) => request.url().endsWith('/playground'));
      await page.keyboard.press('Enter');
      const sent = (await followUp).postDataJSON();
      assert.equal(sent.question, 'And refunds?');
      assert.deepEqual(
        sent.history.map((turn: { role: string }) => turn.role),
        ['visitor', 'assistant'],
      );
      // Markup in the knowledge is shown as text: nothing of it runs or becomes an element.
      const second = page.locator('.pg-turn').nth(1);
      await second
        .locator('.pg-answer-text')
        .getByText(/within ten days/)
        .waitFor();
      await second.locator('summary').click();
      const hostile = second.locator('.pg-chunk', { hasText: 'Refunds <i>policy</i>' });
      await hostile.locator('.pg-text', { hasText: '<img src=x onerror="window.__pwned=1">' }).waitFor();
      assert.equal(
        await page.locator('.pg-turns img, .pg-turns script, .pg-turns b, .pg-turns i').count(),
        0,
      );
      assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
      await page.getByRole('button', { name: 'New conversation' }).click();
      await page.getByText('Ask what a visitor would.').waitFor();
    });
    assert.equal(await storedConversations(), before, 'the playground stores no conversation');
  });

  test('an empty question is refused beside the box; over the budget, the wait is shown', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await signInTo(page, agentId);
        const box = page.getByLabel('Your question');
        await box.focus();
        await page.keyboard.press('Enter');
        await page.locator('#pg-question-error').waitFor();
        assert.equal(await box.getAttribute('aria-invalid'), 'true');

        for (let i = 1; i <= EXPENSIVE_BUDGET; i++) {
          await box.fill(`Do you ship to Lyon? (${i})`);
          await page.getByRole('button', { name: 'Ask' }).click();
          await page
            .locator('.pg-turn')
            .nth(i - 1)
            .locator('summary')
            .waitFor();
          await page.getByRole('button', { name: 'Ask' }).and(page.locator(':enabled')).waitFor();
        }
        await box.fill('One more?');
        await page.getByRole('button', { name: 'Ask' }).click();
        await page
          .getByRole('alert')
          .getByText(/^Too many attempts\. Try again in \d+ seconds?\.$/)
          .waitFor();
        assert.equal(await box.inputValue(), 'One more?', 'the question stays in the box');
        await checkScreen(page, 'playground-wait');
      },
      /^(401 GET \/api\/v1\/admin\/session|429 POST \/api\/v1\/admin\/agents\/\w+\/playground)$/,
    );
  });
});
