#!/usr/bin/env node
// Runs the test suite with node's test runner (through tsx, on the TypeScript sources).
// Usage: node scripts/run-tests.mjs [dir-or-file ...] [--exclude=dir-or-file ...] [--engine-dependent]
//        (default: every workspace; --exclude leaves out the test files under a path;
//        --engine-dependent keeps only the files whose database engine TEST_DATABASE_URL chooses)
// Prepares one migrated database template per run, passes it to the test files through the
// environment, and closes with a plain "N passed, N failed" line. Each file runs in its own
// process and fails (killed, counted as cancelled) when it runs longer than TEST_FILE_TIMEOUT_MS
// (default 10 minutes), so one stuck file fails loudly instead of hanging the run.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineDependence } from './engine-files.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const defaultDirs = [
  'packages/contract',
  'packages/site-plugin',
  'apps/server',
  'apps/widget',
  'apps/admin',
  'examples/demo-shop',
  'packages/wordpress-plugin',
  'bench',
];
const args = process.argv.slice(2);
const excludes = args
  .filter((arg) => arg.startsWith('--exclude='))
  .map((arg) => arg.slice('--exclude='.length));
// --engine-dependent: only the files the database engine can change (scripts/engine-files.mjs),
// for a second pass on PostgreSQL after one on the embedded store.
const engineDependentOnly = args.includes('--engine-dependent');
const unknown = args.find(
  (arg) => arg.startsWith('--') && !arg.startsWith('--exclude=') && arg !== '--engine-dependent',
);
if (unknown || excludes.some((path) => path === '')) {
  console.error(
    `Unknown option ${unknown ?? '--exclude= (with no path)'}: the runner takes paths, --exclude=<path> and --engine-dependent`,
  );
  process.exit(1);
}
// A mistyped exclusion would leave nothing out, silently: every path must exist.
const missing = excludes.find((path) => !existsSync(join(root, path)));
if (missing) {
  console.error(`--exclude=${missing}: no such file or directory`);
  process.exit(1);
}
const given = args.filter((arg) => !arg.startsWith('--'));
const dirs = given.length > 0 ? given : defaultDirs;
const node = process.execPath;
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS || 10 * 60 * 1000);
if (!Number.isInteger(fileTimeoutMs) || fileTimeoutMs <= 0) {
  console.error(
    `TEST_FILE_TIMEOUT_MS must be a positive number of milliseconds, not ${process.env.TEST_FILE_TIMEOUT_MS}`,
  );
  process.exit(1);
}
const tsxArgs = ['--conditions=source', '--import', 'tsx'];

