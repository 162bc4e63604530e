import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { APP_KEY_FILE, APP_KEY_PREVIOUS_FILE, formatAppKey } from '../src/config/app-key.js';
import { lockDataDir } from '../src/db/data-dir-lock.js';
import { keyFile } from './support/key-rotation.js';
import { runCli } from './support/processes.js';

describe('key:rotate from the CLI', () => {
  const temps: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-rotate-cli-'));
    temps.push(dir);
    return dir;
  };
  after(async () => {
    for (const dir of temps) await rm(dir, { recursive: true, force: true });
  });

  test('refuses with exit 1 while DATA_DIR is locked', async () => {
    const dataDir = await tempDir();
    const release = await lockDataDir(dataDir, () => {});
    try {
      const result = await runCli(['key:rotate'], { DATA_DIR: dataDir });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /stop it first/);
      assert.equal(existsSync(join(dataDir, APP_KEY_FILE)), false);
      assert.equal(existsSync(join(dataDir, 'pgdata')), false);
    } finally {
      await release();
    }
  });

  test('rotates a fresh embedded store and prints a summary without keys', async () => {
    const dataDir = await tempDir();
    const result = await runCli(['key:rotate', '--json'], { DATA_DIR: dataDir });
    assert.equal(result.code, 0, result.stderr);
    const output: unknown = JSON.parse(result.stdout);
    assert.deepEqual(output, {
      store: 'embedded',
      resealed: 0,
      already_current: 0,
      workspaces: 0,
      new_key: null,
      key_file: join(dataDir, APP_KEY_FILE),
      previous_key_file: join(dataDir, APP_KEY_PREVIOUS_FILE),
      resumed: false,
      next_steps: [
        `The new key is in ${join(dataDir, APP_KEY_FILE)}, the old one in ${join(dataDir, APP_KEY_PREVIOUS_FILE)} ` +
          '(both mode 0600). Back up the new app.key, then start the service.',
      ],
    });
    const [current, previous] = await Promise.all([
      keyFile(dataDir, APP_KEY_FILE),
      keyFile(dataDir, APP_KEY_PREVIOUS_FILE),
    ]);
    assert.ok(current && previous && !current.equals(previous));
    assert.ok(!result.stdout.includes(formatAppKey(current).slice(7)));
    assert.ok(!result.stderr.includes(formatAppKey(previous).slice(7)));
  });
});
