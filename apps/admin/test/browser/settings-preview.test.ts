import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  launcherColour,
  preview,
  rgb,
  type SettingsFixture,
  startSettingsFixture,
  until,
} from './support/agent-settings.js';
import { checkScreen, DESKTOP, PHONE, screenshot, withPage } from './support/console.js';

// The agent settings' live preview in Chromium: the widget bundle the service serves, in a
// same-origin frame, following unsaved edits without making a visitor or a conversation.

const NEW_PRIMARY = '#c2185b';

describe('admin console: agent settings preview', () => {
  let fixture: SettingsFixture;
  let browser: Browser;

  before(async () => {
    fixture = await startSettingsFixture();
    ({ browser } = fixture);
  });
  after(async () => {
    await fixture?.close();
  });

  const storedAgent = () => fixture.storedAgent();
  const countRows = (table: 'visitors' | 'conversations') => fixture.countRows(table);
  const openSettings = (page: Page) => fixture.openSettings(page);

  test('the preview shows the served widget and follows an unsaved colour; the stored colour stays', async () => {
    const stored = (await storedAgent()).theme;
    const visitors = await countRows('visitors');
    const conversations = await countRows('conversations');
    let askedBeforeLeaving = false;
    await withPage(browser, {}, async ({ page }) => {
      page.on('dialog', (dialog) => {
        askedBeforeLeaving ||= dialog.type() === 'beforeunload';
        void dialog.accept();
      });
      await openSettings(page);
      const launcher = preview(page).getByTestId('launcher');
      await launcher.waitFor();
      await until(() => launcherColour(page), rgb(stored.primary), 'the stored colour at first');
      const script = await page
        .frameLocator('iframe[title="Widget preview"]')
        .locator('script[data-preview]')
        .getAttribute('src');
      assert.match(script ?? '', /^\/widget\/widget\.js\?v=[0-9a-f]{8}$/, 'the bundle the service serves');

      await page.getByLabel('Main colour', { exact: true }).fill(NEW_PRIMARY);
      await until(() => launcherColour(page), rgb(NEW_PRIMARY), 'the preview follows the typed colour');
      await page.getByLabel('Button text').fill('Ask Acme');
      await launcher.getByText('Ask Acme').waitFor();
      await page.getByLabel('Bottom left').check();
      const frameBox = await page.locator('iframe[title="Widget preview"]').boundingBox();
      await until(
        async () => ((await launcher.boundingBox())?.x ?? 999) - (frameBox?.x ?? 0) < 60,
        true,
        'the launcher moves to the left corner',
      );
      await page.getByLabel('Corner radius').fill('2');
      await launcher.click();
      const panel = preview(page).getByTestId('panel');
      await panel.waitFor();
      await until(
        () => panel.evaluate((el) => getComputedStyle(el).borderTopLeftRadius),
        '2px',
        'the panel takes the radius',
      );
      await preview(page).getByText('Do you ship abroad?').waitFor();
      assert.equal(await preview(page).getByTestId('input').isDisabled(), true, 'nothing can be sent');

      // A message that is not from the console (the frame posting to itself) changes nothing.
      await page
        .frames()
        .find((frame) => frame.url().endsWith('/api/v1/admin/widget-preview'))
        ?.evaluate(() =>
          window.postMessage(
            {
              type: 'service-widget-preview:agent',
              agent: {
                name: 'Forged',
                language_default: null,
                theme: {
                  position: 'bottom-right',
                  primary: '#000000',
                  accent: '#000000',
                  radius: 0,
                  launcher_label: 'x',
                },
                features: { leads: false, human: false, satisfaction: false },
              },
              samples: [],
              note: '',
            },
            location.origin,
          ),
        );
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(await launcherColour(page), rgb(NEW_PRIMARY), 'a forged message is ignored');
      await page.getByRole('status').getByText('Unsaved changes').waitFor();
      await checkScreen(page, 'agent-settings-preview');
      // The pictures for docs/: the top of the form beside the preview on a desktop; on a phone
      // the whole page, scrolled to its end (where the sticky save bar rests in its place).
      await page.setViewportSize({ width: DESKTOP.width, height: 1000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, 'agent-settings-desktop', { fullPage: false });
      await page.setViewportSize(PHONE);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await screenshot(page, 'agent-settings-phone');
      await page.setViewportSize(DESKTOP);

      await page.reload();
      await page.getByLabel('Main colour', { exact: true }).waitFor();
      assert.equal(await page.getByLabel('Main colour', { exact: true }).inputValue(), stored.primary);
      await until(() => launcherColour(page), rgb(stored.primary), 'the stored colour after a reload');
    });
    assert.ok(askedBeforeLeaving, 'leaving with unsaved changes asks first');
    assert.deepEqual((await storedAgent()).theme, stored, 'nothing saved');
    assert.equal(await countRows('visitors'), visitors, 'the preview made no visitor');
    assert.equal(await countRows('conversations'), conversations, 'the preview made no conversation');
  });
});
