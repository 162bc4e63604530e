/**
 * The admin console as a browser downloads it, against its budgets: the JavaScript of the first
 * page (the entry and every chunk it imports statically) at most 60 KB gzipped, and each lazy
 * route (a screen's chunk plus the shared chunks it adds to what is already loaded) at most
 * 30 KB gzipped. Read from Vite's build manifest (apps/admin/dist/.vite/manifest.json), so a
 * chunk split or merge is followed without naming files here. CSS is listed, not budgeted.
 *
 * Run: `npm run build -w apps/admin && npm run bench:console-bundle`. Nothing is timed; it exits
 * non-zero when a budget is exceeded or the console is not built.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { markdownTable } from './support/latency.js';

const KB = 1024;
const INITIAL_BUDGET = 60 * KB;
const ROUTE_BUDGET = 30 * KB;
const DIST = join(import.meta.dirname, '../../apps/admin/dist');

const ZChunk = z.object({
  file: z.string(),
  isEntry: z.boolean().optional(),
  isDynamicEntry: z.boolean().optional(),
  imports: z.array(z.string()).default([]),
  dynamicImports: z.array(z.string()).default([]),
  css: z.array(z.string()).default([]),
});
const ZManifest = z.record(z.string(), ZChunk);
type Manifest = z.infer<typeof ZManifest>;

/** The chunk `key` and every chunk it imports statically, as manifest keys. */
function staticClosure(manifest: Manifest, key: string, into = new Set<string>()): Set<string> {
  if (into.has(key)) return into;
  into.add(key);
  for (const next of manifest[key]?.imports ?? []) staticClosure(manifest, next, into);
  return into;
}

const gzipCache = new Map<string, number>();
async function gzipSize(file: string): Promise<number> {
  const cached = gzipCache.get(file);
  if (cached !== undefined) return cached;
  const size = gzipSync(await readFile(join(DIST, file)), { level: 9 }).length;
  gzipCache.set(file, size);
  return size;
}

async function sumGzip(manifest: Manifest, keys: Iterable<string>): Promise<number> {
  let total = 0;
  for (const key of keys) {
    const chunk = manifest[key];
    if (chunk?.file.endsWith('.js')) total += await gzipSize(chunk.file);
  }
  return total;
}

let manifest: Manifest;
try {
  manifest = ZManifest.parse(JSON.parse(await readFile(join(DIST, '.vite/manifest.json'), 'utf8')));
} catch {
  console.error('The console is not built: run `npm run build -w apps/admin` first.');
  process.exit(1);
}

const entryKey = Object.keys(manifest).find((key) => manifest[key]?.isEntry);
if (!entryKey) throw new Error('the console build has no entry chunk');
const initial = staticClosure(manifest, entryKey);
const initialGzip = await sumGzip(manifest, initial);
const kb = (bytes: number) => `${(bytes / KB).toFixed(1)} KB`;
const verdict = (bytes: number, budget: number) => (bytes <= budget ? 'within' : 'OVER');

const rows: string[][] = [
  [
    `initial (${[...initial].map((key) => manifest[key]?.file.replace('assets/', '')).join(', ')})`,
    kb(initialGzip),
    kb(INITIAL_BUDGET),
    verdict(initialGzip, INITIAL_BUDGET),
  ],
];
let isOver = initialGzip > INITIAL_BUDGET;
for (const [key, chunk] of Object.entries(manifest)) {
  if (!chunk.isDynamicEntry) continue;
  const added = [...staticClosure(manifest, key)].filter((dep) => !initial.has(dep));
  const size = await sumGzip(manifest, added);
  isOver ||= size > ROUTE_BUDGET;
  rows.push([
    `lazy ${key.replace('src/routes/', '')}`,
    kb(size),
    kb(ROUTE_BUDGET),
    verdict(size, ROUTE_BUDGET),
  ]);
}
const css = Object.values(manifest).flatMap((chunk) => chunk.css);
let cssGzip = 0;
for (const file of new Set(css)) cssGzip += await gzipSize(file);
rows.push(['CSS (all, not budgeted)', kb(cssGzip), '', '']);

console.log('\n## Admin console bundle (gzip -9)\n');
console.log(markdownTable(['Chunk', 'Gzipped', 'Budget', ''], rows));
if (isOver) {
  console.error('\nA console chunk is over its budget.');
  process.exit(1);
}
