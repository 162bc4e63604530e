import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import { embedPage, type HostSite } from './support/host.js';
import { eventually, hostAgent, type Service, widgetEvents } from './support/service.js';
import { byTestId, loadWidget } from './support/widget.js';

// Proactive triggers (agent.behavior_rules) in a real browser: each fires once per page view,
// shows its bubble or opens the panel, and records one `trigger_fired` event.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('widget in Chromium: proactive triggers', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  /** A host page at `path` embedding an agent with `rules`; returns its URL and agent id. */
  async function pageWithRules(
    path: string,
    rules: Array<Record<string, unknown>>,
    head = '',
  ): Promise<{ url: string; agentId: string }> {
    const { agentId } = await hostAgent(service, host.origin, { behavior_rules: rules });
    const url = host.serve(path, { html: embedPage({ service: service.base, agentId, head }) });
    return { url, agentId };
  }

  /** Waits (bounded) for the agent's trigger_fired rows; asserts exactly one, of `trigger`. */
  async function assertFiredOnce(agentId: string, trigger: string): Promise<void> {
    const rows = await eventually(
      () => widgetEvents(service, agentId, 'trigger_fired'),
      (found) => found.length >= 1,
    );
    assert.equal(rows.length, 1, 'one trigger_fired event');
    assert.equal(rows[0]?.data.trigger, trigger);
  }

  /** Whether the launcher bubble is shown, and its text. */
  async function bubble(page: Page): Promise<{ shown: boolean; text: string }> {
    return {
      shown: await byTestId(page, 'bubble').isVisible(),
      text: (await byTestId(page, 'bubble-text').textContent()) ?? '',
    };
  }

  test('time_on_page: after 1 s the bubble shows the message, and one event is recorded', async () => {
    const { url, agentId } = await pageWithRules('/time', [
      { trigger: 'time_on_page', threshold: 1, action: 'message', message: 'Need help?' },
    ]);
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      const text = byTestId(page, 'bubble-text');
      await text.waitFor({ state: 'visible' });
      assert.equal((await text.innerText()).trim(), 'Need help?');
      assert.equal(
        await byTestId(page, 'panel').isVisible(),
        false,
        'a message rule does not open the panel',
      );
      await assertFiredOnce(agentId, 'time_on_page');
      // A second interval passes: the timer does not fire again.
      await sleep(1500);
      assert.equal((await widgetEvents(service, agentId, 'trigger_fired')).length, 1);

      // Clicking the bubble opens the panel and hides the bubble.
      await text.click();
      await byTestId(page, 'panel').waitFor({ state: 'visible' });
      assert.equal(await byTestId(page, 'bubble').isVisible(), false);
    });
  });

  test('scroll: passing half of a tall page opens the panel, once', async () => {
    const { url, agentId } = await pageWithRules(
      '/scroll',
      [{ trigger: 'scroll', threshold: 50, action: 'open' }],
      '<style>body { min-height: 5000px }</style>',
    );
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      const depth = () =>
        page.evaluate(() => {
          const height = Math.max(document.documentElement.scrollHeight, document.body.scrollHeight);
          return ((window.scrollY + window.innerHeight) / height) * 100;
        });
      const panel = byTestId(page, 'panel');

      // Under half: nothing happens.
      await page.evaluate(() => window.scrollTo(0, 600));
      await page.waitForFunction(() => window.scrollY === 600);
      assert.ok((await depth()) < 50, 'still above half of the page');
      await sleep(300);
      assert.equal(await panel.isVisible(), false, 'the panel stays closed above the threshold');
      assert.equal((await widgetEvents(service, agentId, 'trigger_fired')).length, 0);

      // Past half: the panel opens (without taking the focus from the page).
      await page.evaluate(() => window.scrollTo(0, 3200));
      assert.ok((await depth()) >= 50, 'scrolled past half of the page');
      await panel.waitFor({ state: 'visible' });
      assert.equal(await byTestId(page, 'launcher').getAttribute('aria-expanded'), 'true');
      await assertFiredOnce(agentId, 'scroll');
      const focusedInWidget = await page.evaluate(
        () => document.activeElement?.hasAttribute('data-service-widget') ?? false,
      );
      assert.equal(focusedInWidget, false, 'an automatic open does not steal the focus');

      // Closed by the visitor, then scrolled up and down again: the rule does not fire again.
      await byTestId(page, 'close').click();
      await panel.waitFor({ state: 'hidden' });
      for (const y of [0, 4000, 0, 4000]) {
        await page.evaluate((to) => window.scrollTo(0, to), y);
        await page.waitForFunction((to) => Math.abs(window.scrollY - to) < 2000, y);
      }
      await sleep(500);
      assert.equal(await panel.isVisible(), false, 'the panel is not reopened');
      assert.equal((await widgetEvents(service, agentId, 'trigger_fired')).length, 1, 'fired once');
      assert.equal((await widgetEvents(service, agentId, 'widget_opened')).length, 1);
    });
  });

  test('exit intent: the pointer leaving through the top edge shows the message', async () => {
    const { url, agentId } = await pageWithRules('/exit', [
      { trigger: 'exit_intent', action: 'message', message: 'Wait!' },
    ]);
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      assert.equal(
        await page.evaluate(() => window.matchMedia('(pointer: fine)').matches),
        true,
        'desktop Chromium has a fine pointer',
      );
      // The widget listens for `mouseout` on the document with no relatedTarget and clientY <= 0.
      const leave = (clientY: number, toElement: boolean) =>
        page.evaluate(
          ({ y, to }) => {
            const target = document.querySelector('.host-text') ?? document.body;
            const relatedTarget = to ? document.body : null;
            target.dispatchEvent(
              new MouseEvent('mouseout', { bubbles: true, clientX: 400, clientY: y, relatedTarget }),
            );
          },
          { y: clientY, to: toElement },
        );

      await page.mouse.move(400, 300);
      // Leaving through a side (clientY > 0) or moving onto another element is no exit intent.
      await leave(300, false);
      await leave(0, true);
      await sleep(300);
      assert.deepEqual(await bubble(page), { shown: false, text: '' });
      assert.equal((await widgetEvents(service, agentId, 'trigger_fired')).length, 0);

      // Up to the top edge, then out of the window.
      await page.mouse.move(400, 0, { steps: 5 });
      await leave(0, false);
      await byTestId(page, 'bubble').waitFor({ state: 'visible' });
      assert.deepEqual(await bubble(page), { shown: true, text: 'Wait!' });
      await assertFiredOnce(agentId, 'exit_intent');

      // A second exit does not fire again.
      await page.mouse.move(400, 300);
      await page.mouse.move(400, 0);
      await leave(-5, false);
      await sleep(300);
      assert.equal((await widgetEvents(service, agentId, 'trigger_fired')).length, 1);
    });
  });

  test('idle: input keeps resetting the timer; 1 s without input shows the message', async () => {
    const { url, agentId } = await pageWithRules('/idle', [
      { trigger: 'idle', threshold: 1, action: 'message', message: 'Still there?' },
    ]);
    await withPage(browser, {}, async ({ page }) => {
      // Keep the pointer moving from the first moment, so the first second never runs out.
      await page.goto('about:blank');
      const moving = { on: true };
      const mover = (async () => {
        let x = 100;
        while (moving.on) {
          x = x === 100 ? 140 : 100;
          await page.mouse.move(x, 200).catch(() => undefined);
          await sleep(150);
        }
      })();
      try {
        await loadWidget(page, url);
        await sleep(1800);
        assert.deepEqual(await bubble(page), { shown: false, text: '' }, 'no bubble while the visitor moves');
        assert.equal((await widgetEvents(service, agentId, 'trigger_fired')).length, 0);
      } finally {
        moving.on = false;
        await mover;
      }
      const stoppedAt = Date.now();
      await byTestId(page, 'bubble').waitFor({ state: 'visible' });
      const waited = Date.now() - stoppedAt;
      assert.ok(waited >= 700, `the bubble came ${waited} ms after the last input, not before ~1 s`);
      assert.deepEqual(await bubble(page), { shown: true, text: 'Still there?' });
      await assertFiredOnce(agentId, 'idle');

      // More input and another idle second: the rule fired for this page view, not again.
      await page.keyboard.press('Shift');
      await sleep(1500);
      assert.equal((await widgetEvents(service, agentId, 'trigger_fired')).length, 1);
    });
  });
});
