import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { seedDemo } from '../../../server/src/services/ops/demo-seed.js';
import { LOCAL_POSTGRES as PG, unreachable } from '../../../server/test/support/local-databases.js';
import { seedTenant, type Tenant, workerServices } from '../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  checkScreen,
  createAgentAs,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// An agent's knowledge page in Chromium against the real service with a working job queue: a
// crawl of the service's own /demo page (SAFE_URL_ALLOW lets the crawler reach loopback) with
// its progress shown live until indexed, uploads (picked and dropped, one refused with the
// reason), re-index, and a delete confirmed in a dialog by keyboard. Every screen is checked
// with axe-core, at 390 px and in dark colours.

const FIXTURES = fileURLToPath(new URL('../../../server/test/fixtures/uploads/', import.meta.url));
const PASSWORD = 'correct horse battery';
const WAIT = { timeout: 60_000 };
/** The SQL form's preview reads the machine's own PostgreSQL on loopback; skipped by name without one. */
const PG_SKIP = await unreachable('PostgreSQL', PG);

describe('admin console: knowledge', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let agentId = '';

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService({ SAFE_URL_ALLOW: '127.0.0.1', CRAWL_DELAY_MS: '0' });
    const { t } = service;
    // As a first start does: the demo workspace and its /demo page, then a real account.
    await seedDemo({
      db: t.database.db,
      clock: t.clock,
      queue: t.queue,
      appKey: t.config.appKey,
      origins: [service.base],
      log: { info: () => {} },
    });
    tenant = await seedTenant(t, 'Acme Coffee');
    agentId = await createAgentAs(t, tenant, 'Shop helper');
    await t.queue.work(workerServices(t), { pollingIntervalSeconds: 0.5 });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const url = (path: string) => `${service.base}${path}`;
  const sourcesOf = () =>
    service.t.database.db
      .selectFrom('sources')
      .select(['id', 'name', 'type', 'status'])
      .where('agent_id', '=', agentId)
      .orderBy('created_at')
      .execute();

  async function openKnowledge(page: Page): Promise<void> {
    await signIn(
      page,
      service.base,
      { email: tenant.user.email, password: PASSWORD },
      { from: '/admin/agents' },
    );
    await page.getByRole('link', { name: 'Manage knowledge of Shop helper' }).click();
    await page.waitForURL(url(`/admin/agents/${agentId}/knowledge`));
    await page.getByRole('heading', { name: 'Knowledge', exact: true }).waitFor();
  }

  const row = (page: Page, name: string) =>
    page.locator('tr', { has: page.getByText(name, { exact: true }) });

  test('a crawl of the demo page shows its progress live until it is indexed; re-index runs it again', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await openKnowledge(page);
      await page.getByRole('heading', { name: 'No knowledge yet' }).waitFor();
      await checkScreen(page, 'knowledge-empty');

      // The contract's schema checks the form before anything is sent.
      await page.getByLabel('Start page').fill('not a site');
      await page.getByRole('button', { name: 'Add source' }).click();
      await page.locator('#field-url-error').waitFor();
      await page.getByLabel('Most pages').fill('5000');
      await page.getByRole('button', { name: 'Add source' }).click();
      await page.locator('#field-max_pages-error').waitFor();
      assert.equal((await sourcesOf()).length, 0, 'nothing sent');

      await page.getByLabel('Start page').fill(url('/demo'));
      await page.getByLabel('Most pages').fill('5');
      await page.getByLabel('Link depth').fill('1');
      await page.getByLabel('Name (optional)').fill('Demo site');
      await page.getByRole('button', { name: 'Add source' }).click();
      await page.getByRole('status').getByText('Added “Demo site”.').waitFor();
      // No reload: the page reads the list again while the crawl runs.
      const crawl = row(page, 'Demo site');
      await crawl.getByText('Indexed', { exact: true }).waitFor(WAIT);
      await crawl.getByText(/^1 read/).waitFor();
      await crawl.getByText('1 of 1 indexed').waitFor();
      await checkScreen(page, 'knowledge');

      await crawl.getByRole('button', { name: 'Re-index Demo site' }).click();
      await crawl.getByText(/^(Queued|Fetching|Indexing)$/).waitFor();
      await crawl.getByText('Indexed', { exact: true }).waitFor(WAIT);
    });
    const [source] = await sourcesOf();
    assert.deepEqual({ type: source?.type, status: source?.status }, { type: 'crawl', status: 'indexed' });
    const documents = await service.t.database.db
      .selectFrom('documents')
      .select(['url'])
      .where('source_id', '=', source?.id ?? '')
      .execute();
    assert.deepEqual(
      documents.map((document) => document.url),
      [url('/demo')],
    );
  });

  test('uploads: a picked file and a dropped one are indexed, a disguised one is refused with the reason', async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await openKnowledge(page);
        await page.locator('#upload-input').setInputFiles([
          {
            name: 'returns-policy.pdf',
            mimeType: 'application/pdf',
            buffer: await readFile(join(FIXTURES, 'returns-policy.pdf')),
          },
          {
            name: 'invoice.pdf',
            mimeType: 'application/pdf',
            buffer: Buffer.from('<html><body>hi</body></html>'),
          },
        ]);
        const uploads = page.getByRole('list', { name: 'Uploads' });
        await uploads
          .locator('li', { hasText: 'returns-policy.pdf' })
          .getByText(/^PDF detected, 2 pages read, [\d.]+ KB: (added|added, indexing…|indexed)\.$/)
          .waitFor(WAIT);
        await uploads
          .locator('li', { hasText: 'invoice.pdf' })
          .getByText(/^Refused: file content is HTML/)
          .waitFor(WAIT);

        // Dropped on the zone, as from a file manager.
        const dataTransfer = await page.evaluateHandle(() => {
          const transfer = new DataTransfer();
          transfer.items.add(
            new File(['# Opening hours\n\nThe shop opens at nine.'], 'hours.md', { type: 'text/markdown' }),
          );
          return transfer;
        });
        await page.dispatchEvent('.dropzone', 'drop', { dataTransfer });
        await uploads
          .locator('li', { hasText: 'hours.md' })
          .getByText(/^Markdown detected, 2 paragraphs read, 40 B: /)
          .waitFor(WAIT);

        await row(page, 'returns-policy.pdf').getByText('Indexed', { exact: true }).waitFor(WAIT);
        await row(page, 'hours.md').getByText('Indexed', { exact: true }).waitFor(WAIT);
        // The sources table says how much of each file was read, from the source's stored config.
        await row(page, 'returns-policy.pdf').getByText('2 pages read', { exact: true }).waitFor();
        await row(page, 'hours.md').getByText('2 paragraphs read', { exact: true }).waitFor();
        await uploads.getByText(/^PDF detected, 2 pages read, [\d.]+ KB: indexed\.$/).waitFor();
        await checkScreen(page, 'knowledge-uploads');
      },
      /^(401 GET \/api\/v1\/admin\/session|422 POST \/api\/v1\/admin\/agents\/[^/]+\/uploads)$/,
    );
    const uploads = (await sourcesOf()).filter((source) => source.type === 'upload');
    assert.deepEqual(
      uploads.map(({ name, status }) => ({ name, status })),
      [
        { name: 'returns-policy.pdf', status: 'indexed' },
        { name: 'hours.md', status: 'indexed' },
      ],
    );
  });

  test('an SQL source: the form checks the query first, then the connection test previews 3 rows', {
    skip: PG_SKIP,
  }, async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await openKnowledge(page);
        await page.getByLabel('SQL database').check();
        await page.getByRole('button', { name: 'Test connection' }).click();
        await page.locator('#field-host-error').waitFor();
        await page.getByLabel('Host').fill(PG.host);
        await page.getByLabel('Port').fill(String(PG.port));
        await page.getByLabel('Database', { exact: true }).fill(PG.database);
        await page.getByLabel('User').fill(PG.user);
        await page.getByLabel('Password').fill(PG.password);
        await page.getByLabel('Query').fill('DELETE FROM users');
        await page.getByRole('button', { name: 'Test connection' }).click();
        await page
          .locator('#field-query-error')
          .getByText(/only a single SELECT statement is accepted/)
          .waitFor();
        await page
          .getByLabel('Query')
          .fill("SELECT n AS sku, 'Item ' || n AS title FROM generate_series(1, 9) AS n ORDER BY n");
        await page.getByRole('button', { name: 'Test connection' }).click();
        await page.getByText('Connected. The first 3 rows:').waitFor(WAIT);
        const preview = page.getByRole('table', { name: 'Query preview' });
        assert.deepEqual(await preview.locator('tbody tr').allTextContents(), [
          '1Item 1',
          '2Item 2',
          '3Item 3',
        ]);
        await checkScreen(page, 'knowledge-sql');
      },
      /^(401 GET \/api\/v1\/admin\/session|422 POST \/api\/v1\/admin\/agents\/[^/]+\/sources\/test-sql)$/,
    );
    assert.equal(
      (await sourcesOf()).filter((source) => source.type === 'sql').length,
      0,
      'a test stores nothing',
    );
  });

  test('delete asks first: Escape keeps the source, confirming by keyboard removes it', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await openKnowledge(page);
      const target = row(page, 'hours.md');
      await target.getByRole('button', { name: 'Delete hours.md' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this source?' });
      await dialog.waitFor();
      // The safe choice has the focus.
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Cancel');
      await checkScreen(page, 'knowledge-delete');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.ok(
        (await sourcesOf()).some((source) => source.name === 'hours.md'),
        'kept',
      );

      await target.getByRole('button', { name: 'Delete hours.md' }).focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Delete source');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'hidden' });
      await target.waitFor({ state: 'detached' });
    });
    assert.equal(
      (await sourcesOf()).some((source) => source.name === 'hours.md'),
      false,
      'the source is gone',
    );
  });
});
