import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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

// The analytics tab in Chromium against the real service: traffic made through the widget API
// (an answered question, an unanswered one, a handoff, a rating up and one down) shows as the
// tiles, the top questions and the cited sources; the CSV export downloads the same days; a
// custom period the service would refuse is refused on the page. Checked with axe-core, at
// 390 px and in dark colours, and pictured.

const PASSWORD = 'correct horse battery';
const FAQ =
  'Shipping and returns\n\nDelivery takes two to three working days within the country. Returns are free ' +
  'for thirty days after delivery. We ship every order with a tracked parcel.';

describe('admin console: analytics', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let agentId = '';
  let emptyAgentId = '';

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    tenant = await seedTenant(service.t, 'Acme Shoes');
    ({ agentId } = await createWidgetAgent(service.t, { name: 'Shop helper' }, tenant));
    emptyAgentId = await createAgentAs(service.t, tenant, 'New helper');
    await addText(service.t, tenant, agentId, 'Shipping and returns', FAQ);
    const t = service.t;
    const first = await initSession(t, agentId);
    const answered = await askWidget(t, first.token, 'Are returns free?');
    assert.ok(answered.citations.length > 0, 'the answer cites the page');
    await askWidget(t, first.token, 'zebra quantum teleport');
    const up = await widgetCall(t, 'POST', '/v1/widget/satisfaction', first.token, {
      rating: 'up',
      message_id: answered.message_id,
    });
    assert.equal(up.statusCode, 200, up.body);
    const second = await initSession(t, agentId);
    const delivery = await askWidget(t, second.token, 'are returns free');
    const human = await widgetCall(t, 'POST', '/v1/widget/request-human', second.token);
    assert.equal(human.statusCode, 200, human.body);
    const down = await widgetCall(t, 'POST', '/v1/widget/satisfaction', second.token, {
      rating: 'down',
      message_id: delivery.message_id,
    });
    assert.equal(down.statusCode, 200, down.body);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  async function open(page: Page, id: string): Promise<void> {
    const path = `/admin/agents/${id}/analytics`;
    await signIn(
      page,
      service.base,
      { email: tenant.user.email, password: PASSWORD },
      { from: path, to: path },
    );
    await page.getByRole('heading', { name: 'Analytics', exact: true }).waitFor();
  }

  const tile = (page: Page, label: string) =>
    page.getByRole('list', { name: 'Totals' }).getByRole('listitem').filter({ hasText: label });

  test('the counts the widget traffic made: tiles, top questions, cited sources, CSV', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await open(page, agentId);
      const tab = page.getByRole('navigation', { name: 'Agent' }).getByRole('link', { name: 'Analytics' });
      assert.equal(await tab.getAttribute('aria-current'), 'page');
      await tile(page, 'Conversations').getByText('2', { exact: true }).waitFor();
      await tile(page, 'Conversations').getByText('3 visitor messages').waitFor();
      await tile(page, 'Answered by the bot alone').getByText('50%').waitFor();
      await tile(page, 'Answered by the bot alone').getByText('1 bot only, 1 handed to a human').waitFor();
      await tile(page, 'Unanswered').getByText('1 of 3 questions').waitFor();
      await tile(page, 'Satisfaction').getByText('1 up, 1 down').waitFor();

      const questions = page.locator('section', {
        has: page.getByRole('heading', { name: 'Top questions' }),
      });
      const top = questions.getByRole('row').nth(1);
      assert.deepEqual(await top.getByRole('cell').allTextContents(), ['Are returns free?', '2', '0']);
      await questions
        .getByRole('row', { name: /zebra quantum teleport/ })
        .getByRole('cell')
        .nth(2)
        .getByText('1')
        .waitFor();

      const sources = page.locator('section', {
        has: page.getByRole('heading', { name: 'Most cited sources' }),
      });
      const source = sources.getByRole('row', { name: /Shipping and returns/ });
      assert.deepEqual(await source.getByRole('cell').allTextContents(), [
        'Shipping and returns',
        '2',
        '1',
        '1',
      ]);

      // Two charts, each with words for screen readers; the canvas itself is hidden from them.
      assert.equal(await page.locator('.an-chart canvas').count(), 2);
      await page
        .getByText(/2 conversations, 1 answered by the bot alone, 1 handed to a human/)
        .waitFor({ state: 'attached' });
      await page.locator('.an-daily summary').click();
      await checkScreen(page, 'analytics');

      // The export link downloads the same period as CSV, with the session's cookie.
      const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
      assert.ok(href);
      const csv = await page.request.get(`${service.base}${href}`);
      assert.equal(csv.status(), 200);
      assert.match(csv.headers()['content-type'] ?? '', /^text\/csv/);
      assert.match(
        csv.headers()['content-disposition'] ?? '',
        /^attachment; filename="analytics-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const lines = (await csv.text()).trimEnd().split('\r\n');
      assert.equal(lines.length, 31, 'a header and 30 days');
      assert.match(lines[30] ?? '', /^"\d{4}-\d{2}-\d{2}","2","3","3","1","1","1","1","1"$/);

      // Seven days; then a custom period the service would refuse is refused here.
      await page.getByLabel('7 days').check();
      await page.waitForFunction(() => document.querySelectorAll('.an-daily tbody tr').length === 7);
      await page.getByLabel('Custom').check();
      await page.getByLabel('First day').fill('2026-03-20');
      await page.getByLabel('Last day').fill('2026-03-10');
      await page.getByText('The first day must be on or before the last day.').waitFor();
      assert.equal(await page.locator('.an-daily').count(), 0, 'no numbers for a refused period');
      await page.getByLabel('First day').fill('2026-03-01');
      await page.waitForFunction(() => document.querySelectorAll('.an-daily tbody tr').length === 10);
      await page.locator('.an-daily tbody th', { hasText: 'Mar 10' }).waitFor({ state: 'attached' });
    });
  });

  test('an agent without traffic: zeros and empty lists', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await open(page, emptyAgentId);
      await tile(page, 'Conversations').getByText('0', { exact: true }).waitFor();
      await page.getByText('No questions in this period.').waitFor();
      await page.getByText('No citations in this period.').waitFor();
      await checkScreen(page, 'analytics-empty');
    });
  });
});
