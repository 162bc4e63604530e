import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SETUP_CODE_PATTERN } from '@service/contract';

/** The file in DATA_DIR that holds the one-time setup code while the installation has no user. */
export const SETUP_CODE_FILE = 'setup-code';

/** 32 letters and digits without 0/O and 1/I, so a code read off a screen is typed right. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A new code: 16 characters of {@link ALPHABET} (80 random bits), in four groups of four. */
export function newSetupCode(random: (size: number) => Buffer = randomBytes): string {
  const bytes = random(16);
  if (bytes.length !== 16) throw new Error('a setup code needs 16 random bytes');
  // 256 is a multiple of 32: each byte's low five bits pick a character uniformly.
  const chars = [...bytes].map((byte) => ALPHABET[byte & 31]).join('');
  return chars.match(/.{4}/g)?.join('-') ?? chars;
}

/** The setup code in `dataDir`, or null when there is none (or the file holds something else). */
export async function readSetupCode(dataDir: string): Promise<string | null> {
  try {
    const code = (await readFile(join(dataDir, SETUP_CODE_FILE), 'utf8')).trim();
    return SETUP_CODE_PATTERN.test(code) ? code : null;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * The installation's setup code: the one already in `dataDir` (a restart keeps it), else a new
 * one written there readable by the owner only (0600). Written aside and linked into place, so
 * two processes starting together end with one code.
 */
export async function ensureSetupCode(
  dataDir: string,
  random: (size: number) => Buffer = randomBytes,
): Promise<string> {
  const existing = await readSetupCode(dataDir);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, SETUP_CODE_FILE);
  // A file that holds no valid code (hand-edited, truncated) is replaced.
  await unlink(file).catch((error: unknown) => {
    if (!isMissing(error)) throw error;
  });
  const code = newSetupCode(random);
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(partial, `${code}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(partial, file);
  } catch (error) {
    if (hasCode(error, 'EEXIST')) return (await readSetupCode(dataDir)) ?? ensureSetupCode(dataDir, random);
    throw error;
  } finally {
    await unlink(partial).catch(() => {});
  }
  return code;
}

/**
 * Whether `given` is the setup code in `dataDir`. Case, spaces and dashes do not matter; the
 * comparison takes the same time whatever the input (digests of equal length, compared in
 * constant time). No code on file: false.
 */
export async function isSetupCode(dataDir: string, given: string): Promise<boolean> {
  const stored = await readSetupCode(dataDir);
  if (!stored) return false;
  const digest = (code: string) =>
    createHash('sha256').update(code.toUpperCase().replace(/[\s-]/g, '')).digest();
  return timingSafeEqual(digest(stored), digest(given));
}

/** Removes the setup code once setup is done (a second removal is harmless). */
export async function deleteSetupCode(dataDir: string): Promise<void> {
  await unlink(join(dataDir, SETUP_CODE_FILE)).catch((error: unknown) => {
    if (!isMissing(error)) throw error;
  });
}

function isMissing(error: unknown): boolean {
  return hasCode(error, 'ENOENT');
}

function hasCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
