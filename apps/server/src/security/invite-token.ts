import { purposeTokenKey, signPurposeToken, verifyPurposeToken } from './purpose-token.js';

/** A workspace invite is valid this long from issue: 7 days. */
export const INVITE_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;
const AUDIENCE = 'workspace-invite';

/** The HS256 key of invite tokens: derived from APP_KEY for this purpose alone (HKDF, secret-box). */
export function inviteTokenKey(appKey: Buffer): Uint8Array {
  return purposeTokenKey(appKey, 'workspace-invite-token');
}

/** Signs an invite token (HS256 JWT: jti = the invite row, 7 days from `now`). */
export function signInviteToken(
  key: Uint8Array,
  inviteId: string,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  return signPurposeToken(
    key,
    { audience: AUDIENCE, ttlSeconds: INVITE_TOKEN_TTL_SECONDS, jti: inviteId },
    now,
  );
}

/**
 * Verifies an invite token (see `verifyPurposeToken`). The invite's id, or null for any failure;
 * whether the invite is still open is the caller's check (its row, and the token's hash on it).
 */
export async function verifyInviteToken(key: Uint8Array, token: string, now: Date): Promise<string | null> {
  const claims = await verifyPurposeToken(key, token, { audience: AUDIENCE, withSubject: false }, now);
  return claims?.jti ?? null;
}
