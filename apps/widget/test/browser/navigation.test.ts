import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { requestsTo, withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import type { HostSite } from './support/host.js';
import { hostAgent, type Service } from './support/service.js';
import { ask, assistantMessages, byTestId, loadWidget, openPanel } from './support/widget.js';

// A single-page app as host: its own script (a same-origin file) changes the URL with
// history.pushState and re-renders the page; the widget, mounted at the end of <body>, keeps
// its panel and conversation, and is put back when the app wipes <body>.

/** The host app's router: links with data-spa re-render <main>; helpers to wipe <body>. */
const SPA_JS = `(function () {
  document.addEventListener('click', function (event) {
    var link = event.target instanceof Element ? event.target.closest('a[data-spa]') : null;
    if (!link) return;
    event.preventDefault();
    history.pushState({ page: link.getAttribute('href') }, '', link.getAttribute('href'));
    document.title = link.textContent;
    document.querySelector('main').innerHTML = '<h1>' + link.textContent + '</h1><p class="page">Page ' + link.textContent + '</p>';
  });
  window.addEventListener('popstate', function () {
    document.querySelector('main').innerHTML = '<h1>Back</h1><p class="page">Page ' + location.pathname + '</p>';
  });
  window.spaWipeBody = function (html) { document.body.innerHTML = html; };
  window.spaSwapBody = function (html) {
    var body = document.createElement('body');
    body.innerHTML = html;
    document.documentElement.replaceChild(body, document.body);
  };
})();
`;

function spaPage(service: string, agentId: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Home</title><script src="/spa.js" defer></script></head>
<body>
<nav><a data-spa href="/app/products">Products</a> <a data-spa href="/app/contact">Contact</a></nav>
<main><h1>Home</h1><p class="page">Page home</p></main>
<script src="${service}/widget/widget.js?v=test" data-agent-id="${agentId}" async></script>
</body>
</html>
`;
}

/** Calls one of the host app's own functions (defined by /spa.js) with an HTML string. */
function callHost(page: Page, name: string, html: string): Promise<void> {
  return page.evaluate(
    ({ fn, markup }) => {
      const hostFunction: unknown = Reflect.get(window, fn);
      if (typeof hostFunction !== 'function') throw new Error(`the host app has no ${fn}`);
      hostFunction(markup);
    },
    { fn: name, markup: html },
  );
}

describe('widget in Chromium: single-page navigation', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
    host.serve('/spa.js', { html: SPA_JS, headers: { 'content-type': 'text/javascript; charset=utf-8' } });
  });

  async function spaUrl(): Promise<string> {
    const { agentId } = await hostAgent(service, host.origin);
    return host.serve('/app', { html: spaPage(service.base, agentId) });
  }

  /** The widget as the visitor sees it: panel shown, messages (role: text), container placement. */
  async function widgetState(page: Page) {
    const messages = page.locator('[data-service-widget] [data-testid="message"]');
    const texts: string[] = [];
    for (let i = 0; i < (await messages.count()); i++) {
      const message = messages.nth(i);
      texts.push(`${await message.getAttribute('data-role')}: ${(await message.innerText()).trim()}`);
    }
    const placement = await page.evaluate(() => {
      const containers = document.querySelectorAll('[data-service-widget]');
      const container = containers[0];
      return {
        containers: containers.length,
        inBody: container?.parentElement === document.body,
        last: document.body.lastElementChild === container,
      };
    });
    return { panel: await byTestId(page, 'panel').isVisible(), texts, ...placement };
  }

  test('pushState navigation keeps the open panel and its messages, with no second init', async () => {
    const url = await spaUrl();
    await withPage(browser, {}, async (watched) => {
      const { page } = watched;
      await loadWidget(page, url);
      await openPanel(page);
      await ask(page, 'Do you ship to Canada?');
      const before = await widgetState(page);
      assert.equal(before.panel, true);
      assert.equal(before.texts.length, 2, 'a question and its answer');
      assert.match(before.texts[0] ?? '', /^visitor: Do you ship to Canada\?$/);

      await page.locator('nav a', { hasText: 'Products' }).click();
      await page.waitForURL(`${host.origin}/app/products`);
      assert.equal((await page.locator('main .page').innerText()).trim(), 'Page Products');
      assert.deepEqual(await widgetState(page), before, 'the widget did not change');

      await page.locator('nav a', { hasText: 'Contact' }).click();
      await page.waitForURL(`${host.origin}/app/contact`);
      await page.goBack();
      await page.waitForURL(`${host.origin}/app/products`);
      assert.equal((await page.locator('main h1').innerText()).trim(), 'Back');
      assert.deepEqual(await widgetState(page), before, 'back navigation keeps the widget too');

      // Still working after the navigations.
      await ask(page, 'And to Mexico?');
      assert.equal(await assistantMessages(page).count(), 2);
      assert.equal(requestsTo(watched, '/v1/widget/init', 'POST').length, 1, 'one init for the page view');
      assert.equal(requestsTo(watched, '/widget/widget.js').length, 1, 'the script loaded once');
    });
  });

  test('the app wiping <body> (innerHTML, or a new <body>) gets the widget re-attached with its conversation', async () => {
    const url = await spaUrl();
    await withPage(browser, {}, async (watched) => {
      const { page } = watched;
      await loadWidget(page, url);
      await openPanel(page);
      await ask(page, 'Where is my parcel?');
      const before = await widgetState(page);
      assert.deepEqual([before.containers, before.inBody, before.last], [1, true, true]);
      const shadowBefore = await page.evaluate(() => {
        const root = document.querySelector('[data-service-widget]')?.shadowRoot;
        if (root) Reflect.set(window, 'widgetShadow', root);
        return Boolean(root);
      });
      assert.ok(shadowBefore);

      // innerHTML on the same <body>: the container is removed, then appended again.
      await page.evaluate(() => history.pushState({}, '', '/app/new'));
      await callHost(page, 'spaWipeBody', '<main><h1>new</h1></main>');
      await page.waitForFunction(() => document.querySelector('[data-service-widget]') !== null);
      assert.equal((await page.locator('main h1').innerText()).trim(), 'new');
      assert.deepEqual(await widgetState(page), before, 're-attached as it was, panel and messages');
      assert.equal(
        await page.evaluate(
          () =>
            document.querySelector('[data-service-widget]')?.shadowRoot ===
            Reflect.get(window, 'widgetShadow'),
        ),
        true,
        'the same widget instance (not a new mount)',
      );

      // A brand-new <body> element: the container moves into it, and the new body is watched.
      await callHost(page, 'spaSwapBody', '<main><h1>swapped</h1></main>');
      await page.waitForFunction(() => document.querySelector('[data-service-widget]') !== null);
      assert.deepEqual(await widgetState(page), before, 're-attached into the new <body>');
      await callHost(page, 'spaWipeBody', '<main><h1>again</h1></main>');
      await page.waitForFunction(() => document.querySelector('[data-service-widget]') !== null);
      assert.deepEqual(await widgetState(page), before, 'the new <body> is watched as well');

      // The conversation goes on in the same session.
      await ask(page, 'Thanks, and can I change the address?');
      const after = await widgetState(page);
      assert.equal(after.texts.length, 4);
      assert.deepEqual(after.texts.slice(0, 2), before.texts);
      assert.equal(requestsTo(watched, '/v1/widget/init', 'POST').length, 1, 'no re-init: the same session');
    });
  });
});
