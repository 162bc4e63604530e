import { jwtVerify, SignJWT } from 'jose';
import { deriveSecretKey } from './secret-box.js';

/**
 * Single-purpose signed tokens (a password reset, a workspace invite): HS256 JWTs under a key
 * derived from APP_KEY for that purpose alone, with the purpose as audience, so a token of one
 * purpose never passes as another's. Whether a token is still usable (not used, not revoked) is
 * its caller's check, on the row the token's `jti` names.
 */
const ISSUER = 'chat-agent-service';
/** Longer than any token this service signs: anything longer is refused unread. */
const MAX_TOKEN_LENGTH = 2000;

/** The HS256 key of one purpose's tokens: derived from APP_KEY with the purpose's label (HKDF). */
export function purposeTokenKey(appKey: Buffer, label: string): Uint8Array {
  return new Uint8Array(deriveSecretKey(appKey, label).key);
}

/** Signs a token for `audience`: jti (and sub when given), issued at `now`, expiring `ttlSeconds` later. */
export async function signPurposeToken(
  key: Uint8Array,
  claims: { audience: string; ttlSeconds: number; jti: string; sub?: string },
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + claims.ttlSeconds;
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(claims.audience)
    .setJti(claims.jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp);
  if (claims.sub !== undefined) jwt.setSubject(claims.sub);
  return { token: await jwt.sign(key), expiresAt: new Date(exp * 1000) };
}

/**
 * Verifies a token for `audience`: HS256 only (so `none` and every other algorithm fail),
 * signature, issuer, audience and expiry at `now` with no leeway (expired from the `exp` second
 * on), and the claims required. Its jti, sub (when required) and expiry; null for any failure.
 */
export async function verifyPurposeToken(
  key: Uint8Array,
  token: string,
  options: { audience: string; withSubject: boolean },
  now: Date,
): Promise<{ jti: string; sub: string | null; expiresAt: Date } | null> {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: options.audience,
      currentDate: now,
      requiredClaims: options.withSubject ? ['exp', 'iat', 'sub', 'jti'] : ['exp', 'iat', 'jti'],
    });
    if (typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return null;
    const sub = typeof payload.sub === 'string' ? payload.sub : null;
    if (options.withSubject && sub === null) return null;
    return { jti: payload.jti, sub, expiresAt: new Date(payload.exp * 1000) };
  } catch {
    return null;
  }
}
