import {
  SHOPPER_TOKEN_CLOCK_SKEW_SECONDS,
  SHOPPER_TOKEN_MAX_AGE_SECONDS,
  type TShopperClaims,
  ZShopperClaims,
} from '@service/contract';
import { jwtVerify, SignJWT } from 'jose';

const encoder = new TextEncoder();

/**
 * Signs shopper claims the way a site does: a compact HS256 JWS keyed by the UTF-8 bytes of
 * the token's `shopper_signing_secret` (used by tests and the site SDK).
 */
export async function signShopperToken(secret: string, claims: TShopperClaims): Promise<string> {
  return new SignJWT({ wp_user_id: claims.wp_user_id, email_hash: claims.email_hash })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(claims.iat)
    .sign(encoder.encode(secret));
}

/**
 * Verifies a shopper token against each candidate secret (the agent's site tokens). Valid
 * means: HS256 only, a matching signature, claims of the right shape, `iat` at most 15 minutes
 * old and at most 60 s in the future. Anything else is null (init ignores it silently).
 */
export async function verifyShopperToken(
  token: string,
  secrets: readonly string[],
  now: Date = new Date(),
): Promise<TShopperClaims | null> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  for (const secret of secrets) {
    if (secret === '') continue;
    try {
      const { payload } = await jwtVerify(token, encoder.encode(secret), {
        algorithms: ['HS256'],
        currentDate: now,
        requiredClaims: ['iat'],
      });
      const claims = ZShopperClaims.safeParse(payload);
      if (!claims.success) return null;
      const age = nowSeconds - claims.data.iat;
      if (age > SHOPPER_TOKEN_MAX_AGE_SECONDS || age < -SHOPPER_TOKEN_CLOCK_SKEW_SECONDS) return null;
      return claims.data;
    } catch {
      // Wrong secret (or not a JWS at all): try the next one.
    }
  }
  return null;
}
