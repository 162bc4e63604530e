import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Config, ConfigError, decodeAppKey } from './config.js';

/** The file under DATA_DIR holding the generated master key. */
export const APP_KEY_FILE = 'app.key';

/** Produces a fresh key in the `base64:<…>` form `APP_KEY` accepts. */
export function generateAppKey(random: (size: number) => Buffer = randomBytes): string {
  return `base64:${random(32).toString('base64')}`;
}

/**
 * Returns a config that has an app key. On the embedded store a missing `APP_KEY` is read
 * from `DATA_DIR/app.key`, or generated there (mode 0600) on first start with a warning.
 */
export async function ensureAppKey(
  config: Config,
  warn: (message: string) => void,
  random?: (size: number) => Buffer,
): Promise<Config> {
  if (config.appKey) return config;
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
  const generated = generateAppKey(random);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: a concurrent first start (or the CLI) sees no file
  // or a whole one, and the one that loses the race uses the winner's key.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(partial, `${generated}\n`, { mode: 0o600, flag: 'wx' });
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
  return Object.freeze({ ...config, appKey: decodeAppKey(generated) ?? undefined });
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
