import { jwtVerify, SignJWT } from 'jose';
import { deriveSecretKey } from './secret-box.js';

/** A password-reset token is valid this long from issue (contract, Limits: 60 min). */
export const RESET_TOKEN_TTL_SECONDS = 60 * 60;
const ISSUER = 'chat-agent-service';
const AUDIENCE = 'password-reset';

/** The HS256 key of reset tokens: derived from APP_KEY for this purpose alone (HKDF, secret-box). */
export function resetTokenKey(appKey: Buffer): Uint8Array {
  return new Uint8Array(deriveSecretKey(appKey, 'password-reset-token').key);
}

/** What a verified reset token names: the user and the token's own id (its single-use row). */
export type ResetTokenClaims = { userId: string; tokenId: string; expiresAt: Date };

/** Signs a reset token (HS256 JWT: sub = user, jti = token row, 60 minutes from `now`). */
export async function signResetToken(
  key: Uint8Array,
  claims: { userId: string; tokenId: string },
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + RESET_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.userId)
    .setJti(claims.tokenId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key);
  return { token, expiresAt: new Date(exp * 1000) };
}

/**
 * Verifies a reset token: HS256 only (so `none` and every other algorithm fail), signature,
 * issuer, audience and expiry at `now` with no leeway (expired from the `exp` second on). Any
 * failure is null; whether the token was used is the caller's check (its row).
 */
export async function verifyResetToken(
  key: Uint8Array,
  token: string,
  now: Date,
): Promise<ResetTokenClaims | null> {
  if (token.length > 2000) return null;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
      requiredClaims: ['exp', 'iat', 'sub', 'jti'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number')
      return null;
    return { userId: payload.sub, tokenId: payload.jti, expiresAt: new Date(payload.exp * 1000) };
  } catch {
    return null;
  }
}
