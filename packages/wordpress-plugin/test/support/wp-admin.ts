// Driving WordPress's admin in Chromium: log in at wp-login.php, open the plugin's settings page.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ADMIN, type WordPress } from './wordpress.js';

/** The plugin's settings page (Settings → Chat agent). */
export const SETTINGS_PATH = '/wp-admin/options-general.php?page=chat-agent';

/** Logs in as `user` (default: the harness admin) through wp-login.php. */
export async function logIn(
  page: Page,
  wp: WordPress,
  user = ADMIN.user,
  password = ADMIN.password,
): Promise<void> {
  // Straight to a light admin page (the dashboard's widgets are not what is tested).
  const target = `${wp.url}/wp-admin/profile.php`;
  await page.goto(`${wp.url}/wp-login.php?redirect_to=${encodeURIComponent(target)}`);
  await page.locator('#user_login').fill(user);
  await page.locator('#user_pass').fill(password);
  await Promise.all([
    page.waitForURL((url) => !url.pathname.endsWith('/wp-login.php'), { timeout: 30_000 }),
    page.locator('#wp-submit').click(),
  ]);
  const cookies = await page.context().cookies(wp.url);
  assert.ok(
    cookies.some((cookie) => cookie.name.startsWith('wordpress_logged_in_')),
    'WordPress set its login cookie',
  );
}

/** Saves a screenshot as `<name>.png` under $ADMIN_SCREENSHOTS when that is set. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.ADMIN_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
