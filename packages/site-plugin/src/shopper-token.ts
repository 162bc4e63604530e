import { SignJWT } from 'jose';

// The shopper token: how a site tells the widget (and through it the service) which logged-in
// customer is chatting, so order lookups can be answered. It is a compact HS256 JWS keyed by the
// token's shopper_signing_secret, with claims {wp_user_id, email_hash, iat} (contract
// `ZShopperClaims`); the service accepts it for 15 minutes after `iat`. Web Crypto only.

/** The first-party cookie the widget writes with the conversation id (read on cart load). */
export const CONVERSATION_COOKIE = 'svc_conversation';

/** Who the logged-in shopper is, as the site knows them. */
export type ShopperIdentity = { wp_user_id: number; email: string };

/** Options of {@link createShopperToken}; `now` is injectable for tests. */
export type CreateShopperTokenOptions = { secret: string; now?: () => Date };

const encoder = new TextEncoder();

/** The SHA-256 hex of the trimmed, lower-cased email: the `email_hash` claim. */
export async function emailHash(email: string): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('Web Crypto (globalThis.crypto.subtle) is not available in this runtime.');
  const digest = new Uint8Array(await subtle.digest('SHA-256', encoder.encode(email.trim().toLowerCase())));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Signs a shopper token for a logged-in customer: a compact HS256 JWS keyed by the UTF-8 bytes
 * of `secret` (the stored shopper_signing_secret), claims `{wp_user_id, email_hash, iat}`.
 * Put it only in uncached, logged-in responses (`Cache-Control: private, no-store`).
 */
export async function createShopperToken(
  claims: ShopperIdentity,
  options: CreateShopperTokenOptions,
): Promise<string> {
  const userId = claims.wp_user_id;
  if (!Number.isSafeInteger(userId) || userId <= 0) {
    throw new Error('createShopperToken: wp_user_id must be a positive integer.');
  }
  if (typeof claims.email !== 'string' || claims.email.trim() === '') {
    throw new Error('createShopperToken: email is empty.');
  }
  if (typeof options.secret !== 'string' || options.secret === '') {
    throw new Error('createShopperToken: the signing secret is empty; run the handshake first.');
  }
  const now = options.now ? options.now() : new Date();
  const iat = Math.floor(now.getTime() / 1000);
  if (!Number.isSafeInteger(iat) || iat <= 0)
    throw new Error('createShopperToken: the clock gave an invalid time.');
  return new SignJWT({ wp_user_id: userId, email_hash: await emailHash(claims.email) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(iat)
    .sign(encoder.encode(options.secret));
}
