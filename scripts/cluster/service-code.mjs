// Which code the cluster's processes run (scripts/cluster/start-cluster.mjs): the TypeScript
// sources through tsx, or the build, and whether the build still stands for its sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How each process runs the service: from the sources through tsx (the tests: no build needed),
 * or from the build (`npm run build`), as an operator runs it: no loader, no transform cache.
 */
const CODE = {
  sources: {
    node: ['--conditions=source', '--import', 'tsx'],
    main: 'apps/server/src/main.ts',
    cli: 'apps/server/src/cli/main.ts',
  },
  built: { node: [], main: 'apps/server/dist/main.js', cli: 'apps/server/dist/cli/main.js' },
};
/** The packages the service's build is made of: each one's sources and what they build to. */
const BUILT_FROM = [
  { src: 'apps/server/src', dist: 'apps/server/dist' },
  { src: 'packages/contract/src', dist: 'packages/contract/dist' },
];

/** The newest modification time (ms) of the files under `dir` that `keep` accepts; 0 when none. */
function newestFile(dir, keep) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestFile(path, keep));
    else if (keep(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Why the build cannot stand for the sources, or null: a source file (tests aside) changed after
 * the newest file of its package's build, so a set started from it would run older code.
 */
export function staleBuild(root) {
  for (const { src, dist } of BUILT_FROM) {
    const source = newestFile(join(root, src), (name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    const built = newestFile(join(root, dist), (name) => name.endsWith('.js'));
    if (built === 0) return `${dist} is missing: run \`npm run build\` first`;
    if (source > built) return `${dist} is older than ${src}: run \`npm run build\` first`;
  }
  return null;
}

/** The node arguments and entry points of `name` ('sources' or 'built'), or null for any other name. */
export function serviceCode(name) {
  return Object.hasOwn(CODE, name) ? CODE[name] : null;
}
