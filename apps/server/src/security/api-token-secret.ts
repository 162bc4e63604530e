import { randomBytes } from 'node:crypto';
import { API_TOKEN_PREFIX } from '@service/contract';
import { sha256Hex } from './hashing.js';

/** How many characters of the plaintext are kept to recognise a token in lists. */
const VISIBLE_PREFIX_LENGTH = API_TOKEN_PREFIX.length + 8;

/** A freshly minted API token: the plaintext (shown once) and what is stored instead. */
export type MintedToken = { plaintext: string; hash: string; prefix: string };

/** Mints `svc_` + 40 base62-ish characters (240 bits) and its SHA-256 hash. */
export function mintApiToken(random: (size: number) => Buffer = randomBytes): MintedToken {
  const plaintext = `${API_TOKEN_PREFIX}${random(30).toString('base64url')}`;
  return { plaintext, hash: hashApiToken(plaintext), prefix: plaintext.slice(0, VISIBLE_PREFIX_LENGTH) };
}

/** The stored form of a token: hex SHA-256 of the plaintext. */
export function hashApiToken(plaintext: string): string {
  return sha256Hex(plaintext);
}

/** A new `shopper_signing_secret`: 32 random bytes, hex. */
export function mintSigningSecret(random: (size: number) => Buffer = randomBytes): string {
  return random(32).toString('hex');
}
