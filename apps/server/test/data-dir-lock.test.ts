import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DataDirLockedError, isDataDirLocked, LOCK_NAME, lockDataDir } from '../src/db/data-dir-lock.js';

const noCompromise = (error: Error) => assert.fail(`lock compromised: ${error.message}`);

describe('DATA_DIR lock', () => {
  let root: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-lock-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('creates DATA_DIR (0700) and holds it exclusively until released', async () => {
    const dataDir = join(root, 'nested', 'data');
    assert.equal(await isDataDirLocked(dataDir), false);
    const release = await lockDataDir(dataDir, noCompromise);
    try {
      assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
      assert.ok(existsSync(join(dataDir, LOCK_NAME)));
      assert.equal(await isDataDirLocked(dataDir), true);
      await assert.rejects(lockDataDir(dataDir, noCompromise), (error: unknown) => {
        assert.ok(error instanceof DataDirLockedError, String(error));
        assert.equal(error.dataDir, dataDir);
        assert.match(error.message, /is in use by another process/);
        assert.ok(error.message.includes(dataDir));
        return true;
      });
      assert.equal(await isDataDirLocked(dataDir), true, 'a refused attempt leaves the lock held');
    } finally {
      await release();
    }
    assert.equal(await isDataDirLocked(dataDir), false);
    assert.equal(existsSync(join(dataDir, LOCK_NAME)), false);
  });

  test('can be taken again after release', async () => {
    const dataDir = join(root, 'again');
    const first = await lockDataDir(dataDir, noCompromise);
    await first();
    const second = await lockDataDir(dataDir, noCompromise);
    try {
      assert.equal(await isDataDirLocked(dataDir), true);
    } finally {
      await second();
    }
    assert.equal(await isDataDirLocked(dataDir), false);
  });

  test('locks of different directories are independent', async () => {
    const one = await lockDataDir(join(root, 'one'), noCompromise);
    try {
      const two = await lockDataDir(join(root, 'two'), noCompromise);
      await two();
      assert.equal(await isDataDirLocked(join(root, 'one')), true);
    } finally {
      await one();
    }
  });

  test('a lock left by a crashed process is stale after 30 s and can be taken over', async () => {
    const dataDir = join(root, 'crashed');
    await mkdir(join(dataDir, LOCK_NAME), { recursive: true });
    assert.equal(await isDataDirLocked(dataDir), true, 'a fresh lock directory counts as held');
    const past = new Date(Date.now() - 60_000);
    await utimes(join(dataDir, LOCK_NAME), past, past);
    assert.equal(await isDataDirLocked(dataDir), false);
    const release = await lockDataDir(dataDir, noCompromise);
    try {
      assert.equal(await isDataDirLocked(dataDir), true);
    } finally {
      await release();
    }
  });
});
