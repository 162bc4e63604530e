#!/usr/bin/env node
// `npm run cli -- <command>`: builds when needed (incremental), then runs the compiled CLI.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const build = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.build.json')], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (build.status !== 0) {
  process.stderr.write('Build failed; run `npm run build` to see why.\n');
  process.exit(build.status ?? 1);
}
const cli = spawnSync(
  process.execPath,
  [join(root, 'apps/server/dist/cli/main.js'), ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
process.exit(cli.status ?? 1);
