import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { createUser } from '../../../../server/src/services/accounts/accounts.js';
import { ensureSetupCode } from '../../../../server/src/services/accounts/setup-code.js';
import { CHROMIUM_PATH, chromiumArgs } from '../../../../server/test/support/chromium.js';
import { createTestApp, type Tenant, type TestApp } from '../../../../server/test/support/test-app.js';

// The real service (createTestApp on a fresh cloned database, nobody signed up) listening on
// 127.0.0.1, serving the built console from apps/admin/dist, driven by headless Chromium.

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
/** The built console the service serves (its default ADMIN_DIST_DIR). */
export const CONSOLE_DIST = join(ROOT, 'apps/admin/dist');
/** Bounded waits: generous for a loaded machine, never unbounded. */
export const WAIT_MS = 20_000;
/** A phone's width: every screen must work at it. */
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/** Launches headless Chromium; only loopback names resolve, so nothing leaves the machine. */
export function launchBrowser(): Promise<Browser> {
  assert.ok(
    existsSync(join(CONSOLE_DIST, 'index.html')),
    'the console is not built: run `npm run build -w apps/admin`',
  );
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: chromiumArgs(),
  });
}

/** A listening service with no user yet, and the setup code it would have logged at start. */
export type ConsoleService = { t: TestApp; base: string; setupCode: string; close(): Promise<void> };

/** Starts the service on a fresh data dir and makes its setup code, as `service.ts` does at start. */
export async function startConsoleService(env: Record<string, string> = {}): Promise<ConsoleService> {
  const t = await createTestApp({ env: { ADMIN_DIST_DIR: CONSOLE_DIST, ...env } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address: AddressInfo | string | null = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the service has no TCP port');
  const setupCode = await ensureSetupCode(t.config.dataDir);
  return { t, base: `http://127.0.0.1:${address.port}`, setupCode, close: () => t.close() };
}

/**
 * A console user who signs in with `password`: an admin member of each workspace given (by id),
 * the first one their default.
 */
export async function addMember(
  t: TestApp,
  user: { email: string; password: string },
  workspaceIds: readonly string[],
): Promise<void> {
  const created = await createUser(
    t.database.db,
    { email: user.email, password: user.password, bcryptCost: t.config.bcryptCost },
    { role: 'user', defaultWorkspaceId: workspaceIds[0] ?? null },
  );
  await t.database.db
    .insertInto('memberships')
    .values(workspaceIds.map((id) => ({ workspace_id: id, user_id: created.id, role: 'admin' as const })))
    .execute();
}

/** Creates an agent named `name` through the admin API as `tenant`'s owner; answers its id. */
export async function createAgentAs(t: TestApp, tenant: Tenant, name: string): Promise<string> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/admin/agents',
    headers: { ...tenant.auth, 'content-type': 'application/json' },
    payload: JSON.stringify({ name }),
  });
  assert.equal(created.statusCode, 201, created.body);
  return created.json().data.id;
}

/**
 * Opens `from` (a signed-out visitor is shown the sign-in form there), signs in by the form and
 * waits for the console to land on `to` (sign-in returns to the page asked for, else the agents).
 */
