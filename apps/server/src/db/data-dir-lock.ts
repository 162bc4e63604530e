import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';

/** The lock directory proper-lockfile keeps fresh while a process owns DATA_DIR. */
export const LOCK_NAME = 'service.lock';

/** Raised when another process already holds DATA_DIR. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(readonly dataDir: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another process (the embedded store allows one process). ` +
        'Stop the other service first, use its CLI socket (`npm run cli` does this for you), or set ' +
        'DATABASE_URL to run several processes on PostgreSQL. A process that crashed frees the lock ' +
        'after 30 seconds.',
    );
  }
}

/**
 * Takes the exclusive lock on DATA_DIR (creating the directory, mode 0700). Returns the
 * release function. `onCompromised` runs if the lock is taken away while held, which means
 * two processes may be writing the store: the caller must stop at once.
 */
export async function lockDataDir(
  dataDir: string,
  onCompromised: (error: Error) => void,
): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: join(dataDir, LOCK_NAME),
      // A crashed owner stops refreshing the lock; after `stale` ms another process may take it.
      stale: 30_000,
      update: 5_000,
      retries: 0,
      realpath: false,
      onCompromised,
    });
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ELOCKED')
      throw new DataDirLockedError(dataDir);
    throw error;
  }
}

/** Whether DATA_DIR is currently locked by a live process. */
export async function isDataDirLocked(dataDir: string): Promise<boolean> {
  try {
    return await lockfile.check(dataDir, {
      lockfilePath: join(dataDir, LOCK_NAME),
      stale: 30_000,
      realpath: false,
    });
  } catch {
    return false;
  }
}
