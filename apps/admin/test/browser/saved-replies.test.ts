import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { addMember as addRoleMember, MEMBER_PASSWORD } from '../../../server/test/support/members.js';
import { createSite, type Site } from '../../../server/test/support/site-sync.js';
import {
  type ConsoleService,
  checkScreen,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The saved replies screen in Chromium against the real service: reached from the nav's
// Workspace group, empty state, a refused form that stores nothing, add (markup shown as text),
// edit, the filter once the list is long, delete after a confirmation; an editor sees no entry
// and is told the page is not for their role.

const PASSWORD = 'correct horse battery';
/** A title that would run as markup if the page did not escape it. */
const HOSTILE_TITLE = '<img src=x onerror="document.title=1">Returns';

describe('admin console: saved replies', () => {
  let browser: Browser;
  let service: ConsoleService;
  let site: Site;
  let editor: { email: string };

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    site = await createSite(service.t, {}, 'Acme Replies');
    editor = await addRoleMember(service.t, site.tenant, 'editor');
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const stored = () =>
    service.t.database.db
      .selectFrom('saved_replies')
      .select(['id', 'title', 'body', 'workspace_id'])
      .orderBy('title')
      .execute();

  test('add (refused first, nothing stored), edit, filter a long list, delete', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signIn(page, service.base, { email: site.tenant.user.email, password: PASSWORD });
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('list', { name: 'Workspace' }).getByRole('link', { name: 'Saved replies' }).click();
      await page.waitForURL(`${service.base}/admin/settings/saved-replies`);
      await page.getByRole('heading', { name: 'No saved replies yet' }).waitFor();
      await checkScreen(page, 'saved-replies-empty');

      await page.getByRole('button', { name: 'New saved reply' }).click();
      const form = page.getByRole('form', { name: 'New saved reply' });
      await form.getByLabel('Title').fill('   ');
      await form.getByLabel('Title').fill('x'.repeat(81));
      await form.getByRole('button', { name: 'Add reply' }).click();
      await form.locator('#field-title-error').waitFor();
      await form.locator('#field-body-error').waitFor();
      assert.equal(await form.getByLabel('Title').getAttribute('aria-invalid'), 'true');
      assert.deepEqual(await stored(), [], 'a refused form stores nothing');

      await form.getByLabel('Title').fill(HOSTILE_TITLE);
      await form.getByLabel('Reply').fill('Returns are free for 30 days.\nStart one from your order page.');
      await form.getByRole('button', { name: 'Add reply' }).click();
      const list = page.getByRole('list', { name: 'Saved replies' });
      const row = list.getByRole('listitem').filter({ hasText: HOSTILE_TITLE });
      await row.getByText('Start one from your order page.', { exact: false }).waitFor();
      assert.equal(await page.title().then((title) => title === '1'), false, 'the title ran no markup');
      const [first] = await stored();
      assert.equal(first?.title, HOSTILE_TITLE);
      assert.equal(first?.body, 'Returns are free for 30 days.\nStart one from your order page.');
      assert.equal(first?.workspace_id, site.tenant.workspace.id);

      // Edit: Cancel keeps it; Save stores the new text and the row shows it.
      await row.getByRole('button', { name: `Edit ${HOSTILE_TITLE}` }).click();
      const edit = page.getByRole('form', { name: `Edit “${HOSTILE_TITLE}”` });
      await edit.getByLabel('Reply').fill('Changed my mind');
      await edit.getByRole('button', { name: 'Cancel' }).click();
      await row.getByText('Returns are free for 30 days.', { exact: false }).waitFor();
      await row.getByRole('button', { name: `Edit ${HOSTILE_TITLE}` }).click();
      await edit.getByLabel('Reply').fill('');
      await edit.getByRole('button', { name: 'Save reply' }).click();
      await edit.locator(`#field-body-${first?.id}-error`).waitFor();
      await edit.getByLabel('Reply').fill('Returns are free for 60 days now.');
      await edit.getByRole('button', { name: 'Save reply' }).click();
      await row.getByText('Returns are free for 60 days now.').waitFor();
      assert.equal((await stored())[0]?.body, 'Returns are free for 60 days now.');

      // A longer list gets a filter box that searches titles and texts.
      for (const [title, body] of [
        ['Opening hours', 'We answer from 9 to 17, Monday to Friday.'],
        ['Invoice copy', 'Your invoices are under Account → Orders.'],
        ['Shipping abroad', 'We ship to every EU country.'],
        ['Parcel delay', 'Sorry for the wait: your parcel is on its way.'],
        ['Size guide', 'Our size guide is on every product page.'],
      ]) {
        const created = await service.t.app.inject({
          method: 'POST',
          url: '/api/v1/admin/saved-replies',
          headers: { ...site.tenant.auth, 'content-type': 'application/json' },
          payload: JSON.stringify({ title, body }),
        });
        assert.equal(created.statusCode, 201, created.body);
      }
      await page.reload();
      await page.getByText('6 saved replies').waitFor();
      await page.getByLabel('Find a saved reply').fill('PARCEL');
      await page.getByText('1 of 6 match').waitFor();
      assert.equal(await list.getByRole('listitem').count(), 1);
      await page.getByLabel('Find a saved reply').fill('');
      await list.getByRole('listitem').nth(5).waitFor();
      await checkScreen(page, 'saved-replies');

      // Delete asks first; "Keep it" keeps it.
      const hours = list.getByRole('listitem').filter({ hasText: 'Opening hours' });
      await hours.getByRole('button', { name: 'Delete Opening hours…' }).click();
      await hours.getByRole('button', { name: 'Keep it' }).click();
      await hours.getByRole('button', { name: 'Delete Opening hours…' }).click();
      await hours.getByRole('button', { name: 'Yes, delete it' }).click();
      await hours.waitFor({ state: 'detached' });
      const titles = (await stored()).map((reply) => reply.title);
      assert.equal(titles.length, 5);
      assert.equal(titles.includes('Opening hours'), false);
    });
  });

  test('an editor sees no Saved replies entry and is told the page is not for their role', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signIn(page, service.base, { email: editor.email, password: MEMBER_PASSWORD });
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Agents' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'Saved replies' }).count(), 0);
      await page.goto(`${service.base}/admin/settings/saved-replies`);
      await page.getByText("Your role (editor) can't do this.", { exact: false }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'New saved reply' }).count(), 0);
    });
  });
});
