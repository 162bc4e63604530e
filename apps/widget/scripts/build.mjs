#!/usr/bin/env node
// Builds the widget: one minified IIFE named by its content hash, the locale files named by
// theirs, and dist/manifest.json for the service. Fails when the bundle exceeds the contract's
// 50 KB gzip budget (the goal is 15 KB).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const localeDir = join(root, 'src/locales');
const GZIP_LIMIT = 50 * 1024;
const GZIP_GOAL = 15 * 1024;

const hash8 = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 8);

rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'locales'), { recursive: true });

// Locales: every file but English (built in) is served by the service, named by its hash.
const locales = {};
for (const name of readdirSync(localeDir).sort()) {
  if (!name.endsWith('.json')) continue;
  const tag = name.slice(0, -'.json'.length).toLowerCase();
  const bytes = Buffer.from(`${JSON.stringify(JSON.parse(readFileSync(join(localeDir, name), 'utf8')))}\n`);
  const hash = hash8(bytes);
  const file = `locales/${tag}.${hash}.json`;
  writeFileSync(join(dist, file), bytes);
  locales[tag] = { file, hash };
}
const fetched = Object.fromEntries(
  Object.entries(locales)
    .filter(([tag]) => tag !== 'en')
    .map(([tag, entry]) => [tag, entry.hash]),
);

const result = await build({
  entryPoints: [join(root, 'src/main.ts')],
  bundle: true,
  format: 'iife',
  minify: true,
  target: ['es2019', 'chrome100', 'safari15', 'firefox100'],
  platform: 'browser',
  sourcemap: 'external',
  write: false,
  outdir: dist,
  legalComments: 'none',
  charset: 'utf8',
  define: { __WIDGET_LOCALES__: JSON.stringify(fetched) },
  logLevel: 'warning',
});

const js = result.outputFiles.find((file) => file.path.endsWith('.js'));
const map = result.outputFiles.find((file) => file.path.endsWith('.js.map'));
if (!js) throw new Error('esbuild produced no JavaScript');
const code = Buffer.from(js.text.replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n'));
if (/\beval\(|new Function\(/.test(code.toString('utf8'))) {
  console.error('widget.js: eval or new Function in the bundle');
  process.exit(1);
}
const hash = hash8(code);
const file = `widget.${hash}.js`;
writeFileSync(join(dist, file), code);
if (map) writeFileSync(join(dist, `${file}.map`), map.contents);

const gzipBytes = gzipSync(code, { level: 9 }).length;
const brotliBytes = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const manifest = { widget: { file, hash, bytes: code.length, gzipBytes, brotliBytes }, locales };
writeFileSync(join(dist, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

console.log(`widget.js: ${code.length} bytes, ${gzipBytes} gzip, ${brotliBytes} brotli`);
if (gzipBytes > GZIP_LIMIT) {
  console.error(`widget.js is ${gzipBytes} bytes gzipped, over the ${GZIP_LIMIT}-byte budget`);
  process.exit(1);
}
if (gzipBytes > GZIP_GOAL) console.warn(`note: over the ${GZIP_GOAL}-byte gzip goal`);
