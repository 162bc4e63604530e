import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';

/** The lock directory proper-lockfile keeps fresh while a process owns DATA_DIR. */
export const LOCK_NAME = 'service.lock';

/** Beside the lock directory: which process holds it (pid, host, boot), so a dead owner is seen at once. */
export const LOCK_OWNER_NAME = 'service.lock.owner';

/** How long an unrefreshed lock of an owner that cannot be checked (another host) stays valid. */
const STALE_MS = 30_000;

/** Raised when another process already holds DATA_DIR. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(readonly dataDir: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another process (the embedded store allows one process). ` +
        'Stop the other service first, use its CLI socket (`npm run cli` does this for you), or set ' +
        'DATABASE_URL to run several processes on PostgreSQL. The lock of a process that died on this ' +
        'machine is taken over at once; one held from another machine expires 30 seconds after its owner stops.',
    );
  }
}

/** Who holds the lock, as written beside it. */
type LockOwner = { pid: number; host: string; boot: string | null };

/** This boot of the kernel (Linux): a pid recorded before a reboot names no live process after it. */
function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function currentOwner(): LockOwner {
  return { pid: process.pid, host: hostname(), boot: bootId() };
}

async function readOwner(dataDir: string): Promise<LockOwner | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(dataDir, LOCK_OWNER_NAME), 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { pid, host, boot } = parsed as Record<string, unknown>;
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0 || typeof host !== 'string') return null;
    return { pid: pid as number, host, boot: typeof boot === 'string' ? boot : null };
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid exists but belongs to another user, so it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the recorded owner is certainly gone: it ran on this host, and either the machine has
 * rebooted since or no process has its pid. Unknown owners (no record, another host) are not dead:
 * their lock expires by age instead.
 */
function ownerIsDead(owner: LockOwner | null): boolean {
  if (!owner || owner.host !== hostname() || owner.pid === process.pid) return false;
  const boot = bootId();
  if (owner.boot && boot && owner.boot !== boot) return true;
  return !processAlive(owner.pid);
}

async function takeLock(dataDir: string, onCompromised: (error: Error) => void) {
  return lockfile.lock(dataDir, {
    lockfilePath: join(dataDir, LOCK_NAME),
    // A crashed owner stops refreshing the lock; after `stale` ms another process may take it.
    stale: STALE_MS,
    update: 5_000,
    retries: 0,
    realpath: false,
    onCompromised,
  });
}

const isLocked = (error: unknown) =>
  error instanceof Error && 'code' in error && (error as NodeJS.ErrnoException).code === 'ELOCKED';

/**
 * Takes the exclusive lock on DATA_DIR (creating the directory, mode 0700). Returns the
 * release function. `onCompromised` runs if the lock is taken away while held, which means
 * two processes may be writing the store: the caller must stop at once.
 *
 * A lock whose owner died on this machine (kill -9, crash, power loss) is taken over at once
 * instead of after the 30 s expiry, so a restart right after a crash is not refused.
 */
export async function lockDataDir(
  dataDir: string,
  onCompromised: (error: Error) => void,
): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  let release: () => Promise<void>;
  try {
    release = await takeLock(dataDir, onCompromised);
  } catch (error) {
    if (!isLocked(error)) throw error;
    if (!ownerIsDead(await readOwner(dataDir))) throw new DataDirLockedError(dataDir);
    // The owner is gone: remove its lock directory and try once more. Should two processes race
    // here, only one creates the directory; the other is refused as locked.
    await rmdir(join(dataDir, LOCK_NAME)).catch(() => {});
    try {
      release = await takeLock(dataDir, onCompromised);
    } catch (retryError) {
      if (isLocked(retryError)) throw new DataDirLockedError(dataDir);
      throw retryError;
    }
  }
  await writeFile(join(dataDir, LOCK_OWNER_NAME), `${JSON.stringify(currentOwner())}\n`, { mode: 0o600 });
  return async () => {
    await rm(join(dataDir, LOCK_OWNER_NAME), { force: true });
    await release();
  };
}

/** Whether DATA_DIR is currently locked by a live process. */
export async function isDataDirLocked(dataDir: string): Promise<boolean> {
  try {
    const held = await lockfile.check(dataDir, {
      lockfilePath: join(dataDir, LOCK_NAME),
      stale: STALE_MS,
      realpath: false,
    });
    return held && !ownerIsDead(await readOwner(dataDir));
  } catch {
    return false;
  }
}