function collect(dir, out) {
  if (!existsSync(dir)) return out;
  if (!statSync(dir).isDirectory()) {
    if (dir.endsWith('.test.ts')) out.push(dir);
    return out;
  }
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** Whether a file lies under an excluded path (the path itself or a directory holding it). */
const excluded = (file) =>
  excludes.some((path) => {
    const under = relative(join(root, path), file);
    return under === '' || (!under.startsWith('..') && !isAbsolute(under));
  });
const dependsOnEngine = engineDependence();
const collected = dirs.flatMap((dir) => collect(join(root, dir), [])).filter((file) => !excluded(file));
const files = (engineDependentOnly ? collected.filter(dependsOnEngine) : collected).sort();
if (engineDependentOnly && files.length < collected.length) {
  console.log(
    `--engine-dependent: left out ${collected.length - files.length} test files that never read the test database's settings`,
  );
}
if (files.length === 0) {
  console.error(
    `No test files under ${dirs.join(', ')}${excludes.length > 0 ? ` once ${excludes.join(', ')} left out` : ''}`,
  );
  process.exit(1);
}

// The browser tests drive a real Chromium (playwright-core brings no browser): find it first,
// install it where that is possible (root with apt-get), else stop at once and say how.
const browserDirs = [
  join('apps', 'widget', 'test', 'browser'),
  join('apps', 'admin', 'test', 'browser'),
  join('examples', 'demo-shop', 'test', 'browser'),
  join('packages', 'wordpress-plugin', 'test', 'browser'),
];
const isBrowserTest = (file) => browserDirs.some((dir) => file.includes(dir));
if (process.env.SKIP_BROWSER_TESTS === '1' && files.some(isBrowserTest)) {
  const left = files.filter(isBrowserTest);
  files.splice(0, files.length, ...files.filter((file) => !isBrowserTest(file)));
  console.log(`SKIP_BROWSER_TESTS=1: left out ${left.length} browser test files`);
  if (files.length === 0) process.exit(0);
}
const chromiumPath = files.some(isBrowserTest) ? ensureChromium() : undefined;
// The WordPress tests embed the widget the service serves from its build, as the browser tests do.
const needsWidget = (file) =>
  isBrowserTest(file) || file.includes(join('packages', 'wordpress-plugin', 'test'));
if (files.some(needsWidget) && !existsSync(join(root, 'apps/widget/dist/manifest.json'))) {
  console.log('Building the widget first (the browser tests load the built bundle)');
  const built = spawnSync(process.execPath, [join(root, 'apps/widget/scripts/build.mjs')], {
    cwd: join(root, 'apps/widget'),
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(1);
}

if (
  files.some((file) => file.includes(join('apps', 'admin', 'test', 'browser'))) &&
  !existsSync(join(root, 'apps/admin/dist/index.html'))
) {
  console.log('Building the admin console first (its browser tests load the built files)');
  const built = spawnSync('npm', ['run', 'build', '--silent'], {
    cwd: join(root, 'apps/admin'),
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(1);
}

/** The Chromium the browser tests launch: CHROMIUM_PATH, else `chromium` on PATH, else apt's. */
function findChromium() {
  if (process.env.CHROMIUM_PATH)
    return existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null;
}

/** Returns Chromium's path, installing it with apt-get when running as root, or exits with the fix. */
function ensureChromium() {
  const found = findChromium();
  if (found) return found;
  const onPath = (name) =>
    (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
  if (!process.env.CHROMIUM_PATH && process.getuid?.() === 0 && onPath('apt-get')) {
    console.log('Chromium is missing: installing it with apt-get (the browser tests need it)');
    const options = {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    };
    const updated = spawnSync('apt-get', ['update', '-qq'], options);
    const installed =
      updated.status === 0 &&
      spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], options).status === 0;
    const after = installed ? findChromium() : null;
    if (after) return after;
  }
  const where = process.env.CHROMIUM_PATH
    ? `at CHROMIUM_PATH=${process.env.CHROMIUM_PATH}`
    : 'on this machine';
  console.error(
    `Chromium is not installed ${where}: the browser tests need it. Install it (sudo apt-get install chromium, or set CHROMIUM_PATH to its executable) or run without them: SKIP_BROWSER_TESTS=1 npm test`,
  );
  process.exit(1);
}

/**
 * Whether this Node takes `--test-force-exit` (20.14+, 22+). Asked of Node itself: the flag is not
 * allowed in NODE_OPTIONS, so `process.allowedNodeEnvironmentFlags` never lists it.
 */
function supportsForceExit() {
  return spawnSync(node, ['--test-force-exit', '--eval', ''], { stdio: 'ignore' }).status === 0;
}

const runId = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const env = { ...process.env, TEST_RUN_ID: runId };
if (chromiumPath) env.CHROMIUM_PATH = chromiumPath;
// The server's tests and the widget's browser tests (which run the real service) need the database template.
const needsDatabase = files.some(
  (file) =>
    file.includes(join('apps', 'server')) ||
    file.includes(join('apps', 'widget', 'test', 'browser')) ||
    file.includes(join('apps', 'admin', 'test', 'browser')) ||
    file.includes(join('examples', 'demo-shop', 'test')) ||
    file.includes(join('packages', 'wordpress-plugin', 'test')),
);
if (needsDatabase) {
  const prepared = spawnSync(node, [...tsxArgs, join(root, 'apps/server/test/support/prepare-template.ts')], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (prepared.status !== 0) {
    console.error('Could not prepare the test database template.');
    process.exit(1);
  }
  const result = JSON.parse(prepared.stdout.trim().split('\n').at(-1));
  env.TEST_PGLITE_TEMPLATE = result.pgliteDump;
  if (result.postgresTemplate) env.TEST_PG_TEMPLATE = result.postgresTemplate;
}

const countsDir = mkdtempSync(join(tmpdir(), 'svc-counts-'));
env.TEST_COUNTS_FILE = join(countsDir, 'counts.txt');
const engine = env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
console.log(`Running ${files.length} test files (database engine: ${engine})`);
const run = spawnSync(
  node,
  [
    ...tsxArgs,
    '--test',
    '--test-concurrency=2',
    // A file whose tests and hooks have all finished ends then, even if a handle it leaked would
    // keep its process alive. Seen in CI: a browser file idled for its whole 10-minute limit after
    // passing, held by pg-boss's stop loop (a 1 s timer that waits for a worker whose job never
    // settled after the store closed under it). A leak is still a bug to find.
    ...(supportsForceExit() ? ['--test-force-exit'] : []),
    // Under --test every file is one top-level test of the runner: this is the per-file limit
    // (and, inherited, the limit of each test inside it).
    `--test-timeout=${fileTimeoutMs}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts/test-counts.mjs')}`,
    '--test-reporter-destination=stdout',
    ...files.map((file) => relative(root, file)),
  ],
  { cwd: root, env, stdio: 'inherit' },
);

if (needsDatabase && env.TEST_DATABASE_URL) {
  spawnSync(node, [...tsxArgs, join(root, 'apps/server/test/support/cleanup-templates.ts')], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
}

let passed = 0;
let failed = 0;
let skipped = 0;
const fileTimes = new Map();
if (existsSync(env.TEST_COUNTS_FILE)) {
  for (const outcome of readFileSync(env.TEST_COUNTS_FILE, 'utf8').split('\n')) {
    if (outcome.startsWith('file ')) {
      const [, ms, path] = outcome.match(/^file (\d+) (.*)$/) ?? [];
      if (path) fileTimes.set(path, (fileTimes.get(path) ?? 0) + Number(ms));
    } else if (outcome === 'passed') passed += 1;
    else if (outcome === 'failed') failed += 1;
    else if (outcome === 'skipped') skipped += 1;
  }
}
rmSync(countsDir, { recursive: true, force: true });
// The slowest files and the run's total, so a CI run that grows shows where its time went.
if (fileTimes.size > 0) {
  const times = [...fileTimes].map(([path, ms]) => ({ path, ms })).sort((a, b) => b.ms - a.ms);
  const total = times.reduce((sum, { ms }) => sum + ms, 0);
  console.log(`Slowest test files (of ${times.length}; ${Math.round(total / 1000)} s summed over files):`);
  for (const { ms, path } of times.slice(0, 15))
    console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${isAbsolute(path) ? relative(root, path) : path}`);
}
const exitCode = run.status === 0 && failed === 0 && passed > 0 ? 0 : 1;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(exitCode);
