import { after, before } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { type HostSite, startHostSite } from './host.js';
import { type Service, startService } from './service.js';

/** What a browser test file runs against: Chromium, the real service, and a host site. */
export type Harness = { browser: Browser; service: Service; host: HostSite };

/**
 * Starts Chromium, the service (with `env`) and a host site before the file's tests, hands them
 * to `onStart` (which may prepare more, e.g. serve a script), and closes all three after.
 */
export function useHarness(
  onStart: (harness: Harness) => void | Promise<void>,
  env: Record<string, string> = {},
): void {
  let started: Partial<Harness> = {};
  before(async () => {
    const browser = await launchBrowser();
    started = { browser };
    const service = await startService(env);
    started.service = service;
    const host = await startHostSite();
    started.host = host;
    await onStart({ browser, service, host });
  });
  after(async () => {
    await started.browser?.close();
    await started.host?.close();
    await started.service?.close();
  });
}
