/**
 * How long the admin console takes to show the agents list in Debian Chromium, side by side with
 * a blank page served by the same service, in one run, printed as a ratio.
 *
 * The service is the real app (`createApp`) over a fresh embedded store, bootstrapped as the CLI
 * does, with 10 agents, serving the built console from apps/admin/dist. The browser signs in once
 * through the sign-in page (the form, as a person would); the session cookie the service set is
 * then given to each sample's fresh context, so every sample starts signed in with an empty HTTP
 * cache. Each sample then:
 * - console: navigates to /admin/agents; an init script records `performance.now()` (ms from
 *   navigation start) when the agents list has its entries, or the empty state shows, with a
 *   non-zero box (a MutationObserver, no polling). A second navigation in the same context gives
 *   the warm-cache figure (hashed assets are cached as immutable).
 * - blank: navigates to /admin/favicon.svg, the console's smallest static file, served by the same
 *   route, headers and CSP as its other files (nothing is added to the service for the bench);
 *   its time is the navigation's load event. Cold and warm, as above.
 *
 * Run: `npm run build -w apps/admin && npm run bench:console-load -w bench` (BENCH_SAMPLES
 * overrides 15). Nothing passes or fails on time; it exits non-zero when the list never shows.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { createAgent } from '../../apps/server/src/services/agents/agents.js';
import { CHROMIUM_PATH, chromiumArgs } from '../../apps/server/test/support/chromium.js';
import { createBenchApp, openEmbeddedStore, startBenchQueue } from './support/embedded-store.js';
import { listenLocal } from './support/http.js';
import { formatMs, formatRatio, markdownTable, summarize } from './support/latency.js';

const SAMPLES = Math.max(5, Number(process.env.BENCH_SAMPLES ?? 15) || 15);
const WARM_UP = 2;
const AGENTS = 10;
/** The account `openEmbeddedStore` bootstraps. */
const EMAIL = 'bench@example.com';
const PASSWORD = 'correct horse battery';
const DIST = join(import.meta.dirname, '../../apps/admin/dist');

/** Records when the agents list (or its empty state) shows: runs in the page before its scripts. */
const OBSERVE_AGENTS = `(() => {
  const seen = () => {
    const shown = document.querySelector('ul[aria-label="Agents"] > li, .empty-state');
    if (!shown || shown.getBoundingClientRect().height === 0) return false;
    window.__agentsAt = performance.now();
    window.__agentsShown = document.querySelectorAll('ul[aria-label="Agents"] > li').length;
    return true;
  };
  new MutationObserver((_, observer) => { if (seen()) observer.disconnect(); })
    .observe(document, { childList: true, subtree: true, attributes: true });
})();`;

if (!existsSync(join(DIST, 'index.html')) || !existsSync(join(DIST, 'favicon.svg'))) {
  console.error('The console is not built: run `npm run build -w apps/admin` first.');
  process.exit(1);
}

const store = await openEmbeddedStore();
// A real queue that runs nothing: listing agents sends no job.
const queue = await startBenchQueue(store);
for (let i = 1; i <= AGENTS; i++) {
  await createAgent(
    { ...store.scope, queue },
    { name: `Shop helper ${i}`, is_published: i % 2 === 0, allowed_origins: ['https://shop.example'] },
  );
}
const app = await createBenchApp(store, queue);
const base = await listenLocal(app);
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumArgs() });

/** Navigates to the agents list and answers when it showed (ms from navigation start) and its size. */
async function timeAgents(context: BrowserContext): Promise<{ at: number; shown: number } | null> {
  const page = await context.newPage();
  try {
    await page.goto(`${base}/admin/agents`);
    // A function, not a string: the console's CSP (rightly) refuses a string evaluated in the page.
    const handle = await page.waitForFunction(
      () => {
        const at: unknown = Reflect.get(globalThis, '__agentsAt');
        const shown: unknown = Reflect.get(globalThis, '__agentsShown');
        return typeof at === 'number' ? { at, shown: typeof shown === 'number' ? shown : 0 } : null;
      },
      null,
      { timeout: 15_000 },
    );
    const result = await handle.jsonValue();
    if (result === null) return null;
    const { at, shown } = result;
    return new URL(page.url()).pathname === '/admin/agents' ? { at, shown } : null;
  } catch {
    // Not shown within the wait (or never signed in): counted as a failed sample.
    return null;
  } finally {
    await page.close();
  }
}

/** Navigates to the blank page and answers its load event (ms from navigation start). */
async function timeBlank(context: BrowserContext): Promise<number> {
  const page = await context.newPage();
  try {
    await page.goto(`${base}/admin/favicon.svg`, { waitUntil: 'load' });
    // An expression sent through the DevTools protocol, which the CSP does not apply to.
    return Number(await page.evaluate('performance.getEntriesByType("navigation")[0].loadEventEnd'));
  } finally {
    await page.close();
  }
}

const times = {
  blankCold: [] as number[],
  blankWarm: [] as number[],
  cold: [] as number[],
  warm: [] as number[],
};
let failed = 0;
try {
  // Signed in once through the form: the cookie the service set is what each sample starts with.
  const signIn = await browser.newContext();
  const page = await signIn.newPage();
  await page.goto(`${base}/admin/sign-in`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/admin/agents`, { timeout: 15_000 });
  const signedIn = await signIn.storageState();
  await signIn.close();

  for (let i = 0; i < SAMPLES + WARM_UP; i++) {
    const blank = await browser.newContext();
    const blankCold = await timeBlank(blank);
    const blankWarm = await timeBlank(blank);
    await blank.close();
    const console_ = await browser.newContext({ storageState: signedIn });
    await console_.addInitScript(OBSERVE_AGENTS);
    const cold = await timeAgents(console_);
    const warm = await timeAgents(console_);
    await console_.close();
    if (i < WARM_UP) continue; // the service's first requests, Chromium's first contexts
    times.blankCold.push(blankCold);
    times.blankWarm.push(blankWarm);
    for (const [into, result] of [
      [times.cold, cold],
      [times.warm, warm],
    ] as const) {
      if (result && result.shown === AGENTS) into.push(result.at);
      else failed += 1;
    }
  }
} finally {
  await browser.close();
  await app.close();
  await queue.stop(1_000);
  await store.close();
}

const rows = [
  ['blank page (/admin/favicon.svg), empty cache: load event', times.blankCold],
  ['blank page, cached: load event', times.blankWarm],
  [`agents list (${AGENTS} agents), empty cache: entries visible`, times.cold],
  ['agents list, cached assets: entries visible', times.warm],
] as const;
console.log(
  `Console load in Chromium, ${SAMPLES} samples each (after ${WARM_UP} warm-up), ms from navigation start:`,
);
console.log(
  markdownTable(
    ['page', 'median', 'p95', 'mean'],
    rows.map(([label, samples]) => {
      const s = summarize(samples);
      return [label, formatMs(s.p50), formatMs(s.p95), formatMs(s.mean)];
    }),
  ),
);
const median = (samples: readonly number[]) => summarize(samples).p50;
console.log(
  `agents list vs blank page, empty cache: ${formatRatio(median(times.cold) / Math.max(median(times.blankCold), 0.001))} (median)`,
);
console.log(
  `agents list vs blank page, cached: ${formatRatio(median(times.warm) / Math.max(median(times.blankWarm), 0.001))} (median)`,
);
if (failed > 0) {
  console.error(`${failed} samples never showed the ${AGENTS} agents`);
  process.exitCode = 1;
}
