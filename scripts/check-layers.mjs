#!/usr/bin/env node
// The service's layering rule, checked over every import in apps/server/src (docs/architecture.md
// explains it), and the one-clock rule: services/, jobs/ and chat/ never read the system clock themselves.
// Run by `npm run lint`; apps/server/test/layering.test.ts runs it too and proves that it catches a
// violation. Exit code 1 and one line per problem when the rule is broken.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Layers, lowest first. A unit (a top-level folder or file of src/, or one domain folder of
 * services/) may import its own layer and the layers below it, never a layer above. Within a
 * layer, imports between units must not form a cycle.
 */
export const LAYERS = [
  ['errors', 'config', 'security', 'workers', 'db', 'logger.ts', 'clock.ts'],
  [
    'outbound',
    'payments',
    'queue',
    'embeddings',
    'llm',
    'ingest',
    'crawl',
    'extraction',
    'sql-source',
    'kb',
    'site-calls',
    'widget-assets',
    'console-assets',
    'mail',
  ],
  ['services'],
  ['retrieval', 'jobs'],
  ['chat'],
  ['http', 'surfaces', 'app-deps.ts', 'app.ts'],
  ['service.ts', 'main.ts', 'cli'],
];

/** Packages only the HTTP layer (and the boot files above it) may import. */
const HTTP_PACKAGES = /^(fastify|fastify-plugin|fastify-type-provider-zod|@fastify\/.*)$/;
const HTTP_LAYER = LAYERS.findIndex((layer) => layer.includes('surfaces'));

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Folders whose code takes "now" from the injected `Clock` (src/clock.ts), never from the system. */
const CLOCK_INJECTED = /^(services|jobs|chat)\//;
/** `new Date()` with no argument, or `Date.now` (called or passed as a function). */
const SYSTEM_CLOCK = /\bnew\s+Date\s*\(\s*\)|\bDate\.now\b/;

/**
 * One message per line of `source` that reads the system clock, for files under services/, jobs/
 * and chat/ (comment lines are skipped). Those take the service's one clock instead, so tests pin time.
 */
export function systemClockReadsOf(path, source) {
  if (!CLOCK_INJECTED.test(path)) return [];
  const problems = [];
  source.split('\n').forEach((line, index) => {
    const code = line.trim();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
    const found = SYSTEM_CLOCK.exec(code);
    if (found) {
      problems.push(
        `${path}:${index + 1}: reads the system clock (${found[0]}); take the injected Clock instead (src/clock.ts: scope.clock, the job context's clock, or a \`clock\`/\`now\` argument)`,
      );
    }
  });
  return problems;
}

/** The process entry points: each may start the others (the CLI runs a worker), so they are one unit. */
const ENTRY_POINTS = new Set(LAYERS[LAYERS.length - 1]);

/** The unit a source path (relative to src/, posix) belongs to. */
export function unitOf(path) {
  const parts = path.split('/');
  if (ENTRY_POINTS.has(parts[0])) return 'entry points';
  if (parts[0] === 'services' && parts.length > 2) return `services/${parts[1]}`;
  return parts[0];
}

/** The layer index of a unit, or -1 when the rule does not list it. */
export function layerOf(unit) {
  if (unit === 'entry points') return LAYERS.length - 1;
  const top = unit.split('/')[0];
  return LAYERS.findIndex((layer) => layer.includes(top));
}

/**
 * Every import of a TypeScript source as `{ specifier, isTypeOnly }` (`import type`, erased at
 * build). Comments and strings that look like imports are rare enough to ignore.
 */
export function importsOf(source) {
  const found = [];
  for (const match of source.matchAll(IMPORT)) {
    found.push({ specifier: match[2] ?? match[3], isTypeOnly: match[1] !== undefined });
  }
  return found;
}

/**
 * Checks a set of files: `files` maps a path relative to src/ (posix, `.ts`) to its source.
 * Returns one message per problem; empty when the layering holds.
 */
export function checkLayers(files) {
  const problems = [];
  const fileEdges = new Map();
  const unitEdges = new Map();
  for (const [path, source] of files) {
    if (path.endsWith('.test.ts')) continue;
    problems.push(...systemClockReadsOf(path, source));
    const from = unitOf(path);
    const fromLayer = layerOf(from);
    if (fromLayer < 0)
      problems.push(`${path}: ${from} is in no layer (add it to LAYERS in scripts/check-layers.mjs)`);
    const targets = new Set();
    for (const { specifier, isTypeOnly } of importsOf(source)) {
      if (!specifier.startsWith('.')) {
        if (HTTP_PACKAGES.test(specifier) && fromLayer < HTTP_LAYER) {
          problems.push(`${path}: imports ${specifier}; only the HTTP layer may`);
        }
        continue;
      }
      const target = posix.normalize(posix.join(posix.dirname(path), specifier)).replace(/\.js$/, '.ts');
      if (target.startsWith('..')) {
        problems.push(`${path}: imports ${specifier}, outside apps/server/src`);
        continue;
      }
      if (!files.has(target)) continue;
      // A type-only import creates no load-order dependency, so only runtime imports make file cycles;
      // types still count for the layers and for cycles between folders.
      if (!isTypeOnly) targets.add(target);
      const to = unitOf(target);
      if (to === from) continue;
      const toLayer = layerOf(to);
      if (toLayer > fromLayer) {
        problems.push(`${path}: imports ${target} from a higher layer (${from} → ${to})`);
      }
      if (!unitEdges.has(from)) unitEdges.set(from, new Set());
      unitEdges.get(from).add(to);
    }
    fileEdges.set(path, targets);
  }
  for (const cycle of cyclesOf(unitEdges)) problems.push(`folders importing each other: ${cycle.join(', ')}`);
  for (const cycle of cyclesOf(fileEdges)) problems.push(`files importing each other: ${cycle.join(', ')}`);
  return problems;
}

/** The strongly connected components with more than one node (Tarjan), each sorted. */
function cyclesOf(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node), index.get(to)));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** Reads every .ts file under `srcDir` into the map `checkLayers` takes. */
export function readSources(srcDir) {
  const files = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.ts'))
        files.set(relative(srcDir, path).split(sep).join('/'), readFileSync(path, 'utf8'));
    }
  };
  walk(srcDir);
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'apps', 'server', 'src');
  const problems = checkLayers(readSources(srcDir));
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`layering: ${problems.length} problem(s); see docs/architecture.md`);
    process.exit(1);
  }
  console.log(
    'layering: no cycle, no import from a lower layer up to a higher one, no system clock in services/, jobs/ or chat/',
  );
}
