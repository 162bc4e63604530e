// The cluster script's `code` option: which code the set runs is checked before anything starts
// (no database created, no process spawned), so a typo or a missing build fails at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
