import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Config, ConfigError, decodeAppKey, hasAppKey, type KeyedConfig } from './config.js';

/** The file under DATA_DIR holding the generated master key. */
export const APP_KEY_FILE = 'app.key';

/** Where `key:rotate` keeps the key it replaced (mode 0600). */
export const APP_KEY_PREVIOUS_FILE = 'app.key.previous';

/** Where `key:rotate` stages the new key before its transaction, so a crash cannot lose it. */
export const APP_KEY_NEXT_FILE = 'app.key.next';

/** Writes a 32-byte key in the `base64:<…>` form `APP_KEY` accepts. */
export function formatAppKey(key: Buffer): string {
  return `base64:${key.toString('base64')}`;
}

/** Produces a fresh key in the `base64:<…>` form `APP_KEY` accepts. */
export function generateAppKey(random: (size: number) => Buffer = randomBytes): string {
  return `base64:${random(32).toString('base64')}`;
}

/**
 * Returns a config that has an app key: every process that serves, works jobs or touches sealed
 * secrets starts from its answer. On the embedded store a missing `APP_KEY` is read from
 * `DATA_DIR/app.key`, or generated there (mode 0600) on first start with a warning; on
 * PostgreSQL it must be set (every instance shares it), which `loadConfig` already demands.
 */
export async function ensureAppKey(
  config: Config,
  warn: (message: string) => void,
  random: (size: number) => Buffer = randomBytes,
): Promise<KeyedConfig> {
  if (hasAppKey(config)) return config;
  if (config.database.mode === 'postgres') {
    throw new ConfigError(
      'Invalid configuration:\n  - APP_KEY: required when DATABASE_URL is set, so every instance shares it; ' +
        'create one with `npm run cli -- key:generate`',
    );
  }
  const file = join(config.dataDir, APP_KEY_FILE);
  let stored: string | null = null;
  try {
    stored = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if (!hasCode(error, 'ENOENT')) throw error;
  }
  if (stored !== null) {
    const key = decodeAppKey(stored);
    if (!key) throw new ConfigError(`Invalid configuration:\n  - APP_KEY: ${file} does not hold a valid key`);
    return Object.freeze({ ...config, appKey: key });
  }
  const generated = random(32);
  if (generated.length !== 32) throw new Error('APP_KEY generation needs 32 random bytes');
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: a concurrent first start (or the CLI) sees no file
  // or a whole one, and the one that loses the race uses the winner's key.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(partial, `${formatAppKey(generated)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(partial, file);
  } catch (error) {
    if (hasCode(error, 'EEXIST')) return ensureAppKey(config, warn, random);
    throw error;
  } finally {
    await unlink(partial).catch(() => {});
  }
  warn(
    `APP_KEY was not set: generated a new one into ${file}. Back this file up: encrypted secrets ` +
      'cannot be read without it. Set APP_KEY to use your own.',
  );
  return Object.freeze({ ...config, appKey: generated });
}

/**
 * Reads the key an interrupted `key:rotate` staged in `DATA_DIR/app.key.next`, or null when
 * there is none. Its secrets may already be sealed with it, so the next rotation resumes with it.
 */
export async function readStagedAppKey(dataDir: string): Promise<Buffer | null> {
  const file = join(dataDir, APP_KEY_NEXT_FILE);
  let stored: string;
  try {
    stored = await readFile(file, 'utf8');
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return null;
    throw error;
  }
  const key = decodeAppKey(stored.trim());
  if (!key) throw new ConfigError(`Invalid configuration:\n  - APP_KEY: ${file} does not hold a valid key`);
  return key;
}

/** Stages the new key as `DATA_DIR/app.key.next` (atomically, mode 0600) before a rotation commits. */
export async function stageAppKey(dataDir: string, key: Buffer): Promise<void> {
  await writeKeyFile(join(dataDir, APP_KEY_NEXT_FILE), key);
}

/** Drops the staged key of a rotation that changed nothing. */
export async function discardStagedAppKey(dataDir: string): Promise<void> {
  await unlink(join(dataDir, APP_KEY_NEXT_FILE)).catch((error: unknown) => {
    if (!hasCode(error, 'ENOENT')) throw error;
  });
}

/**
 * After a rotation committed: keeps `oldKey` as `app.key.previous`, then renames the staged
 * `app.key.next` over `app.key`. Each step is a rename, so every file is whole at every moment.
 */
export async function commitStagedAppKey(dataDir: string, oldKey: Buffer): Promise<void> {
  await writeKeyFile(join(dataDir, APP_KEY_PREVIOUS_FILE), oldKey);
  await rename(join(dataDir, APP_KEY_NEXT_FILE), join(dataDir, APP_KEY_FILE));
  await syncDirectory(dataDir);
}

/** Writes a key file atomically: a 0600 temp file, flushed, then renamed into place. */
async function writeKeyFile(file: string, key: Buffer): Promise<void> {
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(partial, 'wx', 0o600);
  try {
    await handle.writeFile(`${formatAppKey(key)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(partial, file);
  } catch (error) {
    await unlink(partial).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(file));
}

/** Flushes a directory so a rename survives a power loss (POSIX leaves that to fsync of the directory). */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => null);
  if (!handle) return;
  await handle.sync().catch(() => {});
  await handle.close();
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
