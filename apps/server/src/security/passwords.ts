import { hash, verify } from '@node-rs/bcrypt';

/** Hashes a password with bcrypt at the configured cost. */
export function hashPassword(password: string, cost: number): Promise<string> {
  // bcrypt silently ignores bytes past 72; refuse them instead of weakening the password.
  return hash(password, { cost, rejectLongPasswords: true });
}

/** bcrypt reads at most this many bytes of a password. */
const BCRYPT_MAX_BYTES = 72;

/**
 * Checks a password against a bcrypt hash (constant-time inside bcrypt). A password longer than
 * bcrypt reads never matches: none could be set (see hashPassword), and bcrypt alone would
 * accept any text whose first 72 bytes are the password.
 */
export async function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  const matches = await verify(password, passwordHash);
  return matches && Buffer.byteLength(password, 'utf8') <= BCRYPT_MAX_BYTES;
}
