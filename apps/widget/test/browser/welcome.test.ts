import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { indexAll, kbClient } from '../../../server/test/support/kb.js';
import { addText } from '../../../server/test/support/widget.js';
import { withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import { embedPage, type HostSite } from './support/host.js';
import { hostAgent, type Service } from './support/service.js';
import { ask, assistantMessages, byTestId, doneFrame, loadWidget, openPanel } from './support/widget.js';

// What a visitor sees first (greeting and starter questions on a new conversation only, the
// launcher out of the way while the panel is open) and the sources under a cited answer.

const WELCOME = {
  greeting: 'Welcome to Alpine Outfitters!',
  starters: ['How many days do I have to return boots?', 'Do you ship abroad?'],
  translations: { de: { starters: ['Wie lange kann ich Stiefel zurückgeben?'] } },
};
const RETURNS = `Returns policy of the shop.

Unworn hiking boots can be returned within 45 days of delivery for a full refund.`;
const ARTICLE = {
  title: 'Returning a parcel',
  slug: 'returning-a-parcel',
  body_markdown: 'Send the parcel back with the **indigo pelican** label within thirty days of delivery.',
  is_published: true,
};

/** The data-testid of the element focused inside the widget's shadow root. */
const focusedTestId = (page: Page) =>
  page.evaluate(
    () =>
      document
        .querySelector('[data-service-widget]')
        ?.shadowRoot?.activeElement?.getAttribute('data-testid') ?? null,
  );

describe('widget in Chromium: welcome and sources', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  test('a new conversation is greeted with starters; a resumed one is not; the launcher steps aside', async () => {
    const { tenant, agentId } = await hostAgent(service, host.origin, { welcome: WELCOME });
    await addText(service.t, tenant, agentId, 'Returns policy', RETURNS);
    const url = host.serve('/welcome', { html: embedPage({ service: service.base, agentId }) });
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      const launcher = byTestId(page, 'launcher');
      await openPanel(page);
      assert.equal(await launcher.isVisible(), false, 'the launcher hides while the panel is open');
      assert.equal(await byTestId(page, 'welcome').innerText(), WELCOME.greeting);
      const starters = byTestId(page, 'starter');
      assert.deepEqual(await starters.allInnerTexts(), WELCOME.starters);

      // A starter is asked as if typed; the starters go, the greeting stays.
      const stream = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/widget/messages/stream');
      await starters.first().click();
      const done = await doneFrame(await stream);
      assert.match(done.text, /45 days/);
      const visitor = page.locator('[data-service-widget] [data-testid="message"][data-role="visitor"]');
      await visitor.first().waitFor();
      assert.equal(await visitor.first().innerText(), WELCOME.starters[0]);
      await page.locator('[data-service-widget] [data-testid="messages"]:not([aria-busy])').waitFor();
      assert.equal(await starters.count(), 0);
      assert.equal(await byTestId(page, 'welcome').count(), 1);

      // Closing gives the launcher back, focused; so does Escape.
      await byTestId(page, 'close').click();
      await launcher.waitFor({ state: 'visible' });
      assert.equal(await focusedTestId(page), 'launcher');
      await launcher.click();
      await byTestId(page, 'panel').waitFor({ state: 'visible' });
      await page.keyboard.press('Escape');
      await launcher.waitFor({ state: 'visible' });
      assert.equal(await focusedTestId(page), 'launcher');

      // Reloaded: the conversation resumes with its history and no welcome.
      await loadWidget(page, url);
      await openPanel(page);
      await assistantMessages(page).first().waitFor();
      assert.equal(await byTestId(page, 'welcome').count(), 0);
      assert.equal(await byTestId(page, 'starter').count(), 0);
      assert.equal(await visitor.first().innerText(), WELCOME.starters[0]);

      // A new conversation is welcomed again.
      await byTestId(page, 'clear').click();
      await byTestId(page, 'welcome').waitFor();
      assert.equal(await byTestId(page, 'starter').count(), 2);
    });
  });

  test('starters come in the visitor language where the agent gives them', async () => {
    const { agentId } = await hostAgent(service, host.origin, { welcome: WELCOME });
    const url = host.serve('/welcome-de', {
      html: embedPage({ service: service.base, agentId, lang: 'de' }),
    });
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      await openPanel(page);
      assert.deepEqual(await byTestId(page, 'starter').allInnerTexts(), WELCOME.translations.de.starters);
      assert.equal(await byTestId(page, 'welcome').innerText(), WELCOME.greeting, 'no German greeting given');
    });
  });

  test('a cited answer lists its sources: absolute KB links without PUBLIC_BASE_URL, titles without a URL', async () => {
    const { tenant, agentId } = await hostAgent(service, host.origin);
    await kbClient(() => service.t).create(tenant, ARTICLE);
    await addText(
      service.t,
      tenant,
      agentId,
      'Parcel label handbook',
      'The indigo pelican label is printed at the post office for returned parcels.',
    );
    await indexAll(service.t, agentId);
    const url = host.serve('/sources', { html: embedPage({ service: service.base, agentId }) });
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, url);
      await openPanel(page);
      const done = await doneFrame(
        await ask(page, 'Which indigo pelican label do I use to send a parcel back?'),
      );
      assert.ok(done.citations.length >= 1, 'the answer cites');
      const answer = assistantMessages(page).last();
      const items = answer.locator('[data-testid="source"]');
      assert.equal(await items.count(), done.citations.length, 'one entry per citation');
      const kbPath = `/kb/${tenant.workspace.slug}/${ARTICLE.slug}`;
      let sawKb = false;
      for (const [index, citation] of done.citations.entries()) {
        const item = items.nth(index);
        assert.equal(await item.getAttribute('value'), String(citation.id), 'numbered like its marker');
        const link = item.locator('a');
        if (citation.title === ARTICLE.title) {
          sawKb = true;
          assert.equal(citation.url, `${service.base}${kbPath}`, 'absolute on the address the visitor used');
          assert.equal(await link.getAttribute('href'), `${service.base}${kbPath}`);
          assert.equal(await link.innerText(), ARTICLE.title);
          assert.match(await item.innerText(), /· 127\.0\.0\.1/, 'the site is named');
          const page2 = await fetch(`${service.base}${kbPath}`);
          assert.equal(page2.status, 200, 'the link works');
        } else {
          assert.equal(citation.url, null);
          assert.equal(await link.count(), 0);
          assert.equal(
            (await item.innerText()).trim(),
            citation.title,
            'a source without URL shows its title',
          );
        }
      }
      assert.ok(sawKb, 'the KB article is among the sources');
      // A marker highlights its entry.
      const marker = answer.locator('[data-testid="citation"]').first();
      const n = await marker.getAttribute('data-n');
      await marker.click();
      const highlighted = answer.locator('[data-testid="source"].hl');
      assert.equal(await highlighted.count(), 1);
      assert.equal(await highlighted.getAttribute('data-n'), n);
    });
  });
});