export async function signIn(
  page: Page,
  base: string,
  user: { email: string; password: string },
  path: { from?: string; to?: string } = {},
): Promise<void> {
  await page.goto(`${base}${path.from ?? '/admin/sign-in'}`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}${path.to ?? '/admin/agents'}`);
}

/** A page with what it reported: uncaught errors, console errors, failed answers. */
export type Watched = { page: Page; pageErrors: string[]; consoleErrors: string[]; failed: string[] };

/**
 * Runs `body` on a fresh page, then asserts no uncaught error, no console error and no answer of
 * 400 and above except those matching `expectedFailures` (`<status> <METHOD> <path>`, e.g. the 401
 * of reading the session while signed out). Chromium's own "Failed to load resource" lines are
 * checked through the answers, which name the URL.
 */
export async function withPage(
  browser: Browser,
  options: BrowserContextOptions,
  body: (watched: Watched) => Promise<void>,
  expectedFailures: RegExp = /^401 GET \/api\/v1\/admin\/session$/,
): Promise<void> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(WAIT_MS);
  const page = await context.newPage();
  const watched: Watched = { page, pageErrors: [], consoleErrors: [], failed: [] };
  page.on('pageerror', (error) => watched.pageErrors.push(String(error.stack ?? error.message)));
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() < 400) return;
    watched.failed.push(
      `${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`,
    );
  });
  try {
    try {
      await body(watched);
    } catch (error) {
      // What the page said is usually why a wait timed out: put it in the failure.
      const said = [...watched.pageErrors, ...watched.consoleErrors];
      if (said.length > 0 && error instanceof Error) error.message += `\npage reported:\n${said.join('\n')}`;
      throw error;
    }
    assert.deepEqual(watched.pageErrors, [], 'no uncaught error');
    const logged = watched.consoleErrors.filter((text) => !text.startsWith('Failed to load resource:'));
    assert.deepEqual(logged, [], 'no console error (a CSP refusal would be one)');
    assert.deepEqual(
      watched.failed.filter((line) => !expectedFailures.test(line)),
      [],
      'no unexpected failed request',
    );
  } finally {
    await context.close();
  }
}

const require = createRequire(import.meta.url);
let axeSource: Promise<string> | null = null;

/**
 * Runs axe-core on the page as it is and fails on any serious or critical violation. The script
 * goes in through the DevTools protocol, which the console's CSP (rightly) does not let a page do.
 */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  axeSource ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const source = await axeSource;
  // Into every frame too (the agent settings' widget preview): axe checks inside frames only
  // where it runs, and waits for them otherwise.
  for (const frame of page.frames()) await frame.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(node: Node, options: object): Promise<AxeResults> } }).axe;
    type AxeResults = {
      violations: Array<{
        id: string;
        impact: string | null;
        help: string;
        nodes: Array<{ target: unknown }>;
      }>;
    };
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((node) => JSON.stringify(node.target)),
    }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `axe: serious or critical violations on ${screen}`);
}

/** Fails when the page is wider than its viewport (a sideways scroll on a phone). */
export async function assertFitsWidth(page: Page, screen: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  assert.ok(scrollWidth <= innerWidth, `${screen} scrolls sideways: ${scrollWidth} > ${innerWidth}`);
}

/** The pictures docs/screenshots keeps (the main screens; every screen is still checked). */
const DOC_SCREENSHOTS = new Set([
  'setup-desktop',
  'plan-usage-desktop',
  'plan-usage-phone',
  'setup-phone',
  'sign-in-desktop',
  'sign-in-code-phone',
  'agents-empty-desktop',
  'agents-desktop',
  'agents-phone',
  'agents-dark',
  'new-agent-appearance-desktop',
  'new-agent-embed-phone',
  'knowledge-desktop',
  'knowledge-phone',
  'knowledge-delete-desktop',
  'playground-desktop',
  'playground-phone',
  'tokens-created-desktop',
  'members-desktop',
  'members-phone',
  'accept-invite-desktop',
  'accept-invite-phone',
  'two-factor-scan-desktop',
  'two-factor-codes-phone',
  'kb-editor-desktop',
  'agent-settings-desktop',
  'agent-settings-phone',
  'kb-home-desktop',
  'kb-home-phone',
  'kb-home-dark',
  'kb-article-desktop',
  'kb-article-phone',
  'kb-article-dark',
  'demo-desktop',
  'corrections-desktop',
  'corrections-phone',
  'questions-desktop',
  'questions-phone',
  'quality-desktop',
  'quality-phone',
  'analytics-desktop',
  'analytics-phone',
  'kb-settings-desktop',
  'kb-settings-phone',
  'platform-desktop',
  'platform-phone',
  'platform-view-as-desktop',
  'impersonation-desktop',
  'impersonation-phone',
  'inbox-desktop',
  'inbox-phone',
  'inbox-conversation-desktop',
  'inbox-conversation-phone',
  'webhooks-desktop',
]);

/**
 * Saves a full-page screenshot as `<ADMIN_SCREENSHOTS>/<name>.png` when that variable names a
 * folder (relative to the repository root), for the screens in {@link DOC_SCREENSHOTS} (every
 * screen with ADMIN_SCREENSHOTS_ALL=1); `npm run screenshots -w apps/admin` keeps
 * docs/screenshots current this way.
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  const dir = process.env.ADMIN_SCREENSHOTS;
  if (!dir) return;
  if (!DOC_SCREENSHOTS.has(name) && process.env.ADMIN_SCREENSHOTS_ALL !== '1') return;
  const target = isAbsolute(dir) ? dir : join(ROOT, dir);
  await mkdir(target, { recursive: true });
  // Fonts and the focus ring settle before the picture is taken.
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({
    path: join(target, `${name}.png`),
    // The visible window only, for a screen whose sticky bars would land mid-page in a full one.
    fullPage: options.fullPage ?? true,
    animations: 'disabled',
    caret: 'hide',
  });
}

/**
 * Checks a screen at desktop width, at 390 px, and in dark colours: accessible (contrast
 * included), no sideways scroll, pictured.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  for (const [size, viewport, colorScheme] of [
    ['desktop', DESKTOP, 'light'],
    ['phone', PHONE, 'light'],
    ['dark', DESKTOP, 'dark'],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme });
    await assertFitsWidth(page, `${name} (${size})`);
    await assertAccessible(page, `${name} (${size})`);
    await screenshot(page, `${name}-${size}`);
  }
  await page.setViewportSize(DESKTOP);
  await page.emulateMedia({ colorScheme: 'light' });
}
