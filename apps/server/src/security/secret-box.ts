import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** The format tag every sealed string starts with; a new scheme gets a new tag. */
export const SECRET_BOX_VERSION = 'v1';

const APP_KEY_BYTES = 32;
const IV_BYTES = 12; // the GCM nonce size NIST SP 800-38D recommends
const TAG_BYTES = 16;
const KEY_ID_PATTERN = /^[0-9a-f]{8}$/;
const B64URL_PATTERN = /^[A-Za-z0-9_-]*$/;

/** A key derived from APP_KEY for one purpose, with its public fingerprint. */
export type SecretKey = {
  /** First 8 hex characters of SHA-256 of the derived key: names the key, reveals nothing useful. */
  readonly id: string;
  readonly key: Buffer;
};

/** Options of `sealSecret` / `openSecret`. */
export type SecretBoxOptions = {
  /** Bound into the tag (e.g. the source id), so a sealed value cannot be moved to another record. */
  context?: string;
  /** Injectable for tests; defaults to `crypto.randomBytes`. */
  randomBytes?: (size: number) => Buffer;
};

/** Thrown when a sealed string is malformed, tampered with, or sealed by another key. */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

/**
 * Derives the AES-256-GCM key for `purpose` from the 32-byte APP_KEY with HKDF-SHA256
 * (RFC 5869; no salt: APP_KEY is already uniformly random). Different purposes give unrelated keys.
 */
export function deriveSecretKey(appKey: Buffer, purpose: string): SecretKey {
  if (appKey.length !== APP_KEY_BYTES) throw new SecretBoxError(`APP_KEY must be ${APP_KEY_BYTES} bytes`);
  if (purpose.trim() === '') throw new SecretBoxError('a secret key needs a purpose label');
  const info = `secret-box:${SECRET_BOX_VERSION}:${purpose}`;
  const key = Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), info, 32));
  const id = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return { id, key };
}

/** Encrypts `plaintext` into `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts); a fresh IV each call. */
export function sealSecret(plaintext: string, key: SecretKey, options: SecretBoxOptions = {}): string {
  const iv = (options.randomBytes ?? randomBytes)(IV_BYTES);
  if (iv.length !== IV_BYTES) throw new SecretBoxError(`the IV source must give ${IV_BYTES} bytes`);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(key.id, options.context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [SECRET_BOX_VERSION, key.id, iv, ciphertext, tag]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** Decrypts a string made by `sealSecret`; throws `SecretBoxError` on a wrong key, context or altered data. */
export function openSecret(
  sealed: string,
  key: SecretKey,
  options: Pick<SecretBoxOptions, 'context'> = {},
): string {
  const parts = parseSealed(sealed);
  if (parts.keyId !== key.id) {
    throw new SecretBoxError(
      `cannot open the secret: it was sealed with key ${parts.keyId}, but the current key is ${key.id} (was APP_KEY changed?)`,
    );
  }
  const decipher = createDecipheriv('aes-256-gcm', key.key, parts.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(parts.keyId, options.context));
  decipher.setAuthTag(parts.tag);
  try {
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('cannot open the secret: the data was altered or does not belong here');
  }
}

/** True when `sealed` is a well-formed sealed string whose key fingerprint is `key`'s (for `key:rotate`). */
export function isSealedWith(sealed: string, key: SecretKey): boolean {
  try {
    return parseSealed(sealed).keyId === key.id;
  } catch {
    return false;
  }
}

/** The key fingerprint a sealed string names, or null when it is not a sealed string. */
export function sealedKeyId(sealed: string): string | null {
  try {
    return parseSealed(sealed).keyId;
  } catch {
    return null;
  }
}

type SealedParts = { keyId: string; iv: Buffer; ciphertext: Buffer; tag: Buffer };

function parseSealed(sealed: string): SealedParts {
  const parts = sealed.split('.');
  const [version, keyId, iv, ciphertext, tag] = parts;
  if (parts.length !== 5 || version === undefined || keyId === undefined) {
    throw new SecretBoxError('cannot open the secret: it is not a sealed value');
  }
  if (version !== SECRET_BOX_VERSION) {
    throw new SecretBoxError(`cannot open the secret: unknown format ${version.slice(0, 8)}`);
  }
  if (!KEY_ID_PATTERN.test(keyId)) throw new SecretBoxError('cannot open the secret: malformed key id');
  const decoded = [iv, ciphertext, tag].map((part) => decodePart(part));
  const [ivBytes, ciphertextBytes, tagBytes] = decoded;
  if (ivBytes?.length !== IV_BYTES || tagBytes?.length !== TAG_BYTES || ciphertextBytes === undefined) {
    throw new SecretBoxError('cannot open the secret: malformed IV, ciphertext or tag');
  }
  return { keyId, iv: ivBytes, ciphertext: ciphertextBytes, tag: tagBytes };
}

/** Strict base64url: Node's decoder silently skips stray characters, which would hide tampering. */
function decodePart(part: string | undefined): Buffer | undefined {
  if (part === undefined || !B64URL_PATTERN.test(part)) return undefined;
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}

/** The version and key id are authenticated too, so neither can be swapped without breaking the tag. */
function additionalData(keyId: string, context: string | undefined): Buffer {
  return Buffer.from(`${SECRET_BOX_VERSION}.${keyId}.${context ?? ''}`, 'utf8');
}
