// The cluster script's `code` option: which code the set runs is checked before anything starts
// (no database created, no process spawned), so a typo, a missing build or a build older than
// its sources fails at once instead of measuring old code.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { staleBuild } from '../../../../scripts/cluster/service-code.mjs';
import { startCluster } from '../../../../scripts/cluster/start-cluster.mjs';

test('an unknown code is refused before anything starts, inherited keys included', async () => {
  for (const code of ['dist', 'toString', '__proto__']) {
    await assert.rejects(
      // A value outside the option's type, on purpose.
      startCluster({
        code: code as unknown as 'built',
        adminDatabaseUrl: 'postgres://nobody@127.0.0.1:1/none',
      }),
      /code must be "sources" or "built"/,
    );
  }
});

test('a build is stale when it is missing or a source other than a test changed after it', () => {
  const root = mkdtempSync(join(tmpdir(), 'stale-build-'));
  const write = (path: string, seconds: number) => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '');
    utimesSync(file, seconds, seconds);
  };
  try {
    write('apps/server/src/db/migrate.ts', 1_000);
    write('packages/contract/src/index.ts', 1_000);
    assert.match(staleBuild(root) ?? '', /^apps\/server\/dist is missing/);
    write('apps/server/dist/db/migrate.js', 2_000);
    assert.match(staleBuild(root) ?? '', /^packages\/contract\/dist is missing/);
    write('packages/contract/dist/index.js', 2_000);
    assert.equal(staleBuild(root), null);
    // A test beside the sources is not built into the service: it changes nothing.
    write('apps/server/src/db/migrate.test.ts', 3_000);
    assert.equal(staleBuild(root), null);
    // A source edited after the build, however deep: the build is older than its sources.
    write('apps/server/src/services/conversations/inbox-reads.ts', 3_000);
    assert.match(staleBuild(root) ?? '', /^apps\/server\/dist is older than apps\/server\/src/);
    write('apps/server/dist/services/conversations/inbox-reads.js', 4_000);
    assert.equal(staleBuild(root), null);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
