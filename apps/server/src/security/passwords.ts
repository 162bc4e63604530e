import { hash, verify } from '@node-rs/bcrypt';

/** Hashes a password with bcrypt at the configured cost. */
export function hashPassword(password: string, cost: number): Promise<string> {
  // bcrypt silently ignores bytes past 72; refuse them instead of weakening the password.
  return hash(password, { cost, rejectLongPasswords: true });
}

/** Checks a password against a bcrypt hash (constant-time inside bcrypt). */
export function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  return verify(password, passwordHash);
}
