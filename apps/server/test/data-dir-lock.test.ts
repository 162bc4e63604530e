import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  DataDirLockedError,
  isDataDirLocked,
  LOCK_NAME,
  LOCK_OWNER_NAME,
  lockDataDir,
} from '../src/db/data-dir-lock.js';

const noCompromise = (error: Error) => assert.fail(`lock compromised: ${error.message}`);

/** A pid that named a process of this machine a moment ago and names none now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(child.pid);
  return child.pid;
}

/** A fresh lock directory (as a live owner keeps it) with the given owner record beside it. */
async function freshLockOwnedBy(dataDir: string, owner: unknown): Promise<void> {
  await mkdir(join(dataDir, LOCK_NAME), { recursive: true });
  await writeFile(join(dataDir, LOCK_OWNER_NAME), typeof owner === 'string' ? owner : JSON.stringify(owner));
}

const bootId = async () => (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();

async function assertRefused(dataDir: string): Promise<void> {
  assert.equal(await isDataDirLocked(dataDir), true);
  await assert.rejects(lockDataDir(dataDir, noCompromise), DataDirLockedError);
  assert.ok(existsSync(join(dataDir, LOCK_NAME)), 'a refused attempt leaves the lock in place');
}

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

  test('records its owner (pid, host, boot) beside the lock and removes the record on release', async () => {
    const dataDir = join(root, 'owner');
    const release = await lockDataDir(dataDir, noCompromise);
    try {
      const owner = JSON.parse(await readFile(join(dataDir, LOCK_OWNER_NAME), 'utf8'));
      assert.deepEqual(owner, { pid: process.pid, host: hostname(), boot: await bootId() });
      assert.equal((await stat(join(dataDir, LOCK_OWNER_NAME))).mode & 0o777, 0o600);
    } finally {
      await release();
    }
    assert.equal(existsSync(join(dataDir, LOCK_OWNER_NAME)), false);
  });

  test('a fresh lock whose owner died on this machine is taken over at once', async () => {
    const dataDir = join(root, 'killed');
    await freshLockOwnedBy(dataDir, { pid: await deadPid(), host: hostname(), boot: await bootId() });
    assert.equal(await isDataDirLocked(dataDir), false, 'a dead owner holds nothing');
    const release = await lockDataDir(dataDir, noCompromise);
    try {
      assert.equal(await isDataDirLocked(dataDir), true);
      const owner = JSON.parse(await readFile(join(dataDir, LOCK_OWNER_NAME), 'utf8'));
      assert.equal(owner.pid, process.pid);
    } finally {
      await release();
    }
  });

  test('a fresh lock recorded before a reboot is taken over at once, even if its pid is alive now', async () => {
    const dataDir = join(root, 'rebooted');
    await freshLockOwnedBy(dataDir, { pid: process.ppid, host: hostname(), boot: 'an-earlier-boot' });
    const release = await lockDataDir(dataDir, noCompromise);
    await release();
  });

  test('a fresh lock of a live process, another host or an unreadable record is refused', async () => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      assert.ok(sleeper.pid);
      const live = join(root, 'live');
      await freshLockOwnedBy(live, { pid: sleeper.pid, host: hostname(), boot: await bootId() });
      await assertRefused(live);
      const elsewhere = join(root, 'elsewhere');
      await freshLockOwnedBy(elsewhere, { pid: await deadPid(), host: `not-${hostname()}`, boot: null });
      await assertRefused(elsewhere);
      for (const [name, record] of [
        ['garbage', '{not json'],
        ['no-pid', { host: hostname() }],
        ['bad-pid', { pid: -1, host: hostname() }],
        ['zero-pid', { pid: 0, host: hostname() }],
        ['string-pid', { pid: '1', host: hostname() }],
      ] as const) {
        const dataDir = join(root, name);
        await freshLockOwnedBy(dataDir, record);
        await assertRefused(dataDir);
      }
    } finally {
      sleeper.kill('SIGKILL');
    }
  });
});
