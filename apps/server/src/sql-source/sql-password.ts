import { deriveSecretKey, sealSecret } from '../security/secret-box.js';
import type { SecretKeyring } from '../security/secret-keyring.js';

/** The HKDF purpose label of the key that seals SQL source passwords. */
export const SQL_PASSWORD_PURPOSE = 'sql-source-password';

/** Seals an SQL source's password with APP_KEY, bound to the source (it opens for no other). */
export function sealSqlPassword(password: string, appKey: Buffer, sourceId: string): string {
  return sealSecret(password, deriveSecretKey(appKey, SQL_PASSWORD_PURPOSE), { context: sourceId });
}

/**
 * Opens a sealed SQL source password with APP_KEY or, mid-rotation, APP_KEY_PREVIOUS; throws
 * when neither key sealed it or the value was altered.
 */
export function openSqlPassword(sealed: string, keys: SecretKeyring, sourceId: string): string {
  return keys.open(sealed, SQL_PASSWORD_PURPOSE, sourceId);
}
