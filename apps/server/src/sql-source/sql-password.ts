import { deriveSecretKey, openSecret, sealSecret } from '../security/secret-box.js';

/** The HKDF purpose label of the key that seals SQL source passwords. */
const PURPOSE = 'sql-source-password';

/** Seals an SQL source's password with APP_KEY, bound to the source (it opens for no other). */
export function sealSqlPassword(password: string, appKey: Buffer, sourceId: string): string {
  return sealSecret(password, deriveSecretKey(appKey, PURPOSE), { context: sourceId });
}

/** Opens a sealed SQL source password; throws when APP_KEY changed or the value was altered. */
export function openSqlPassword(sealed: string, appKey: Buffer, sourceId: string): string {
  return openSecret(sealed, deriveSecretKey(appKey, PURPOSE), { context: sourceId });
}
