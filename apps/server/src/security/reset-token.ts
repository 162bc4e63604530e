import { purposeTokenKey, signPurposeToken, verifyPurposeToken } from './purpose-token.js';

/** A password-reset token is valid this long from issue (contract, Limits: 60 min). */
export const RESET_TOKEN_TTL_SECONDS = 60 * 60;
const AUDIENCE = 'password-reset';

/** The HS256 key of reset tokens: derived from APP_KEY for this purpose alone (HKDF, secret-box). */
export function resetTokenKey(appKey: Buffer): Uint8Array {
  return purposeTokenKey(appKey, 'password-reset-token');
}

/** What a verified reset token names: the user and the token's own id (its single-use row). */
export type ResetTokenClaims = { userId: string; tokenId: string; expiresAt: Date };

/** Signs a reset token (HS256 JWT: sub = user, jti = token row, 60 minutes from `now`). */
export function signResetToken(
  key: Uint8Array,
  claims: { userId: string; tokenId: string },
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  return signPurposeToken(
    key,
    { audience: AUDIENCE, ttlSeconds: RESET_TOKEN_TTL_SECONDS, jti: claims.tokenId, sub: claims.userId },
    now,
  );
}

/**
 * Verifies a reset token (see `verifyPurposeToken`). Any failure is null; whether the token was
 * used is the caller's check (its row).
 */
export async function verifyResetToken(
  key: Uint8Array,
  token: string,
  now: Date,
): Promise<ResetTokenClaims | null> {
  const claims = await verifyPurposeToken(key, token, { audience: AUDIENCE, withSubject: true }, now);
  return claims?.sub ? { userId: claims.sub, tokenId: claims.jti, expiresAt: claims.expiresAt } : null;
}
