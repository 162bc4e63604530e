import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
  type Request,
} from 'playwright-core';
import { CHROMIUM_PATH, chromiumArgs } from '../../../../server/test/support/chromium.js';

// One headless Chromium per test file, a fresh context per test. Every page is watched: page
// errors (uncaught exceptions on the host page), console errors and every request it makes.

/** Where the built widget is read from (the service's default WIDGET_DIST_DIR). */
export const WIDGET_DIST = fileURLToPath(new URL('../../../dist/', import.meta.url));

/** Bounded waits: generous for a loaded CI machine, never unbounded. */
export const WAIT_MS = 15_000;

/** Fails early, with the fix, when the widget bundle the service serves was never built. */
export function requireWidgetBuild(): void {
  assert.ok(
    existsSync(join(WIDGET_DIST, 'manifest.json')),
    `the widget is not built: run \`npm run build -w apps/widget\` (expected ${WIDGET_DIST}manifest.json)`,
  );
}

/** Launches headless Chromium; only loopback names resolve, so nothing leaves the machine. */
export function launchBrowser(): Promise<Browser> {
  requireWidgetBuild();
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: chromiumArgs(),
  });
}

/** A page with what it reported: uncaught errors, console errors, requests. */
export type Watched = {
  context: BrowserContext;
  page: Page;
  pageErrors: string[];
  consoleErrors: string[];
  /** Answers of 400 and above, as `<status> <method> <url>` (the browser's favicon probe left out). */
  failedResponses: string[];
  requests: Request[];
};

/** Opens a fresh context and page that record errors and requests. */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Watched> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(WAIT_MS);
  const page = await context.newPage();
  const watched: Watched = {
    context,
    page,
    pageErrors: [],
    consoleErrors: [],
    failedResponses: [],
    requests: [],
  };
  page.on('pageerror', (error) => watched.pageErrors.push(String(error.stack ?? error.message)));
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(message.text());
  });
  page.on('request', (request) => watched.requests.push(request));
  page.on('response', (response) => {
    if (response.status() < 400 || new URL(response.url()).pathname === '/favicon.ico') return;
    watched.failedResponses.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return watched;
}

/**
 * Runs `body` on a fresh page, then asserts the host page saw no uncaught error, no console
 * error and no failed request (except answers matching `expectedFailures`, e.g. a 429 the test
 * provokes), and closes the context whatever happened. Chromium's own "Failed to load
 * resource" console lines are checked through the responses, which name the URL.
 */
export async function withPage(
  browser: Browser,
  options: BrowserContextOptions,
  body: (watched: Watched) => Promise<void>,
  expectedFailures?: RegExp,
): Promise<void> {
  const watched = await openPage(browser, options);
  try {
    await body(watched);
    assert.deepEqual(watched.pageErrors, [], 'no uncaught error on the host page');
    const logged = watched.consoleErrors.filter((text) => !text.startsWith('Failed to load resource:'));
    assert.deepEqual(logged, [], 'no console error on the host page');
    const failed = watched.failedResponses.filter((line) => !expectedFailures?.test(line));
    assert.deepEqual(failed, [], 'no failed request');
  } finally {
    await watched.context.close();
  }
}

/** The requests of a page whose path ends with `suffix` (optionally of one method). */
export function requestsTo(watched: Watched, suffix: string, method?: string): Request[] {
  return watched.requests.filter(
    (request) =>
      new URL(request.url()).pathname.endsWith(suffix) &&
      (method === undefined || request.method() === method),
  );
}
