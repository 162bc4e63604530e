import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { formatResult } from '../src/cli/format.js';
import {
  APP_KEY_FILE,
  APP_KEY_NEXT_FILE,
  APP_KEY_PREVIOUS_FILE,
  formatAppKey,
} from '../src/config/app-key.js';
import { type Config, decodeAppKey, loadConfig } from '../src/config/config.js';
import { lockDataDir } from '../src/db/data-dir-lock.js';
import { KeyRotationError } from '../src/services/sealed-secrets.js';
import {
  fileMode,
  keyFile,
  keyRotationApp,
  NEW,
  OLD,
  OTHER,
  PASSWORDS,
  sealedPasswords,
  setSealedPassword,
  tamperSealed,
} from './support/key-rotation.js';

// rotateAppKey, the CLI's rotation: where the new key is installed (DATA_DIR/app.key, printed for
// the environment, or PostgreSQL's APP_KEY rollover) and how an interrupted one resumes.
const f = keyRotationApp();
const { sourceIds, tempDir, sealAll, snapshot, assertAllOpenWith, rotate } = f;

describe('key:rotate: installing the new key', () => {
  describe('embedded store, key in DATA_DIR/app.key', () => {
    let dataDir: string;
    let config: Config;

    before(async () => {
      dataDir = await tempDir();
      config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    });

    test('installs the new key atomically in app.key and keeps the old one in app.key.previous, both 0600', async () => {
      await writeFile(join(dataDir, APP_KEY_FILE), `${formatAppKey(OLD)}\n`, { mode: 0o600 });
      await sealAll(OLD);
      const inodeBefore = (await stat(join(dataDir, APP_KEY_FILE))).ino;
      const result = await rotate(config);

      const installed = await keyFile(dataDir, APP_KEY_FILE);
      assert.ok(installed && !installed.equals(OLD));
      assert.deepEqual(await keyFile(dataDir, APP_KEY_PREVIOUS_FILE), OLD);
      assert.equal(await fileMode(join(dataDir, APP_KEY_FILE)), 0o600);
      assert.equal(await fileMode(join(dataDir, APP_KEY_PREVIOUS_FILE)), 0o600);
      // Renamed into place (a new inode), no staged or temp file left, the lock released.
      assert.notEqual((await stat(join(dataDir, APP_KEY_FILE))).ino, inodeBefore);
      assert.deepEqual((await readdir(dataDir)).sort(), [APP_KEY_FILE, APP_KEY_PREVIOUS_FILE]);
      await assertAllOpenWith(installed);

      assert.equal(result.store, 'embedded');
      assert.equal(result.resealed, 3);
      assert.equal(result.already_current, 0);
      assert.equal(result.new_key, null, 'the key is in the file: not printed');
      assert.equal(result.key_file, join(dataDir, APP_KEY_FILE));
      assert.equal(result.previous_key_file, join(dataDir, APP_KEY_PREVIOUS_FILE));
      const text = formatResult('key:rotate', result, false);
      const json = formatResult('key:rotate', result, true);
      assert.match(text, /^Re-sealed 3 secrets in 2 workspaces; 0 already sealed with the new key\./);
      for (const output of [text, json]) {
        assert.ok(!output.includes(formatAppKey(OLD).slice(7)), 'never the old key');
        assert.ok(!output.includes(formatAppKey(installed).slice(7)), 'the new key stays in the file');
        for (const password of PASSWORDS) assert.ok(!output.includes(password));
      }
    });

    test('refuses while the service holds DATA_DIR, and changes nothing', async () => {
      const release = await lockDataDir(dataDir, () => {});
      try {
        const keyBefore = await readFile(join(dataDir, APP_KEY_FILE), 'utf8');
        const before = await snapshot();
        let opened = false;
        await assert.rejects(
          rotate(config, {
            opened: () => {
              opened = true;
            },
          }),
          (error: unknown) => {
            assert.ok(error instanceof KeyRotationError);
            assert.match(error.message, /is running on DATA_DIR .*stop it first/);
            return true;
          },
        );
        assert.equal(opened, false);
        assert.equal(await readFile(join(dataDir, APP_KEY_FILE), 'utf8'), keyBefore);
        assert.equal(existsSync(join(dataDir, APP_KEY_NEXT_FILE)), false);
        assert.deepEqual(await snapshot(), before);
      } finally {
        await release();
      }
    });

    test('a failed transaction leaves app.key, app.key.previous and the rows as they were', async () => {
      const current = await keyFile(dataDir, APP_KEY_FILE);
      assert.ok(current);
      await sealAll(current);
      const victim = sourceIds()[0] ?? '';
      await setSealedPassword(
        f.t.database.db,
        victim,
        tamperSealed((await sealedPasswords(f.t.database.db)).get(victim) ?? ''),
      );
      const files = async () =>
        Promise.all(
          [APP_KEY_FILE, APP_KEY_PREVIOUS_FILE].map((name) => readFile(join(dataDir, name), 'utf8')),
        );
      const filesBefore = await files();
      const before = await snapshot();
      await assert.rejects(rotate(config), new RegExp(`SQL source ${victim}`));
      assert.deepEqual(await files(), filesBefore);
      assert.deepEqual((await readdir(dataDir)).sort(), [APP_KEY_FILE, APP_KEY_PREVIOUS_FILE]);
      assert.deepEqual(await snapshot(), before);
    });

    test('resumes a rotation whose process died after the commit, with the key it staged', async () => {
      const current = await keyFile(dataDir, APP_KEY_FILE);
      assert.ok(current);
      const [first] = sourceIds();
      // The crash: app.key.next staged, the transaction committed for some values, app.key not yet swapped.
      await writeFile(join(dataDir, APP_KEY_NEXT_FILE), `${formatAppKey(NEW)}\n`, { mode: 0o600 });
      await sealAll((id) => (id === first ? NEW : current));
      await assert.rejects(rotate(config, { newKey: formatAppKey(OTHER) }), /interrupted rotation/);
      const result = await rotate(config);
      assert.equal(result.resumed, true);
      assert.equal(result.resealed, 2);
      assert.equal(result.already_current, 1);
      assert.deepEqual(await keyFile(dataDir, APP_KEY_FILE), NEW);
      assert.deepEqual(await keyFile(dataDir, APP_KEY_PREVIOUS_FILE), current);
      assert.equal(existsSync(join(dataDir, APP_KEY_NEXT_FILE)), false);
      await assertAllOpenWith(NEW);
      assert.match(formatResult('key:rotate', result, false), /^Finished the interrupted rotation/);
    });

    test('--new-key is used as given; a malformed one or the current key is refused before anything runs', async () => {
      await rotate(config, { newKey: formatAppKey(OTHER) });
      assert.deepEqual(await keyFile(dataDir, APP_KEY_FILE), OTHER);
      await assertAllOpenWith(OTHER);
      for (const [newKey, message] of [
        ['base64:short', /--new-key must be base64/],
        [formatAppKey(OTHER), /nothing to rotate/],
      ] as const) {
        let opened = false;
        await assert.rejects(
          rotate(config, {
            newKey,
            opened: () => {
              opened = true;
            },
          }),
          message,
        );
        assert.equal(opened, false);
      }
    });
  });

  test('embedded store with APP_KEY in the environment: writes no file, prints the generated key', async () => {
    const dataDir = await tempDir();
    await sealAll(OLD);
    const result = await rotate(loadConfig({ DATA_DIR: dataDir, APP_KEY: formatAppKey(OLD) }));
    const printed = decodeAppKey(result.new_key ?? '');
    assert.ok(printed && !printed.equals(OLD));
    await assertAllOpenWith(printed);
    assert.deepEqual(await readdir(dataDir), []);
    assert.equal(result.key_file, null);
    assert.match(result.next_steps.join('\n'), /Set APP_KEY to the new key printed above/);
    const text = formatResult('key:rotate', result, false);
    assert.ok(text.includes(`New APP_KEY (shown once; store it now):\n  ${result.new_key}`));
    assert.ok(!text.includes(formatAppKey(OLD)));
  });

  describe('PostgreSQL', () => {
    // Never connected to: the rotation gets the test's store through openDatabase.
    const pgEnv = (dataDir: string) => ({
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      DATA_DIR: dataDir,
    });

    test('finishing a rollover: APP_KEY is the new key, APP_KEY_PREVIOUS the old; no files, no key printed', async () => {
      const dataDir = join(await tempDir(), 'absent');
      const [first] = sourceIds();
      await sealAll((id) => (id === first ? NEW : OLD));
      const config = loadConfig({
        ...pgEnv(dataDir),
        APP_KEY: formatAppKey(NEW),
        APP_KEY_PREVIOUS: formatAppKey(OLD),
      });
      assert.deepEqual(config.appKeyPrevious, OLD);
      const result = await rotate(config);
      assert.deepEqual(
        [result.store, result.resealed, result.already_current, result.new_key, result.key_file],
        ['postgres', 2, 1, null, null],
      );
      await assertAllOpenWith(NEW);
      assert.equal(existsSync(dataDir), false);
      assert.match(result.next_steps.join('\n'), /Remove APP_KEY_PREVIOUS/);
      // Run again: idempotent.
      assert.equal((await rotate(config)).resealed, 0);
    });

    test('one step from APP_KEY: prints the generated key and the rollout steps', async () => {
      const dataDir = join(await tempDir(), 'absent');
      await sealAll(OLD);
      const result = await rotate(loadConfig({ ...pgEnv(dataDir), APP_KEY: formatAppKey(OLD) }));
      const printed = decodeAppKey(result.new_key ?? '');
      assert.ok(printed);
      await assertAllOpenWith(printed);
      assert.equal(existsSync(dataDir), false);
      assert.equal(result.next_steps.length, 3);
      assert.match(result.next_steps[0] ?? '', /APP_KEY_PREVIOUS to the old APP_KEY/);
      const given = await rotate(loadConfig({ ...pgEnv(dataDir), APP_KEY: result.new_key ?? '' }), {
        newKey: formatAppKey(NEW),
      });
      assert.equal(given.new_key, null, 'a key the operator gave is not echoed');
      await assertAllOpenWith(NEW);
    });
  });
});
