import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser, Locator } from 'playwright-core';
import { withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import { embedPage, type HostSite, strictCsp } from './support/host.js';
import { hostAgent, type Service } from './support/service.js';
import { byTestId, hexToRgb, loadWidget, openPanel, uiString, widgetRoot } from './support/widget.js';

// The widget keeps its own look whatever the host page does: a strict CSP, a stylesheet that
// restyles everything with !important, a phone-sized viewport.

const PRIMARY = '#7b2cbf';
const RED = 'rgb(255, 0, 0)';

/** A few computed properties of an element. */
function styleOf(locator: Locator) {
  return locator.evaluate((el) => {
    const style = getComputedStyle(el);
    return {
      color: style.color,
      fontSize: style.fontSize,
      backgroundColor: style.backgroundColor,
      position: style.position,
      display: style.display,
    };
  });
}

describe('widget in Chromium: styling', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  test('on a strict-CSP page the widget is styled, themed and localised, with no CSP violation', async () => {
    const { agentId } = await hostAgent(service, host.origin, { theme: { primary: PRIMARY } });
    const url = host.serve('/csp', {
      html: embedPage({ service: service.base, agentId, dataLocale: 'de' }),
      headers: { 'content-security-policy': strictCsp(service.base) },
    });
    await withPage(browser, {}, async ({ page, consoleErrors }) => {
      await page.addInitScript(() => {
        const seen: string[] = [];
        Object.defineProperty(window, '__cspViolations', { value: seen });
        document.addEventListener('securitypolicyviolation', (event) => {
          seen.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
        });
      });
      await loadWidget(page, url);
      const launcher = byTestId(page, 'launcher');
      const look = await styleOf(launcher);
      assert.equal(look.backgroundColor, hexToRgb(PRIMARY), 'the launcher wears the theme colour');
      assert.equal(look.display, 'flex', 'the widget stylesheet applies');
      assert.equal(await styleOf(widgetRoot(page)).then((s) => s.position), 'fixed');
      // The German strings were fetched from the service (connect-src) despite the CSP.
      assert.equal(await byTestId(page, 'close').getAttribute('aria-label'), uiString('de', 'close'));

      await openPanel(page);
      const panel = await styleOf(byTestId(page, 'panel'));
      assert.equal(panel.position, 'fixed');
      assert.equal(panel.backgroundColor, 'rgb(255, 255, 255)');
      const box = await byTestId(page, 'panel').boundingBox();
      assert.ok(
        box && box.width > 300 && box.width < 400,
        `the panel is a floating card (${JSON.stringify(box)})`,
      );

      const violations = await page.evaluate(() => {
        const value: unknown = Reflect.get(window, '__cspViolations');
        return Array.isArray(value) ? value.map(String) : ['(violation log missing)'];
      });
      assert.deepEqual(violations, [], 'no CSP violation');
      assert.deepEqual(
        consoleErrors.filter((text) => /Content Security Policy/i.test(text)),
        [],
      );
    });
  });

  test('a hostile host stylesheet does not restyle the widget', async () => {
    const { agentId } = await hostAgent(service, host.origin, { theme: { primary: PRIMARY } });
    const url = host.serve('/hostile', {
      html: embedPage({
        service: service.base,
        agentId,
        head: '<link rel="stylesheet" href="/hostile.css">',
      }),
    });
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      const hostText = await styleOf(page.locator('p.host-text'));
      assert.equal(hostText.color, RED, 'the hostile stylesheet applies to the page itself');
      assert.equal(hostText.fontSize, '40px');

      const launcher = await styleOf(byTestId(page, 'launcher'));
      assert.equal(launcher.backgroundColor, hexToRgb(PRIMARY));
      assert.notEqual(launcher.fontSize, '40px');
      assert.notEqual(launcher.color, RED);
      const label = byTestId(page, 'launcher').locator('span').first();
      assert.equal(await label.innerText(), 'Chat with us');
      const labelStyle = await styleOf(label);
      assert.notEqual(labelStyle.color, RED);
      assert.notEqual(labelStyle.fontSize, '40px');

      await openPanel(page);
      for (const testid of ['panel', 'input', 'messages']) {
        const style = await styleOf(byTestId(page, testid));
        assert.notEqual(style.color, RED, `${testid} colour`);
        assert.notEqual(style.fontSize, '40px', `${testid} font size`);
        assert.notEqual(style.backgroundColor, 'rgb(0, 255, 0)', `${testid} background`);
      }
      const title = await styleOf(page.locator('[data-service-widget] [data-testid="panel"] h2'));
      assert.equal(title.fontSize, '16px');
      assert.notEqual(title.color, RED);
      // The launcher hides while the panel is open: measure it closed.
      await byTestId(page, 'close').click();
      const box = await byTestId(page, 'launcher').boundingBox();
      assert.ok(box && box.height <= 64, `the launcher keeps its size (${JSON.stringify(box)})`);
    });
  });

  test('on a phone-sized viewport the open panel fills the screen', async () => {
    const { agentId } = await hostAgent(service, host.origin);
    const url = host.serve('/mobile', { html: embedPage({ service: service.base, agentId }) });
    const viewport = { width: 390, height: 844 };
    await withPage(browser, { viewport, isMobile: true, hasTouch: true }, async ({ page }) => {
      await loadWidget(page, url);
      const launcherBox = await byTestId(page, 'launcher').boundingBox();
      assert.ok(
        launcherBox && launcherBox.x + launcherBox.width <= viewport.width,
        'the launcher is on screen',
      );
      await byTestId(page, 'launcher').tap();
      const panel = byTestId(page, 'panel');
      await panel.waitFor({ state: 'visible' });
      // Wait for the end of the entry animation (translateY) before measuring.
      await page.waitForFunction(() => {
        const root = document.querySelector('[data-service-widget]')?.shadowRoot;
        const el = root?.querySelector('[data-testid="panel"]');
        return el ? el.getAnimations().every((a) => a.playState !== 'running') : false;
      });
      const box = await panel.boundingBox();
      assert.ok(box, 'the panel has a box');
      const near = (actual: number, expected: number) => Math.abs(actual - expected) <= 1;
      assert.ok(
        near(box.x, 0) &&
          near(box.y, 0) &&
          near(box.width, viewport.width) &&
          near(box.height, viewport.height),
        `the panel is full screen: ${JSON.stringify(box)}`,
      );
      assert.equal(
        await byTestId(page, 'launcher').isVisible(),
        false,
        'the launcher hides behind the panel',
      );
      await byTestId(page, 'close').tap();
      await panel.waitFor({ state: 'hidden' });
      await byTestId(page, 'launcher').waitFor({ state: 'visible' });
    });
  });
});
