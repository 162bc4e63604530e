import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { engineDependence } from '../../../scripts/engine-files.mjs';

const testDir = dirname(fileURLToPath(import.meta.url));
// Spelled in parts so this file does not itself read as one that depends on the engine.
const URL_SETTING = ['TEST', 'DATABASE', 'URL'].join('_');

describe('the PostgreSQL pass keeps the test files the engine can change (--engine-dependent)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engine-files-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('test/support/database.ts', `export const engine = process.env.${URL_SETTING} ? 'pg' : 'lite';\n`);
  write('test/support/app.ts', "import { engine } from './database.js';\nexport const app = engine;\n");
  write('test/through-support.test.ts', "import { app } from './support/app.js';\n");
  write('test/dynamic.test.ts', "const { app } = await import('./support/app.js');\n");
  write('test/direct.test.ts', `const url = process.env.${URL_SETTING};\n`);
  write('src/config.ts', `export const url = process.env.${URL_SETTING};\n`);
  write('test/sources-only.test.ts', "import { url } from '../src/config.js';\n");
  write('test/support/a.ts', "import { b } from './b.js';\nexport const a = 1;\n");
  write('test/support/b.ts', "import { a } from './a.js';\nexport const b = 2;\n");
  write('test/cycle.test.ts', "import { a } from './support/a.js';\n");
  write('test/missing-import.test.ts', "import { gone } from './support/gone.js';\n");
  write(
    'test/set-aside.test.ts',
    `// engine-files: embedded only\nconst env = { ...process.env };\ndelete env.${URL_SETTING};\n`,
  );

  test('a file is kept when it or what it imports, at any depth, reads the test database settings', () => {
    const depends = engineDependence();
    const verdicts = Object.fromEntries(
      readdirSync(join(dir, 'test'))
        .filter((name) => name.endsWith('.test.ts'))
        .sort()
        .map((name) => [name, depends(join(dir, 'test', name))]),
    );
    assert.deepEqual(verdicts, {
      'cycle.test.ts': false,
      'direct.test.ts': true,
      'dynamic.test.ts': true,
      'missing-import.test.ts': false,
      // It names the setting only to remove it from a child's environment, and says so.
      'set-aside.test.ts': false,
      // The service's sources are not followed: they never choose the engine from a test setting.
      'sources-only.test.ts': false,
      'through-support.test.ts': true,
    });
  });

  test("on this repository: the cluster and database tests are kept, the service's own process tests are not", () => {
    const depends = engineDependence();
    const cluster = readdirSync(join(testDir, 'cluster')).filter((name) => name.endsWith('.test.ts'));
    assert.ok(cluster.length > 0);
    for (const name of cluster) assert.equal(depends(join(testDir, 'cluster', name)), true, name);
    for (const name of ['admin-agents.test.ts', 'store-maintenance.test.ts', 'widget-init.test.ts'])
      assert.equal(depends(join(testDir, name)), true, name);
    for (const name of ['process.test.ts', 'config.test.ts', 'layering.test.ts', 'ssrf-namespace.test.ts'])
      assert.equal(depends(join(testDir, name)), false, name);
  });
});
