import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import jsqr from 'jsqr';
import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  addMember,
  assertAccessible,
  assertFitsWidth,
  type ConsoleService,
  checkScreen,
  launchBrowser,
  PHONE,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// API tokens, two-factor setup and knowledge-base articles in Chromium against the real
// service on a fresh data dir: each screen checked with axe-core, at 390 px and in dark colours.
// Sign-in allows 5 attempts a minute per email, so each test signs in as its own member.

const PASSWORD = 'correct horse battery';
const TOKENS_USER = 'tokens@example.com';
const TWO_FACTOR_USER = 'second-factor@example.com';
const KB_USER = 'writer@example.com';

describe('admin console: tokens, two-factor and knowledge base', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    tenant = await seedTenant(service.t, 'Acme Coffee');
    for (const email of [TOKENS_USER, TWO_FACTOR_USER, KB_USER]) {
      await addMember(service.t, { email, password: PASSWORD }, [tenant.workspace.id]);
    }
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const url = (path: string) => `${service.base}${path}`;
  const nowSeconds = () => Math.floor(Date.now() / 1000);

  const signInAs = (page: Page, email: string) => signIn(page, service.base, { email, password: PASSWORD });

  /** What the admin API answers a bearer token, over the loopback socket. */
  const statusWith = async (token: string) =>
    (await fetch(url('/api/v1/admin/agents'), { headers: { authorization: `Bearer ${token}` } })).status;

  test('a token is created with abilities, shown once, works, and stops working once revoked', async () => {
    let plaintext = '';
    await withPage(browser, { permissions: ['clipboard-read', 'clipboard-write'] }, async ({ page }) => {
      await signInAs(page, TOKENS_USER);
      await page.getByRole('link', { name: 'API tokens' }).click();
      await page.waitForURL(url('/admin/tokens'));
      // The bootstrap token is listed, by its prefix only.
      await page.locator('.row-card', { hasText: 'Active' }).first().waitFor();
      await checkScreen(page, 'tokens');

      await page.getByRole('button', { name: 'New token' }).click();
      await page.getByLabel('Admin API').uncheck();
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.locator('#field-name-error').getByText('Name the token').waitFor();
      await page.locator('#abilities-error').getByText('Choose at least one ability.').waitFor();
      await page.getByLabel('Name').fill('Nightly export');
      await page.getByLabel('Admin API').check();
      await checkScreen(page, 'tokens-new');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('heading', { name: 'Token “Nightly export” created' }).waitFor();
      await page.getByText('you will not see it again').waitFor();
      plaintext = (await page.locator('.once-card .secret-value code').textContent()) ?? '';
      assert.match(plaintext, /^svc_[\w-]{40}$/);
      await page.getByRole('button', { name: 'Copy token' }).click();
      await page.locator('.once-card').getByRole('status').getByText('Copied.').waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), plaintext);
      await checkScreen(page, 'tokens-created');

      assert.equal(await statusWith(plaintext), 200, 'the new token opens the admin API');

      await page.getByRole('button', { name: 'I have copied it' }).click();
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'API tokens');
      assert.equal(await page.locator('.once-card').count(), 0, 'the plaintext is gone from the page');
      const row = page.locator('.row-card', { hasText: 'Nightly export' });
      await row.getByText(plaintext.slice(0, 8)).waitFor();
      await row.getByRole('button', { name: 'Revoke…' }).click();
      await row.getByText('This cannot be undone.').waitFor();
      await checkScreen(page, 'tokens-revoke');
      // Keep it: nothing changes.
      await row.getByRole('button', { name: 'Keep it' }).click();
      assert.equal(await statusWith(plaintext), 200);
      await row.getByRole('button', { name: 'Revoke…' }).click();
      await row.getByRole('button', { name: 'Yes, revoke it' }).click();
      await row.locator('.badge', { hasText: 'Revoked' }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Nightly export');
      assert.equal(await row.getByRole('button', { name: 'Revoke…' }).count(), 0);
    });
    assert.equal(await statusWith(plaintext), 401, 'a revoked token is refused');
    const stored = await service.t.database.db
      .selectFrom('api_tokens')
      .select(['abilities', 'revoked_at'])
      .where('name', '=', 'Nightly export')
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored.abilities, ['admin']);
    assert.ok(stored.revoked_at, 'revoked_at is set');
  });

  test('two-factor is set up from the QR page, then sign-in asks for the code; a recovery code turns it off', async () => {
    let secret = '';
    let recovery: string[] = [];
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await signInAs(page, TWO_FACTOR_USER);
        await page.getByRole('link', { name: 'Two-factor' }).click();
        await page.waitForURL(url('/admin/account/two-factor'));
        await page.getByRole('heading', { name: 'Two-factor is off' }).waitFor();
        await checkScreen(page, 'two-factor-off');
        await page.getByRole('button', { name: 'Turn on two-factor' }).click();
        await page.getByRole('heading', { name: 'Scan this code with your authenticator app' }).waitFor();
        // The QR code is an SVG drawn in the page (no image request, nothing from elsewhere).
        const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
        assert.equal(await qr.evaluate((node) => node.tagName.toLowerCase()), 'svg');
        assert.ok(((await qr.locator('path').getAttribute('d')) ?? '').length > 500, 'the QR has modules');
        secret = (await page.locator('#two-factor-secret').textContent()) ?? '';
        assert.match(secret, /^[A-Z2-7]{16,}$/);
        // What a phone would read: the drawn modules, decoded, are the otpauth address of that key.
        const scanned = decodeQr(
          (await qr.getAttribute('viewBox')) ?? '',
          (await qr.locator('path').getAttribute('d')) ?? '',
        );
        assert.match(scanned, /^otpauth:\/\/totp\//);
        assert.equal(new URL(scanned).searchParams.get('secret'), secret);
        await checkScreen(page, 'two-factor-scan');

        await page.getByLabel('Code from the app').fill('12345');
        await page.getByRole('button', { name: 'Turn on', exact: true }).click();
        await page.locator('#field-code-error').getByText('A code is six digits.').waitFor();
        const wrong = (Number(await generate({ secret, epoch: nowSeconds() })) + 500_000) % 1_000_000;
        await page.getByLabel('Code from the app').fill(String(wrong).padStart(6, '0'));
        await page.getByRole('button', { name: 'Turn on', exact: true }).click();
        await page.locator('#field-code-error').getByText('The code does not match').waitFor();

        await page.getByLabel('Code from the app').fill(await generate({ secret, epoch: nowSeconds() }));
        await page.getByRole('button', { name: 'Turn on', exact: true }).click();
        await page.getByRole('heading', { name: 'Two-factor is on: keep your recovery codes' }).waitFor();
        recovery = ((await page.locator('.once-card .secret-value code').textContent()) ?? '').split('\n');
        assert.ok(recovery.length >= 8, `recovery codes shown: ${recovery.join(', ')}`);
        await checkScreen(page, 'two-factor-codes');
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Download as .txt' }).click(),
        ]);
        assert.equal(download.suggestedFilename(), 'recovery-codes.txt');
        const saved = await readFile((await download.path()) ?? '', 'utf8');
        for (const code of recovery) assert.ok(saved.includes(code), `${code} in the file`);
        await page.getByRole('button', { name: 'I have saved them' }).click();
        await page.getByRole('heading', { name: 'Two-factor is on' }).waitFor();
        await page.getByText(`${recovery.length} recovery codes left.`).waitFor();
        await checkScreen(page, 'two-factor-on');
      },
      /^(401 GET \/api\/v1\/admin\/session|422 POST \/api\/v1\/admin\/me\/two-factor\/confirm)$/,
    );
    const user = await service.t.database.db
      .selectFrom('users')
      .select(['totp_enabled_at'])
      .where('email', '=', TWO_FACTOR_USER)
      .executeTakeFirstOrThrow();
    assert.ok(user.totp_enabled_at, 'two-factor is on in the store');

    await withPage(
      browser,
      {},
      async ({ page }) => {
        await page.goto(url('/admin/sign-in'));
        await page.getByLabel('Email').fill(TWO_FACTOR_USER);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
        // The confirming code was this period's and works once: the next period's is accepted.
        await page
          .getByLabel('Authenticator code')
          .fill(await generate({ secret, epoch: nowSeconds() + 30 }));
        await page.getByRole('button', { name: 'Verify' }).click();
        await page.waitForURL(url('/admin/agents'));

        await page.goto(url('/admin/account/two-factor'));
        await page.getByRole('heading', { name: 'Two-factor is on' }).waitFor();
        await page.getByLabel('Code to turn it off').fill(recovery[0] ?? '');
        await page.getByRole('button', { name: 'Turn off two-factor' }).click();
        await page.getByRole('heading', { name: 'Two-factor is off' }).waitFor();
      },
      /^(401 GET \/api\/v1\/admin\/session|422 POST \/api\/v1\/admin\/session)$/,
    );
    const off = await service.t.database.db
      .selectFrom('users')
      .select(['totp_enabled_at'])
      .where('email', '=', TWO_FACTOR_USER)
      .executeTakeFirstOrThrow();
    assert.equal(off.totp_enabled_at, null, 'two-factor is off again');
  });

  test('a knowledge-base article is written with the server’s preview, published, and its public page opens', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await signInAs(page, KB_USER);
      await page.getByRole('link', { name: 'Knowledge base' }).click();
      await page.waitForURL(url('/admin/kb'));
      await page.getByRole('heading', { name: 'No articles yet' }).waitFor();
      await checkScreen(page, 'kb-empty');

      await page.getByRole('button', { name: 'New article' }).click();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('#field-title-error').getByText('Give the article a title.').waitFor();
      await page.getByLabel('Title').fill('Shipping times');
      assert.equal(await page.locator('#field-title-error').count(), 0, 'typing clears the field’s error');
      await page
        .getByLabel('Text (Markdown)')
        .fill(
          '# Shipping\n\nWe ship in **two days**.\n\n<script>window.hacked = 1</script>\n\n[bad](javascript:alert(1))',
        );
      const preview = page.getByRole('region', { name: 'Preview' });
      await preview.locator('strong', { hasText: 'two days' }).waitFor();
      const html = await preview.innerHTML();
      assert.doesNotMatch(
        html,
        /<script|hacked|href="javascript/i,
        'the preview is sanitised by the service',
      );
      assert.equal(await page.evaluate(() => 'hacked' in window), false);
      await checkScreen(page, 'kb-editor');

      await page.getByLabel('Published').check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved and published.').waitFor();
      const [publicPage] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('link', { name: 'Open public page' }).click(),
      ]);
      await publicPage.waitForLoadState();
      assert.equal(new URL(publicPage.url()).pathname, `/kb/${tenant.workspace.slug}/shipping-times`);
      await publicPage.getByRole('heading', { name: 'Shipping times' }).first().waitFor();
      await publicPage.getByText('two days').waitFor();
      await assertAccessible(publicPage, 'public article');
      await publicPage.setViewportSize(PHONE);
      await assertFitsWidth(publicPage, 'public article (phone)');
      await publicPage.close();

      await page.getByRole('button', { name: 'Back to the list' }).click();
      await page.locator('.row-card', { hasText: 'Shipping times' }).getByText('Published').waitFor();
      await checkScreen(page, 'kb');
    });
    const article = await service.t.database.db
      .selectFrom('kb_articles')
      .select(['slug', 'is_published'])
      .executeTakeFirstOrThrow();
    assert.deepEqual(article, { slug: 'shipping-times', is_published: true });
  });
});

/** Decodes the console's QR SVG (unit squares `M{x} {y}h1v1h-1z` in a `0 0 n n` box) as a scanner would. */
function decodeQr(viewBox: string, path: string): string {
  const size = Number(viewBox.split(' ')[2]);
  const scale = 4;
  const width = size * scale;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const [, x, y] of path.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    for (let dy = 0; dy < scale; dy += 1) {
      for (let dx = 0; dx < scale; dx += 1) {
        const at = ((Number(y) * scale + dy) * width + Number(x) * scale + dx) * 4;
        pixels.fill(0, at, at + 3);
      }
    }
  }
  // A CommonJS module: its export sits on `default` as the types see it (and as it is at run time).
  const code = jsqr.default(pixels, width, width);
  assert.ok(code, 'the QR code decodes');
  return code.data;
}
