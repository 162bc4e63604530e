/**
 * The widget as a visitor's browser gets it: the shipped bundle's bytes (raw, gzip, brotli)
 * against the contract's 50 KB gzip budget and our 15 KB goal, and, in Debian Chromium, the time
 * from navigation start to the launcher being visible on a host page side by side with the same
 * host page without the widget (its load event), measured in the same run.
 *
 * The host page is served from another origin (localhost) than the service (127.0.0.1), as on a
 * customer site. Each sample is a fresh browser context (empty cache), so the bundle is fetched
 * every time. An init script in the page records `performance.now()` when the launcher is in the
 * shadow root with a non-zero box (a MutationObserver, no polling).
 *
 * Run: `npm run build -w apps/widget && npm run bench:widget-bundle` (BENCH_SAMPLES overrides 30).
 * Nothing passes or fails on time; it exits non-zero only when the launcher never shows.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { createAgent } from '../../apps/server/src/services/agents/agents.js';
import { CHROMIUM_PATH, chromiumArgs } from '../../apps/server/test/support/chromium.js';
import { createBenchApp, openEmbeddedStore, startBenchQueue } from './support/embedded-store.js';
import { listenLocal } from './support/http.js';
import { formatMs, formatRatio, markdownTable, summarize } from './support/latency.js';

const SAMPLES = Math.max(5, Number(process.env.BENCH_SAMPLES ?? 30) || 30);
const KB = 1024;

/** Records when the launcher shows: runs in the page before any of its scripts. */
const OBSERVE_LAUNCHER = `(() => {
  const seen = () => {
    const host = document.querySelector('[data-service-widget]');
    const launcher = host && host.shadowRoot && host.shadowRoot.querySelector('[data-testid="launcher"]');
    if (!launcher || launcher.getBoundingClientRect().width === 0) return false;
    window.__launcherAt = performance.now();
    return true;
  };
  const watch = (root) => new MutationObserver((_, observer) => { if (seen()) observer.disconnect(); })
    .observe(root, { childList: true, subtree: true, attributes: true });
  new MutationObserver((_, observer) => {
    const host = document.querySelector('[data-service-widget]');
    if (host && host.shadowRoot) { observer.disconnect(); if (!seen()) watch(host.shadowRoot); }
  }).observe(document, { childList: true, subtree: true });
})();`;

async function bundleSizes(): Promise<{ file: string; raw: number; gzip: number; brotli: number }> {
  const dist = join(import.meta.dirname, '../../apps/widget/dist');
  const manifest: unknown = JSON.parse(await readFile(join(dist, 'manifest.json'), 'utf8'));
  const file =
    typeof manifest === 'object' && manifest !== null && 'widget' in manifest
      ? String(Object(manifest.widget).file)
      : '';
  const bytes = await readFile(join(dist, file));
  const gzip = gzipSync(bytes, { level: 9 }).length;
  const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  return { file, raw: bytes.length, gzip, brotli };
}

const sizes = await bundleSizes();
const store = await openEmbeddedStore({ WIDGET_RATE_LIMIT_SCALE: '1000' });
const pages = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(request.url?.startsWith('/widget') ? widgetPage : blankPage);
});
await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
const address = pages.address();
const hostOrigin = `http://localhost:${typeof address === 'object' && address ? address.port : 0}`;
// A real queue that runs nothing: init queues no page for indexing here (auto_index_pages is off).
const queue = await startBenchQueue(store);
const agent = await createAgent(
  { ...store.scope, queue },
  { name: 'Bench', is_published: true, allowed_origins: [hostOrigin] },
);
const app = await createBenchApp(store, queue);
const serviceUrl = await listenLocal(app);
const body = '<h1>A customer page</h1><p>Some text the visitor reads.</p>';
const blankPage = `<!doctype html><html lang="en"><head><title>blank</title></head><body>${body}</body></html>`;
const widgetPage = `<!doctype html><html lang="en"><head><title>widget</title></head><body>${body}<script src="${serviceUrl}/widget/widget.js?v=bench" data-agent-id="${agent.id}" async></script></body></html>`;

const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  args: chromiumArgs({ loopbackOnly: false }),
});
const blank: number[] = [];
const launcher: number[] = [];
let failed = 0;
try {
  for (let i = 0; i < SAMPLES + 3; i++) {
    for (const kind of ['blank', 'widget'] as const) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.addInitScript(OBSERVE_LAUNCHER);
      await page.goto(`${hostOrigin}/${kind}`, { waitUntil: 'load' });
      const at =
        kind === 'blank'
          ? await page.evaluate<number>('performance.getEntriesByType("navigation")[0].duration')
          : await page
              .waitForFunction('window.__launcherAt', null, { timeout: 10_000 })
              .then((handle) => handle.jsonValue())
              .catch(() => null);
      await context.close();
      if (i < 3) continue; // warm-up: the service's first requests, Chromium's first contexts
      if (kind === 'blank') blank.push(Number(at));
      else if (typeof at === 'number') launcher.push(at);
      else failed += 1;
    }
  }
} finally {
  await browser.close();
  await app.close();
  pages.close();
  await queue.stop(1_000);
  await store.close();
}

const b = summarize(blank);
const w = summarize(launcher);
console.log(`Widget bundle: ${sizes.file}`);
console.log(
  markdownTable(
    ['bundle', 'bytes', 'KB'],
    [
      ['raw (minified)', String(sizes.raw), (sizes.raw / KB).toFixed(1)],
      ['gzip -9', String(sizes.gzip), (sizes.gzip / KB).toFixed(1)],
      ['brotli -q 11', String(sizes.brotli), (sizes.brotli / KB).toFixed(1)],
    ],
  ),
);
console.log(
  `Budget: gzip ≤ 50 KB (contract), goal ≤ 15 KB: ${sizes.gzip <= 15 * KB ? 'met' : 'not met'} (${(sizes.gzip / KB).toFixed(1)} KB)`,
);
console.log(`\nChromium, ${SAMPLES} samples each (fresh context, empty cache), ms from navigation start:`);
console.log(
  markdownTable(
    ['page', 'p50', 'p95', 'mean'],
    [
      ['host page without the widget: load event', formatMs(b.p50), formatMs(b.p95), formatMs(b.mean)],
      ['host page with the widget: launcher visible', formatMs(w.p50), formatMs(w.p95), formatMs(w.mean)],
    ],
  ),
);
console.log(`launcher visible vs blank page load: ${formatRatio(w.p50 / Math.max(b.p50, 0.001))} at p50`);
if (failed > 0) {
  console.error(`${failed} samples never showed the launcher`);
  process.exitCode = 1;
}
