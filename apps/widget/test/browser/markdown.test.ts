import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { type FakeLlm, startFakeLlm } from '../../../server/test/support/fake-llm.js';
import { addText } from '../../../server/test/support/widget.js';
import { launchBrowser, withPage } from './support/browser.js';
import { embedPage, type HostSite, startHostSite } from './support/host.js';
import { hostAgent, type Service, startService } from './support/service.js';
import { ask, assistantMessages, doneFrame, loadWidget, openPanel } from './support/widget.js';

// Model text is untrusted: markup in an answer must reach the screen as inert text.

const HOSTILE = [
  'Here is the answer <img src=x onerror="window.__pwned=1"> ',
  'with an image ![x](http://127.0.0.1:9/evil.png) ',
  'and a [click](javascript:window.__pwned=2) link, ',
  'and a **bold** word.',
];

describe('widget in Chromium: hostile answers', () => {
  let browser: Browser;
  let llm: FakeLlm;
  let service: Service;
  let host: HostSite;

  before(async () => {
    browser = await launchBrowser();
    llm = await startFakeLlm();
    service = await startService({
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: llm.openAiBaseUrl,
      LLM_API_KEY: 'k',
    });
    host = await startHostSite();
  });
  after(async () => {
    await browser?.close();
    await host?.close();
    await service?.close();
    await llm?.close();
  });

  test('HTML, images and javascript: links in a model answer render inert', async () => {
    const { tenant, agentId } = await hostAgent(service, host.origin);
    await addText(service.t, tenant, agentId, 'Shipping', 'Orders ship within two business days.');
    llm.setScript([{ kind: 'text', chunks: HOSTILE, delayMs: 5 }]);
    const url = host.serve('/hostile-answer', { html: embedPage({ service: service.base, agentId }) });
    await withPage(browser, {}, async (watched) => {
      const { page } = watched;
      await loadWidget(page, url);
      await openPanel(page);
      const response = await ask(page, 'When do orders ship?');
      assert.equal(response.status(), 200);
      const done = await doneFrame(response);
      assert.match(done.text, /<img src=x onerror=/, 'the hostile text reached the widget unchanged');

      const answer = assistantMessages(page).last();
      const text = await answer.innerText();
      assert.match(text, /<img src=x onerror="window.__pwned=1">/, 'raw HTML shows as literal text');
      assert.match(text, /click/);
      assert.equal(await answer.locator('strong').innerText(), 'bold', 'markdown still renders');
      assert.equal(await answer.locator('img').count(), 0, 'no <img> in the message');
      assert.equal(
        await page.locator('[data-service-widget] img').count(),
        0,
        'no <img> anywhere in the widget',
      );
      assert.equal(await page.locator('[data-service-widget] a[href^="javascript:"]').count(), 0);
      assert.equal(await page.locator('[data-service-widget] a[href*="evil"]').count(), 0);
      const hrefs = await answer
        .locator('a')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
      for (const href of hrefs) assert.match(href ?? '', /^(https?:|mailto:|tel:)/, `link ${href}`);

      // Anything that would have run had a chance to: the answer is rendered and idle.
      const pwned = await page.evaluate(() => Reflect.get(window, '__pwned'));
      assert.equal(pwned, undefined, 'no script ran');
      const evil = watched.requests.filter((request) => request.url().includes('/evil.png'));
      assert.deepEqual(
        evil.map((request) => request.url()),
        [],
        'the image was never requested',
      );
      const host404 = watched.requests.filter((request) => new URL(request.url()).pathname === '/x');
      assert.equal(host404.length, 0, 'the <img src=x> was never requested');
    });
  });
});
