// The visitor's side on a real WordPress with the real service: the widget's script tag on the
// site's pages (agent id, locale; a shopper token and a private, uncached page only for a
// logged-in user), the widget in Chromium answering about a post and citing it, and a lead
// captured in the chat pushed by the service's job to the plugin, which makes it a WordPress
// user (the same user for the same email in another case).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { launchBrowser, withPage } from '../../../../apps/widget/test/browser/support/browser.js';
import {
  ask,
  assistantMessages,
  doneFrame,
  loadWidget,
  openPanel,
} from '../../../../apps/widget/test/browser/support/widget.js';
import { freePort } from '../../../../examples/demo-shop/test/support/loopback.js';
import { connectPlugin, eventually, startWpService, type WpService } from '../support/service.js';
import { startWordPress, type WordPress, wordpressMissing } from '../support/wordpress.js';
import { logIn } from '../support/wp-admin.js';

const missing = wordpressMissing();
const TITLE = 'Cold brew at home, step by step';

/** The widget's script tag of a page, with its attributes. */
function widgetTag(html: string): Record<string, string> | null {
  const tag = /<script\b[^>]*\bsrc="[^"]*\/widget\/widget\.js"[^>]*>/.exec(html)?.[0];
  if (!tag) return null;
  return Object.fromEntries(
    [...tag.matchAll(/([\w-]+)(?:="([^"]*)")?/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

describe('widget and leads on a real WordPress', { skip: missing ?? false }, () => {
  let browser: Browser;
  let wp: WordPress;
  let svc: WpService;
  let postUrl = '';

  before(async () => {
    browser = await launchBrowser();
    const port = await freePort();
    svc = await startWpService(port);
    wp = await startWordPress({ port, servicePort: svc.port });
    await connectPlugin(wp, svc);
    // Published after the connection: each post reaches the service as a delta from its save hook.
    const ids = await wp.php<number[]>(`
      $ids = [];
      $ids[] = wp_insert_post(['post_status' => 'publish', 'post_title' => ${JSON.stringify(TITLE)},
        'post_content' => '<p>Cold brew steeps coarse ground coffee in cold water for eighteen hours, then you filter it twice.</p>']);
      $ids[] = wp_insert_post(['post_status' => 'publish', 'post_title' => 'Our espresso blend',
        'post_content' => '<p>The espresso blend mixes Brazil and Ethiopia beans, roasted medium dark.</p>']);
      return $ids;
    `);
    postUrl = await wp.php<string>(`return get_permalink(${ids[0]});`);
    const stored = await eventually(
      () => svc.documentCount('post'),
      (n) => n >= 2,
      30_000,
    );
    assert.equal(stored, 2, 'the two posts reached the service as deltas');
    await svc.waitIndexed(60_000);
  });
  after(async () => {
    await browser?.close();
    await wp?.close();
    await svc?.close();
  });

  test('an anonymous page carries the script tag with agent and locale, and no shopper token', async () => {
    const response = await fetch(postUrl);
    assert.equal(response.status, 200);
    const html = await response.text();
    const tag = widgetTag(html);
    assert.ok(tag, 'the page embeds the widget');
    assert.equal(tag.src, `${svc.base}/widget/widget.js`);
    assert.equal(tag['data-agent-id'], svc.agentId);
    assert.equal(tag['data-locale'], 'en-US');
    assert.equal('data-shopper-token' in tag, false);
    assert.doesNotMatch(response.headers.get('cache-control') ?? '', /private/);
  });

  test('a logged-in page carries a signed shopper token and is private, not cached', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await logIn(page, wp);
      const response = await page.goto(postUrl);
      assert.ok(response);
      const cacheControl = response.headers()['cache-control'] ?? '';
      assert.match(cacheControl, /private/);
      assert.match(cacheControl, /no-store/);
      const tag = widgetTag(await page.content());
      assert.ok(tag?.['data-shopper-token'], 'the tag carries a shopper token');
      const claims = decodeJwt(tag['data-shopper-token']);
      assert.equal(claims.wp_user_id, 1);
      assert.match(String(claims.email_hash), /^[0-9a-f]{64}$/);
    });
  });

  test('the widget on a WordPress post answers about the post and cites it', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await loadWidget(page, postUrl);
      await openPanel(page);
      const done = await doneFrame(await ask(page, 'How long does cold brew steep?'));
      assert.ok(
        done.citations.some((citation) => citation.title === TITLE && citation.url === postUrl),
        `the post is cited: ${JSON.stringify(done.citations)}`,
      );
      await assistantMessages(page).last().waitFor();
    });
  });

  test('a lead from the chat becomes a WordPress user; an email known in another case is that same user', async () => {
    const widget = async (path: string, token: string | null, body: unknown) => {
      const response = await fetch(`${svc.base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: wp.url,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
    };
    const lead = async (email: string, name: string) => {
      const init = await widget('/v1/widget/init', null, {
        agent_id: svc.agentId,
        anon_id: `anon_${Date.now()}_${name.length}`,
      });
      assert.equal(init.status, 200, JSON.stringify(init.body));
      const token = String(init.body.data?.token);
      const created = await widget('/v1/widget/leads', token, { email, name, phone: '+33 1 23 45 67 89' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    };
    /** The service's lead for `email` once the push job stored the site's user id. */
    const pushedLead = async (email: string) => {
      const read = () =>
        svc.service.t.database.db
          .selectFrom('leads')
          .select(['site_user_id', 'pushed_at', 'push_error'])
          .where('agent_id', '=', svc.agentId)
          .where('email_normalized', '=', email)
          .executeTakeFirst();
      const row = await eventually(read, (value) => Boolean(value?.pushed_at), 60_000);
      assert.ok(
        row?.pushed_at,
        `the lead for ${email} was pushed: ${JSON.stringify(row)}\n${wp.logs().slice(-3000)}`,
      );
      return Number(row.site_user_id);
    };
    const withEmail = (users: Awaited<ReturnType<WordPress['users']>>, email: string) =>
      users.filter((user) => user.email.toLowerCase() === email);

    // A new email: a new subscriber, with the phone in its meta.
    await lead('Ines.Moreau@example.org', 'Ines Moreau');
    const inesId = await pushedLead('ines.moreau@example.org');
    const ines = withEmail(await wp.users(), 'ines.moreau@example.org');
    assert.deepEqual(
      ines.map((user) => user.id),
      [inesId],
      'the pushed lead is that WordPress user',
    );
    assert.deepEqual(ines[0]?.roles, ['subscriber']);
    const meta = await wp.php<Record<string, string[]>>(`return get_user_meta(${inesId});`);
    assert.ok(
      Object.values(meta).some((values) => values.some((value) => value.includes('23 45 67 89'))),
      `the phone is stored in user meta: ${JSON.stringify(meta)}`,
    );

    // An email WordPress already has in another case: that user, no new one, role unchanged.
    const paulo = await wp.php<number>(`
      return wp_insert_user(['user_login' => 'paulo', 'user_email' => 'Paulo.Reis@Example.ORG',
        'user_pass' => wp_generate_password(), 'role' => 'author']);
    `);
    await lead('paulo.reis@example.org', 'Paulo Reis');
    assert.equal(await pushedLead('paulo.reis@example.org'), paulo);
    const paulos = withEmail(await wp.users(), 'paulo.reis@example.org');
    assert.equal(paulos.length, 1, 'still one user for that email');
    assert.deepEqual(paulos[0]?.roles, ['author'], "an existing user's role is never changed");
  });

  test('the plugin left no PHP error, warning or notice in debug.log', async () => {
    assert.deepEqual(wp.pluginNotices(), []);
  });
});
