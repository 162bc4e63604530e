import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZCorrection, ZKbSettings } from '@service/contract';
import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';
import { runEvaluation } from '../../../server/test/support/evaluations.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  addText,
  askWidget,
  createWidgetAgent,
  initSession,
  widgetCall,
} from '../../../server/test/support/widget.js';
import {
  type ConsoleService,
  checkScreen,
  createAgentAs,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The quality loop's screens in Chromium against the real service: an agent's corrections (one
// written here is what "test a question" picks, and the widget's answer then counts as a use),
// its unanswered and down-rated questions (a down-rated one turned into a correction by the
// prefilled form, and resolved), its quality tab (a golden question added, an evaluation run
// and its row), and the workspace's KB settings and an article's category. Every screen is
// checked with axe-core, at 390 px and in dark colours, and pictured for docs/screenshots.

const PASSWORD = 'correct horse battery';
const SHIPPING =
  'Shipping policy\n\nWe ship every order within two business days from our warehouse in Lyon. ' +
  'Delivery inside Europe takes three to five working days, and parcels are tracked from the moment ' +
  'they leave us until they reach you.';
const RETURNS =
  'Returns\n\nReturns are accepted for thirty days after delivery, unworn and in their box. ' +
  'Refunds reach your card within ten days of the return arriving.';

describe('admin console: corrections, questions, quality, KB settings', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let agentId = '';
  let emptyAgentId = '';
  let shippingDocumentId = '';

  const url = (path: string) => `${service.base}${path}`;
  const agentPath = (id: string, tab: string) => `/admin/agents/${id}/${tab}`;
  const readCorrections = async () => {
    const res = await service.t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/agents/${agentId}/corrections`,
      headers: tenant.auth,
    });
    return z.object({ data: z.array(ZCorrection) }).parse(res.json()).data;
  };

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    tenant = await seedTenant(service.t, 'Acme Shoes');
    ({ agentId } = await createWidgetAgent(service.t, { name: 'Shop helper' }, tenant));
    emptyAgentId = await createAgentAs(service.t, tenant, 'New helper');
    const shipping = await addText(service.t, tenant, agentId, 'Shipping policy', SHIPPING);
    await addText(service.t, tenant, agentId, 'Returns', RETURNS);
    const document = await service.t.database.db
      .selectFrom('documents')
      .select('id')
      .where('source_id', '=', shipping)
      .executeTakeFirstOrThrow();
    shippingDocumentId = document.id;
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  async function open(page: Page, path: string, heading: string): Promise<void> {
    await signIn(
      page,
      service.base,
      { email: tenant.user.email, password: PASSWORD },
      { from: path, to: path },
    );
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
  }

  test('corrections: empty state, a refused empty form, one written, picked by "test a question", then used', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await open(page, agentPath(agentId, 'corrections'), 'Corrections');
      const tab = page.getByRole('navigation', { name: 'Agent' }).getByRole('link', { name: 'Corrections' });
      assert.equal(await tab.getAttribute('aria-current'), 'page');
      await page.getByRole('heading', { name: 'No corrections yet' }).waitFor();
      await checkScreen(page, 'corrections-empty');

      // Nothing typed: the fields say so, nothing is sent.
      await page.getByRole('button', { name: 'New correction' }).click();
      const form = page.locator('form', { has: page.getByRole('heading', { name: 'New correction' }) });
      await form.getByRole('button', { name: 'Save correction' }).click();
      await form.getByText('Write the question.').waitFor();
      await form.getByText('Write the answer.').waitFor();
      assert.equal(await form.getByLabel('Question').getAttribute('aria-invalid'), 'true');
      assert.equal((await readCorrections()).length, 0);

      // Typed by keyboard and saved.
      await form.getByLabel('Question').focus();
      await page.keyboard.type('Do you deliver on Sundays?');
      await form.getByLabel('Answer').fill('No: couriers deliver Monday to Saturday only.');
      await form.getByRole('button', { name: 'Save correction' }).press('Enter');
      await page.getByRole('status').getByText('Correction saved: the agent gives it from now on.').waitFor();
      const row = page.getByRole('list', { name: 'Corrections' }).getByRole('listitem');
      await row.getByRole('heading', { name: 'Do you deliver on Sundays?' }).waitFor();
      await row.getByText('Not used yet').waitFor();

      // "Test a question": a close wording picks the correction, with its score over the threshold.
      await page.getByLabel('Visitor’s question').fill('do you deliver on sundays');
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.getByText('A correction answers this question.').waitFor();
      const match = page.locator('.q-match.is-used');
      await match.getByText('No: couriers deliver Monday to Saturday only.').waitFor();
      assert.match((await match.textContent()) ?? '', /score \d\.\d{4} \(answers from 0\.7000\)/);
      // A question of the knowledge: no correction is close, the passages come with scores.
      await page.getByLabel('Visitor’s question').fill('How long does delivery in Europe take?');
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.getByText('No correction is close enough: the agent answers from its knowledge.').waitFor();
      await page.locator('.q-chunks summary').click();
      await page.locator('.q-chunks li', { hasText: 'Shipping policy' }).first().waitFor();
      await checkScreen(page, 'corrections');

      // A visitor asks it: the widget answers with the correction, and the page counts the use.
      const session = await initSession(service.t, agentId);
      const answer = await askWidget(service.t, session.token, 'Do you deliver on Sundays?');
      assert.equal(answer.text, 'No: couriers deliver Monday to Saturday only.');
      await page.reload();
      await row.getByText('Used 1 time').waitFor();
    });
  });

  test('questions: a down-rated answer becomes a correction from the prefilled form and is resolved', async () => {
    const session = await initSession(service.t, agentId);
    const answer = await askWidget(service.t, session.token, 'When do refunds reach my card?');
    assert.ok(answer.message_id);
    const rated = await widgetCall(service.t, 'POST', '/v1/widget/satisfaction', session.token, {
      rating: 'down',
      message_id: answer.message_id,
    });
    assert.equal(rated.statusCode, 200, rated.body);
    await askWidget(service.t, session.token, 'zebra quantum teleport');

    await withPage(browser, {}, async ({ page }) => {
      await open(page, agentPath(emptyAgentId, 'questions'), 'Unanswered and down-rated questions');
      await page.getByRole('heading', { name: 'No questions recorded yet' }).waitFor();
      await checkScreen(page, 'questions-empty');

      await page.goto(url(agentPath(agentId, 'questions')));
      const list = page.getByRole('list', { name: 'Questions' });
      await list.getByRole('heading', { name: 'zebra quantum teleport' }).waitFor();
      // The counts are in the filters; a reason narrows the list (and the address keeps it).
      assert.match(
        (await page.getByLabel('Status').locator('option:checked').textContent()) ?? '',
        /^Open \(2\)$/,
      );
      await page.getByLabel('Reason').selectOption('rated_down');
      await page.waitForURL(url(`${agentPath(agentId, 'questions')}?status=open&reason=rated_down`));
      const row = list.getByRole('listitem').filter({ hasText: 'When do refunds reach my card?' });
      await list.getByRole('heading', { name: 'zebra quantum teleport' }).waitFor({ state: 'detached' });
      await row.getByText('Rated down').waitFor();
      await row.locator('summary').click();
      assert.match(
        (await row.locator('summary').textContent()) ?? '',
        /^Chunks behind the answer \([1-9]\d*\)$/,
      );
      // Each chunk names the page it came from.
      await row.locator('.q-chunks li', { hasText: 'Returns' }).first().waitFor();
      await checkScreen(page, 'questions');

      // The form is prefilled with the question and the agent's own answer (a down-rated one to fix).
      await row.getByRole('button', { name: 'Answer with a correction' }).click();
      const form = row.locator('form');
      assert.equal(await form.getByLabel('Question').inputValue(), 'When do refunds reach my card?');
      assert.equal(await form.getByLabel('Answer').inputValue(), answer.text);
      await form.getByLabel('Answer').fill('Refunds reach your card within ten days of the return arriving.');
      await form.getByRole('button', { name: 'Save correction and resolve' }).click();
      await page
        .getByRole('status')
        .getByText('Saved as a correction: the agent gives it from now on.')
        .waitFor();
      await page.getByRole('heading', { name: 'Nothing here' }).waitFor();

      // Among the resolved, with how it was resolved; and among the corrections.
      await page.getByLabel('Status').selectOption('resolved');
      await row.getByText('Answered by a correction').waitFor();
      assert.equal(await row.getByRole('button', { name: 'Answer with a correction' }).count(), 0);
    });
    const made = (await readCorrections()).find((c) => c.question === 'When do refunds reach my card?');
    assert.equal(made?.source, 'question');
    // The next visitor who asks gets the correction, word for word.
    const again = await askWidget(service.t, session.token, 'When do refunds reach my card?');
    assert.equal(again.text, 'Refunds reach your card within ten days of the return arriving.');
  });

  test('quality: a refused run says why, a golden question is added, a run shows its row and details', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await open(page, agentPath(agentId, 'quality'), 'Quality');
        await page.getByRole('heading', { name: 'No golden questions yet' }).waitFor();
        await page.getByRole('heading', { name: 'No runs yet' }).waitFor();
        await checkScreen(page, 'quality-empty');
        // The set is empty: the service refuses the run (409) and the page says what to do.
        await page.getByRole('button', { name: 'Run evaluation now' }).click();
        await page
          .getByRole('alert')
          .getByText(/Add at least one question to the golden set first/)
          .waitFor();

        await page.getByRole('button', { name: 'Add a question' }).click();
        const form = page.locator('form', {
          has: page.getByRole('heading', { name: 'New golden question' }),
        });
        await form.getByLabel('Question').fill('How long does delivery take?');
        // Not a URL: refused beside the field, nothing sent.
        await form.getByLabel('Expected pages').fill('https://');
        await form.getByRole('button', { name: 'Save question' }).click();
        await form.locator('#field-golden-expected-error').waitFor();
        await form.getByLabel('Expected pages').fill(shippingDocumentId);
        await form.getByRole('button', { name: 'Save question' }).click();
        await page.getByRole('status').getByText('Question added to the golden set.').waitFor();

        const started = page.waitForResponse(
          (response) => response.url().endsWith('/evaluations') && response.request().method() === 'POST',
        );
        await page.getByRole('button', { name: 'Run evaluation now' }).click();
        const run = (await (await started).json()).data;
        assert.equal(run.status, 'queued');
        await page.locator('.q-runs tbody tr').first().getByText('queued').waitFor();
        // The worker runs it; the page reads the list again while it is queued.
        await runEvaluation(service.t, run.id);
        const row = page.locator('.q-runs tbody tr').first();
        await row.getByText('done').waitFor();
        const cells = await row.locator('td').allTextContents();
        assert.equal(cells[2], '1');
        assert.equal(cells[3], '100.0 %');
        assert.equal(cells[4], '100.0 %');
        assert.equal(cells[5], '1.000');
        await row.getByRole('button', { name: /^Details/ }).click();
        await page.getByText('Every question found an expected page in the top five.').waitFor();
        // A second run: the history chart appears (two finished runs), no regression listed.
        const again = page.waitForResponse(
          (response) => response.url().endsWith('/evaluations') && response.request().method() === 'POST',
        );
        await page.getByRole('button', { name: 'Run evaluation now' }).click();
        const second = (await (await again).json()).data;
        await runEvaluation(service.t, second.id);
        await page.getByRole('heading', { name: 'Quality over runs' }).waitFor();
        assert.equal(await page.locator('.q-history canvas').count(), 1);
        await page.getByText('No run lost a question its previous run found.').waitFor();
        await page
          .getByText(/2 finished runs from .*: recall@5 went from 100% to 100%/)
          .waitFor({ state: 'attached' });
        await checkScreen(page, 'quality');
      },
      /^(401 GET \/api\/v1\/admin\/session|409 POST \/api\/v1\/admin\/agents\/\w+\/evaluations)$/,
    );
  });

  test('KB settings: a bad logo is refused beside its field; title, colour and widget agent are saved; an article gets a category', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await open(page, '/admin/kb', 'Knowledge base');
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.waitForURL(url('/admin/kb/settings'));
      await page.getByRole('heading', { name: 'Knowledge base settings' }).waitFor();
      await page.getByLabel('Title').fill('Acme help');
      await page.getByLabel('Logo address (optional)').fill('javascript:alert(1)');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('#field-logo_url-error').waitFor();
      assert.equal(await page.getByLabel('Logo address (optional)').getAttribute('aria-invalid'), 'true');

      await page.getByLabel('Logo address (optional)').fill('/files/logo.svg');
      await page.getByLabel('Colour (optional)').fill('#1F6FEB');
      await page.getByLabel('Chat widget on the pages').selectOption({ label: 'Shop helper' });
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').getByText('Settings saved: the public pages show them now.').waitFor();
      // Stored lower-case, and shown as stored.
      assert.equal(await page.getByLabel('Colour (optional)').inputValue(), '#1f6feb');
      await checkScreen(page, 'kb-settings');

      await page.getByRole('link', { name: 'Knowledge base', exact: true }).first().click();
      await page.getByRole('button', { name: 'New article' }).click();
      await page.getByLabel('Title').fill('Opening hours');
      await page.getByLabel('Category (optional)').fill('Visiting us');
      await page.getByLabel('Text (Markdown)').fill('We are open **9 to 5**, Monday to Saturday.');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved as a draft.').waitFor();
      await page.getByRole('button', { name: 'Back to the list' }).click();
      await page.getByText(/opening-hours · Visiting us · updated/).waitFor();
    });
    const res = await service.t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/kb/settings',
      headers: tenant.auth,
    });
    const stored = ZKbSettings.parse(res.json().data);
    assert.deepEqual(
      {
        title: stored.title,
        logo_url: stored.logo_url,
        color: stored.color,
        widget_agent_id: stored.widget_agent_id,
      },
      { title: 'Acme help', logo_url: '/files/logo.svg', color: '#1f6feb', widget_agent_id: agentId },
    );
    const article = await service.t.database.db
      .selectFrom('kb_articles')
      .select('category')
      .where('slug', '=', 'opening-hours')
      .executeTakeFirstOrThrow();
    assert.equal(article.category, 'Visiting us');
  });
});
