import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { requestsTo, withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import type { HostSite } from './support/host.js';
import type { Service } from './support/service.js';

// Preview mode (`data-preview`) is for the console's preview page on the service itself. On a
// customer's page it must do nothing at all: no widget, no call, and no way for that page to
// feed it a look.

describe('widget in Chromium: preview mode elsewhere than on the service', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  test('data-preview on another origin mounts nothing and calls no widget route, whatever is posted', async () => {
    const url = host.serve('/preview-elsewhere', {
      html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>Shop</h1>
<iframe title="inner" src="/preview-inner"></iframe>
<script src="${service.base}/widget/widget.js?v=test" data-preview async></script>
</body></html>`,
    });
    // The same bundle, in preview mode, framed by the page above (so it has a parent to hear).
    host.serve('/preview-inner', {
      html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Inner</title></head>
<body><script src="${service.base}/widget/widget.js?v=test" data-preview async></script></body></html>`,
    });
    await withPage(browser, {}, async (watched) => {
      const { page } = watched;
      await page.goto(url);
      await page.waitForFunction(() => 'Service' in window);
      const inner = page.frame({ url: /\/preview-inner$/ });
      assert.ok(inner, 'the inner frame loaded');
      await inner.waitForFunction(() => 'Service' in window);
      // The page posts a well-formed look to its frame, as the console would.
      await page.evaluate(() => {
        const frame = document.querySelector('iframe');
        frame?.contentWindow?.postMessage(
          {
            type: 'service-widget-preview:agent',
            agent: {
              name: 'Hijacked',
              language_default: null,
              theme: {
                position: 'bottom-right',
                primary: '#ff0000',
                accent: '#ff0000',
                radius: 0,
                launcher_label: 'Hijacked',
              },
              features: { leads: true, human: true, satisfaction: true },
            },
            samples: [],
            note: '',
          },
          '*',
        );
      });
      await page.waitForTimeout(300);
      assert.equal(await page.locator('[data-service-widget]').count(), 0, 'nothing on the page');
      assert.equal(await inner.locator('[data-service-widget]').count(), 0, 'nothing in the frame');
      assert.deepEqual(
        watched.requests
          .map((request) => new URL(request.url()).pathname)
          .filter((path) => path.startsWith('/v1/')),
        [],
        'no widget route called',
      );
      assert.equal(requestsTo(watched, '/v1/widget/init').length, 0);
    });
  });
});
