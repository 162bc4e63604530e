import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { indexAll, kbClient } from '../../../server/test/support/kb.js';
import { addText } from '../../../server/test/support/widget.js';
import { withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import type { HostSite } from './support/host.js';
import { hostAgent, type Service } from './support/service.js';
import { ask, assistantMessages, byTestId, loadWidget, openPanel } from './support/widget.js';

// Pictures of the widget for docs/: the open panel greeting a new visitor, and a cited answer
// with its sources, at 1280 and 390 px. `npm run screenshots -w apps/widget` writes them to
// docs/screenshots (WIDGET_SCREENSHOTS names the folder, relative to the repository root);
// otherwise they go to a temporary folder. Each picture's screen is asserted first.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = process.env.WIDGET_SCREENSHOTS;
const SHOTS = dir ? (isAbsolute(dir) ? dir : join(ROOT, dir)) : join(tmpdir(), 'widget-screenshots');

/** A small shop page in the shop's own colours (brown), the widget themed to match. */
function shopPage(service: string, agentId: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Northwind Coffee Roasters</title>
<style>
body{margin:0;font:17px/1.6 Georgia,serif;color:#2b211b;background:#faf6f1}
header{background:#5b3a29;color:#fff;padding:18px 24px;font:600 20px system-ui,sans-serif}
main{max-width:760px;margin:0 auto;padding:24px}
h1{font-size:30px;margin:8px 0 12px}
.beans{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:16px;margin-top:20px}
.bean{background:#fff;border:1px solid #e6dccf;border-radius:10px;padding:14px}
</style></head>
<body>
<header>Northwind Coffee Roasters</header>
<main>
<h1>Freshly roasted, shipped in two days</h1>
<p>Small-batch coffee from our roastery in Lyon. Free shipping over 40 euros.</p>
<div class="beans">
<div class="bean"><strong>Ethiopia Yirgacheffe</strong><br>Floral, bright, 12.90 €</div>
<div class="bean"><strong>Espresso Blend</strong><br>Chocolate, caramel, 11.50 €</div>
<div class="bean"><strong>Colombia Huila</strong><br>Red fruit, round, 13.40 €</div>
</div>
</main>
<script src="${service}/widget/widget.js?v=test" data-agent-id="${agentId}" async></script>
</body>
</html>
`;
}

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const;

async function picture(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  // The panel's entry animation ends before the picture.
  await page.waitForFunction(() => {
    const panel = document
      .querySelector('[data-service-widget]')
      ?.shadowRoot?.querySelector('[data-testid="panel"]');
    return panel ? panel.getAnimations().every((a) => a.playState !== 'running') : false;
  });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

describe('widget in Chromium: screenshots for the docs', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  test('the welcome and a cited answer, at 1280 and 390 px', async () => {
    {
      // Offline answers (no model): what a fresh install shows.
      const { tenant, agentId } = await hostAgent(service, host.origin, {
        name: 'Northwind Coffee',
        site_type: 'ecommerce',
        theme: { primary: '#5b3a29', accent: '#d08c3a', launcher_label: 'Ask us' },
        welcome: {
          greeting: 'Hi! I can help with our coffees, brewing, delivery and returns.',
          starters: [
            'Which coffee is best for espresso?',
            'How long does delivery take?',
            'Can I return an opened bag?',
          ],
          translations: {},
        },
      });
      await kbClient(() => service.t).create(tenant, {
        title: 'Shipping and returns',
        slug: 'shipping-and-returns',
        body_markdown:
          'We ship every order within two business days of roasting. Unopened bags can be returned within 30 days of delivery.',
        is_published: true,
      });
      await addText(
        service.t,
        tenant,
        agentId,
        'Roastery handbook',
        'Opened coffee cannot be returned, but if a roast tastes wrong we replace it free of charge.',
      );
      await indexAll(service.t, agentId);
      const url = host.serve('/northwind', { html: shopPage(service.base, agentId) });
      for (const [size, viewport] of VIEWPORTS) {
        await withPage(browser, { viewport }, async ({ page }) => {
          await loadWidget(page, url);
          await openPanel(page);
          assert.equal(await byTestId(page, 'starter').count(), 3);
          await picture(page, `widget-welcome-${size}`);
          await ask(page, 'Can I return an opened bag?');
          const answer = assistantMessages(page).last();
          const sources = answer.locator('[data-testid="source"]');
          assert.ok((await sources.count()) >= 1, 'the answer lists its sources');
          await answer.locator('[data-testid="citation"]').first().click();
          await picture(page, `widget-cited-answer-${size}`);
        });
      }
    }
  });
});
