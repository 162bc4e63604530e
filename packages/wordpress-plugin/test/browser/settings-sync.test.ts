// The plugin as a site owner uses it, in Chromium on a real WordPress with the real service:
// connect on Settings → Chat agent (URL and token, Save, Test connection names the workspace,
// pick the agent, Save) with no console error, then "Sync now" on a site of 120 posts until the
// progress bar (driven by WP-Cron) says Done and the service holds every post and page. Then
// the deltas: an edited post's new words are found by the service's search, a trashed post is
// gone from it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { issueToken } from '../../../../apps/server/test/support/test-app.js';
import { launchBrowser, withPage } from '../../../../apps/widget/test/browser/support/browser.js';
import { freePort } from '../../../../examples/demo-shop/test/support/loopback.js';
import { eventually, startWpService, type WpService } from '../support/service.js';
import { startWordPress, type WordPress, wordpressMissing } from '../support/wordpress.js';
import { logIn, SETTINGS_PATH, screenshot } from '../support/wp-admin.js';

const missing = wordpressMissing();
const POSTS = 120;

describe('settings page and sync in Chromium', { skip: missing ?? false }, () => {
  let browser: Browser;
  let wp: WordPress;
  let svc: WpService;
  let postIds: number[] = [];
  let pages = 0;

  before(async () => {
    browser = await launchBrowser();
    const port = await freePort();
    svc = await startWpService(port);
    wp = await startWordPress({ port, servicePort: svc.port });
    // The site's content, made before the plugin is connected (so no delta is sent for it).
    await wp.php(`wp_delete_post(1, true); return true;`);
    postIds = await wp.createPosts(POSTS, { prefix: 'Roastery journal' });
    pages = await wp.php<number>(`return (int) wp_count_posts('page')->publish;`);
  });
  after(async () => {
    await browser?.close();
    await wp?.close();
    await svc?.close();
  });

  test('Test connection with a wrong token or a token without wp:integration says why, and connects nothing', async () => {
    const adminOnly = (await issueToken(svc.service.t, svc.tenant, ['admin'])).token;
    await withPage(browser, {}, async ({ page }) => {
      await logIn(page, wp);
      await page.goto(`${wp.url}${SETTINGS_PATH}`);
      const result = page.locator('#chat-agent-connection-result');
      for (const [token, reason] of [
        ['svc_not_a_real_token_0000000000000000000000', /token/i],
        [adminOnly, /wp:integration/],
      ] as const) {
        await page.locator('#chat-agent-service-url').fill(svc.base);
        await page.locator('#chat-agent-api-token').fill(token);
        const answered = page.waitForResponse(
          (response) =>
            response.url().includes('/wp-admin/admin-ajax.php') && response.request().method() === 'POST',
        );
        await page.locator('#chat-agent-test-connection').click();
        await answered;
        // The answer is shown in words (waits until the "Testing…" line is replaced).
        await result.filter({ hasText: reason }).waitFor({ timeout: 5_000 });
        const text = await result.innerText();
        assert.doesNotMatch(text, /connected to/i);
      }
    });
    assert.equal(await wp.option('chat_agent_handshake'), false, 'no handshake was stored');
  });

  test('connect on the settings page: save URL and token, test the connection, pick the agent', async () => {
    await withPage(browser, { viewport: { width: 1280, height: 900 } }, async ({ page }) => {
      await logIn(page, wp);
      await page.goto(`${wp.url}${SETTINGS_PATH}`);
      await page.locator('#chat-agent-service-url').fill(svc.base);
      await page.locator('#chat-agent-api-token').fill(svc.token);
      await Promise.all([
        page.waitForLoadState('load'),
        page.getByRole('button', { name: 'Save Changes' }).click(),
      ]);
      await page.locator('#chat-agent-service-url').waitFor();
      assert.equal(await page.locator('#chat-agent-service-url').inputValue(), svc.base);
      assert.equal(
        await page.locator('#chat-agent-api-token').inputValue(),
        '',
        'the token is never echoed back',
      );
      assert.equal((await page.content()).includes(svc.token), false, 'the token is nowhere in the page');

      await page.locator('#chat-agent-test-connection').click();
      const result = page.locator('#chat-agent-connection-result');
      await result.filter({ hasText: svc.workspaceName }).waitFor({ timeout: 20_000 });
      assert.match(await result.innerText(), /connected/i);

      // The agent list comes from the handshake (filled at once, or on the next load).
      const select = page.locator('#chat-agent-agent');
      if ((await select.locator(`option[value="${svc.agentId}"]`).count()) === 0) await page.reload();
      await select.selectOption(svc.agentId);
      const enabled = page.locator('#chat-agent-widget-enabled');
      if (!(await enabled.isChecked())) await enabled.check();
      await Promise.all([
        page.waitForLoadState('load'),
        page.getByRole('button', { name: 'Save Changes' }).click(),
      ]);
      await select.waitFor();
      assert.equal(await select.inputValue(), svc.agentId);
      // WordPress prints the notice on Settings pages itself: once, not twice.
      assert.equal(await page.getByText('Settings saved.').count(), 1);
      await screenshot(page, 'wordpress-settings-desktop');
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'wordpress-settings-390');
    });
    assert.equal(await wp.option('chat_agent_agent_id'), svc.agentId);
    assert.equal(await wp.option('chat_agent_service_url'), svc.base);
    assert.equal(await wp.option('chat_agent_widget_enabled'), '1');
    const handshake = await wp.option<{ workspace?: { name?: string } }>('chat_agent_handshake');
    assert.equal(handshake ? handshake.workspace?.name : null, svc.workspaceName);
  });

  test(`"Sync now" sends ${POSTS} posts and the pages; the progress bar reaches Done`, async () => {
    await withPage(browser, {}, async ({ page }) => {
      await logIn(page, wp);
      await page.goto(`${wp.url}${SETTINGS_PATH}`);
      await page.locator('#chat-agent-sync-now').click();
      const status = page.locator('#chat-agent-sync-status');
      await status.filter({ hasText: /done/i }).waitFor({ timeout: 150_000 });
      const bar = page.locator('#chat-agent-sync-progress');
      assert.equal(await bar.getAttribute('role'), 'progressbar');
      assert.equal(await bar.getAttribute('aria-valuenow'), '100');
      assert.deepEqual(
        await page.locator('#chat-agent-sync-failures li:not(.chat-agent-none)').allInnerTexts(),
        [],
        'no failure is listed',
      );
    });
    // The service stores pages as posts (kind `post`, post_type `page` in their metadata).
    assert.ok(pages >= 1, 'the site has its sample page');
    assert.equal(await svc.documentCount('post'), POSTS + pages);
    assert.equal(await svc.documentCount(), POSTS + pages);
    await svc.waitIndexed(120_000);
  });

  test('an edited post is indexed again with its new words; a trashed post leaves the search', async () => {
    const edited = postIds[6] ?? 0;
    await wp.php(`
      wp_update_post(['ID' => ${edited}, 'post_content' => '<p>Our Quetzaltenango washing station ferments cherries for thirty hours.</p>']);
      return true;
    `);
    const found = await eventually(
      () => svc.search('Quetzaltenango washing station'),
      (hits) => hits.some((hit) => hit.text.includes('Quetzaltenango')),
      60_000,
    );
    assert.ok(
      found.some((hit) => hit.title === 'Roastery journal 7'),
      `the edited post is found: ${JSON.stringify(found)}`,
    );

    const trashed = postIds[10] ?? 0;
    const word = 'roast number 11.';
    assert.ok((await svc.search('"Roastery journal 11"')).some((hit) => hit.title === 'Roastery journal 11'));
    await wp.php(`wp_trash_post(${trashed}); return true;`);
    const after = await eventually(
      () => svc.search('"Roastery journal 11"'),
      (hits) => !hits.some((hit) => hit.title === 'Roastery journal 11'),
      60_000,
    );
    assert.deepEqual(
      after.filter((hit) => hit.title === 'Roastery journal 11' || hit.text.includes(word)),
      [],
      'the trashed post is gone from search',
    );
    assert.equal(
      await svc.documentCount('post'),
      POSTS + pages - 1,
      JSON.stringify(await wp.option('chat_agent_sync_state')),
    );
  });

  test('a delta the service could not take is listed, kept, and sent by WP-Cron once the service answers', async () => {
    const id = postIds[20] ?? 0;
    const deadPort = await freePort();
    await wp.php(`update_option('chat_agent_service_url', 'http://127.0.0.1:${deadPort}'); return true;`);
    await wp.php(`
      wp_update_post(['ID' => ${id}, 'post_content' => '<p>The Huehuetenango lot dries on raised beds for three weeks.</p>']);
      return true;
    `);
    const queue = await wp.option<Record<string, { wp_id: number }>>('chat_agent_delta_queue');
    assert.ok(
      queue && Object.values(queue).some((entry) => Number(entry.wp_id) === id),
      `the failed delta waits for a retry: ${JSON.stringify(queue)}`,
    );
    await withPage(browser, {}, async ({ page }) => {
      await logIn(page, wp);
      await page.goto(`${wp.url}${SETTINGS_PATH}`);
      const failures = await page
        .locator('#chat-agent-sync-failures li:not(.chat-agent-none)')
        .allInnerTexts();
      assert.ok(
        failures.some((line) => new RegExp(`\\b${id}\\b`).test(line)),
        `the failure is listed: ${JSON.stringify(failures)}`,
      );
    });
    assert.equal((await svc.search('Huehuetenango')).length, 0, 'not indexed while the service was away');

    // The service answers again; the retry is made due now and WP-Cron runs over HTTP.
    await wp.php(`
      update_option('chat_agent_service_url', ${JSON.stringify(svc.base)});
      $queue = get_option('chat_agent_delta_queue', []);
      foreach ($queue as $key => $entry) { $queue[$key]['due'] = time() - 1; }
      update_option('chat_agent_delta_queue', $queue, false);
      wp_clear_scheduled_hook('chat_agent_delta');
      wp_schedule_single_event(time() - 1, 'chat_agent_delta');
      return true;
    `);
    await wp.runCron();
    const hits = await eventually(
      () => svc.search('Huehuetenango'),
      (list) => list.length > 0,
      60_000,
    );
    assert.ok(
      hits.some((hit) => hit.title === 'Roastery journal 21'),
      `the retried delta was indexed: ${JSON.stringify(hits)}`,
    );
    const left = await wp.option<Record<string, unknown>>('chat_agent_delta_queue');
    assert.deepEqual(Object.keys(left || {}), [], 'the retry queue is empty');
  });

  test('a token replaced with Save alone is connected at once (its own signing secret); a refused one leaves no secret', async () => {
    const { token: second } = await issueToken(svc.service.t, svc.tenant, ['wp:integration']);
    const secretOf = async (token: string) => {
      const response = await fetch(`${svc.base}/api/v1/wp/handshake`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          site_url: wp.url,
          plugin_version: '0.1.0',
          commerce_active: false,
          cms_version: '6.1',
        }),
      });
      const body = (await response.json()) as { data?: { token?: { shopper_signing_secret?: string } } };
      assert.equal(response.status, 200, JSON.stringify(body));
      return String(body.data?.token?.shopper_signing_secret);
    };
    const pluginSecret = () => wp.php<string>('return \\ChatAgent\\Options::signingSecret();');
    const first = await pluginSecret();
    assert.equal(first, await secretOf(svc.token), 'connected with the first token');
    const saveToken = async (token: string, shot?: string) => {
      let notices: string[] = [];
      await withPage(browser, {}, async ({ page }) => {
        await logIn(page, wp);
        await page.goto(`${wp.url}${SETTINGS_PATH}`);
        await page.locator('#chat-agent-api-token').fill(token);
        await Promise.all([
          page.waitForLoadState('load'),
          page.getByRole('button', { name: 'Save Changes' }).click(),
        ]);
        await page.locator('#chat-agent-service-url').waitFor();
        notices = await page.locator('.notice, .settings-error').allInnerTexts();
        if (shot) {
          await screenshot(page, `${shot}-desktop`);
          await page.setViewportSize({ width: 390, height: 844 });
          await screenshot(page, `${shot}-390`);
        }
      });
      return notices;
    };

    const connected = await saveToken(second, 'wordpress-token-saved');
    assert.ok(
      connected.some((text) => text.includes(`Connected to workspace ${svc.workspaceName}`)),
      `Save connected with the new token: ${JSON.stringify(connected)}`,
    );
    const secondSecret = await secretOf(second);
    assert.notEqual(secondSecret, first);
    assert.equal(await pluginSecret(), secondSecret, 'the new token’s secret, not the old one’s');

    const refused = await saveToken('svc_not_a_real_token_0000000000000000000000', 'wordpress-token-refused');
    assert.ok(
      refused.some((text) => /refused the API token/.test(text)),
      `Save says why: ${JSON.stringify(refused)}`,
    );
    assert.equal(await pluginSecret(), '', 'no secret signs shopper tokens or verifies service calls');
    await withPage(browser, {}, async ({ page }) => {
      await logIn(page, wp);
      await page.goto(`${wp.url}${SETTINGS_PATH}`);
      assert.match(
        await page.locator('#chat-agent-connection-result').innerText(),
        /not the one last connected/,
      );
      // The agent list of the last handshake stays, so the choice is not lost.
      assert.equal(await page.locator('#chat-agent-agent').inputValue(), svc.agentId);
    });

    const back = await saveToken(svc.token);
    assert.ok(
      back.some((text) => text.includes('Connected to workspace')),
      JSON.stringify(back),
    );
    assert.equal(await pluginSecret(), first);
  });

  test('the plugin left no PHP error, warning or notice in debug.log', async () => {
    assert.deepEqual(wp.pluginNotices(), []);
  });
});
