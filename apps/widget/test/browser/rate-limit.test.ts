import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { addText } from '../../../server/test/support/widget.js';
import { launchBrowser, requestsTo, withPage } from './support/browser.js';
import { embedPage, type HostSite, startHostSite } from './support/host.js';
import { hostAgent, type Service, startService } from './support/service.js';
import {
  ask,
  assistantMessages,
  byTestId,
  loadWidget,
  nextInit,
  openPanel,
  uiString,
} from './support/widget.js';

// A 429 is shown politely and never retried. WIDGET_RATE_LIMIT_SCALE=0.03 makes the limits
// max(1, round(limit × 0.03)) per minute: messages 1, init 2.

const STREAM = '/v1/widget/messages/stream';

describe('widget in Chromium: rate limits', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  before(async () => {
    browser = await launchBrowser();
    service = await startService({ WIDGET_RATE_LIMIT_SCALE: '0.03' });
    host = await startHostSite();
  });
  after(async () => {
    await browser?.close();
    await host?.close();
    await service?.close();
  });

  test('a second message within the minute shows the polite 429 text and is not retried', async () => {
    const { tenant, agentId } = await hostAgent(service, host.origin);
    await addText(service.t, tenant, agentId, 'Hours', 'The shop opens at nine in the morning on weekdays.');
    const url = host.serve('/limited', { html: embedPage({ service: service.base, agentId }) });
    await withPage(
      browser,
      {},
      async (watched) => {
        const { page } = watched;
        await loadWidget(page, url);
        await openPanel(page);

        const first = await ask(page, 'When does the shop open on weekdays?');
        assert.equal(first.status(), 200);
        assert.match(await assistantMessages(page).last().innerText(), /nine in the morning/);

        const second = await ask(page, 'And on Saturdays?');
        assert.equal(second.status(), 429);
        assert.ok(second.headers()['retry-after'], 'the 429 says when to retry');
        const notice = byTestId(page, 'notice').last();
        await notice.waitFor();
        assert.equal(await notice.innerText(), uiString('en', 'rateLimited'));
        assert.equal(await assistantMessages(page).count(), 1, 'no empty answer bubble is left behind');

        // The widget does not retry: no further stream request comes.
        await assert.rejects(
          page.waitForRequest((request) => new URL(request.url()).pathname === STREAM, { timeout: 1_500 }),
          /Timeout/,
        );
        assert.equal(requestsTo(watched, STREAM, 'POST').length, 2, 'one answered and one refused request');

        // Init has its own limit (2 per minute here): a reload still starts the widget.
        await nextInit(page, () => page.reload());
        await byTestId(page, 'launcher').waitFor({ state: 'visible' });
        assert.equal(requestsTo(watched, STREAM, 'POST').length, 2);
      },
      /^429 POST \S+\/v1\/widget\/messages\/stream$/,
    );
  });
});
