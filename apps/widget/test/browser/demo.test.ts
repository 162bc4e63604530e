import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createLogger } from '../../../server/src/logger.js';
import { seedDemo } from '../../../server/src/services/ops/demo-seed.js';
import { indexSource } from '../../../server/test/support/sources.js';
import { launchBrowser, withPage } from './support/browser.js';
import { type Service, startService } from './support/service.js';
import {
  ask,
  assertCitations,
  assistantMessages,
  doneFrame,
  loadWidget,
  openPanel,
} from './support/widget.js';

// The first-start demo: a seeded agent on the service's own /demo page answers from the sample
// coffee-shop FAQ with no model configured.

const FAQ = 'Northwind Coffee FAQ (sample)';

describe('widget in Chromium: the /demo page', () => {
  let browser: Browser;
  let service: Service;

  before(async () => {
    browser = await launchBrowser();
    service = await startService();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('the demo agent answers "Can I return an opened bag?" from the sample FAQ', async () => {
    const { t } = service;
    const seeded = await seedDemo({
      db: t.database.db,
      clock: t.clock,
      queue: t.queue,
      appKey: t.config.appKey,
      origins: [service.base],
      log: createLogger('silent'),
    });
    assert.ok(seeded?.created, 'a fresh store gets the demo');
    const sources = await t.database.db
      .selectFrom('sources')
      .select('id')
      .where('agent_id', '=', seeded.agentId)
      .execute();
    assert.equal(sources.length, 1);
    for (const source of sources) await indexSource(t, source.id);

    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, `${service.base}/demo`);
      assert.equal(await page.locator('h1').innerText(), 'Try the chat assistant');
      await openPanel(page);
      const response = await ask(page, 'Can I return an opened bag?');
      assert.equal(response.status(), 200);
      const done = await doneFrame(response);
      assert.deepEqual(
        done.citations.map((c) => c.title),
        [FAQ],
        'the service cites the FAQ',
      );

      const answer = assistantMessages(page).last();
      const text = (await answer.innerText()).replace(/\s+/g, ' ');
      assert.match(text, /Opened coffee cannot be returned/, 'the answer quotes the FAQ');
      await assertCitations(answer.locator('[data-testid="citation"]'), FAQ);
    });
  });
});
