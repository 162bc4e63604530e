import { jwtVerify, SignJWT } from 'jose';
import { deriveSecretKey } from './secret-box.js';

/** A workspace invite is valid this long from issue: 7 days. */
export const INVITE_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;
const ISSUER = 'chat-agent-service';
const AUDIENCE = 'workspace-invite';

/** The HS256 key of invite tokens: derived from APP_KEY for this purpose alone (HKDF, secret-box). */
export function inviteTokenKey(appKey: Buffer): Uint8Array {
  return new Uint8Array(deriveSecretKey(appKey, 'workspace-invite-token').key);
}

/** Signs an invite token (HS256 JWT: jti = the invite row, 7 days from `now`). */
export async function signInviteToken(
  key: Uint8Array,
  inviteId: string,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + INVITE_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setJti(inviteId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key);
  return { token, expiresAt: new Date(exp * 1000) };
}

/**
 * Verifies an invite token: HS256 only, signature, issuer, audience and expiry at `now` with no
 * leeway (expired from the `exp` second on). The invite's id, or null for any failure; whether
 * the invite is still open is the caller's check (its row, and the token's hash on it).
 */
export async function verifyInviteToken(key: Uint8Array, token: string, now: Date): Promise<string | null> {
  if (token.length > 2000) return null;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
      requiredClaims: ['exp', 'iat', 'jti'],
    });
    return typeof payload.jti === 'string' ? payload.jti : null;
  } catch {
    return null;
  }
}
