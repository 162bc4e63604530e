import { createHash, webcrypto } from 'node:crypto';
import {
  type TWidgetTokenClaims,
  WIDGET_TOKEN_ISSUER,
  WIDGET_TOKEN_TTL_SECONDS,
  ZWidgetTokenClaims,
} from '@service/contract';
import { jwtVerify, SignJWT } from 'jose';

/** A signing key for widget tokens: SHA-256 of WIDGET_TOKEN_SECRET (or of APP_KEY when unset). */
export type WidgetTokenKey = Uint8Array;

/** Derives the HS256 key from the configured secret (contract: "SHA-256 hashing a configured secret"). */
export function widgetTokenKey(options: {
  widgetTokenSecret: string | undefined;
  appKey: Buffer;
}): WidgetTokenKey {
  const secret = options.widgetTokenSecret ?? options.appKey.toString('base64');
  return new Uint8Array(createHash('sha256').update(secret, 'utf8').digest());
}

// jose re-imports a raw key on every call; importing it once per key keeps issuing cheap.
const cryptoKeys = new WeakMap<WidgetTokenKey, Promise<webcrypto.CryptoKey>>();

function cryptoKeyOf(key: WidgetTokenKey): Promise<webcrypto.CryptoKey> {
  let imported = cryptoKeys.get(key);
  if (!imported) {
    imported = webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    cryptoKeys.set(key, imported);
  }
  return imported;
}

/** A freshly issued widget token and when it expires. */
export type IssuedWidgetToken = { token: string; expiresAt: Date };

/** Issues an HS256 widget token for one agent, visitor and conversation, valid 60 minutes. */
export async function issueWidgetToken(
  key: WidgetTokenKey,
  claims: TWidgetTokenClaims,
  now: Date = new Date(),
): Promise<IssuedWidgetToken> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + WIDGET_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(WIDGET_TOKEN_ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(await cryptoKeyOf(key));
  return { token, expiresAt: new Date(exp * 1000) };
}

/**
 * Verifies a widget token: algorithm pinned to HS256 (so `none` and every other algorithm
 * fail), signature, expiry (no leeway) and issuer, then the claims' shape. Any failure is
 * null: the caller answers 401 without saying why.
 */
export async function verifyWidgetToken(
  key: WidgetTokenKey,
  token: string,
  now: Date = new Date(),
): Promise<TWidgetTokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, await cryptoKeyOf(key), {
      algorithms: ['HS256'],
      issuer: WIDGET_TOKEN_ISSUER,
      currentDate: now,
      requiredClaims: ['exp', 'iat'],
    });
    const claims = ZWidgetTokenClaims.safeParse(payload);
    return claims.success ? claims.data : null;
  } catch {
    return null;
  }
}
