import { STAGED_COUPON_TTL_SECONDS } from '@service/contract';
import { CONVERSATION_COOKIE } from './shopper-token.js';
import type { KeyValueStore } from './site-store.js';

// Staged coupons (contract "States and transitions"): cart/coupon stores the code keyed by the
// conversation for 15 minutes; the visitor's next cart load finds the conversation through the
// cookie the widget writes, and takes the code so it is applied at most once.

/** The prefix of staging keys: `staged-coupon:<conversation_id>`. */
export const STAGED_COUPON_KEY_PREFIX = 'staged-coupon:';

// Conversation ids are at most 64 characters (contract ZId); a longer cookie can match nothing.
const MAX_CONVERSATION_ID_LENGTH = 64;

/** The staging key of a conversation. */
export function stagedCouponKey(conversationId: string): string {
  return `${STAGED_COUPON_KEY_PREFIX}${conversationId}`;
}

/** Stages `code` for the conversation's next cart load, for {@link STAGED_COUPON_TTL_SECONDS}. */
export async function stageCoupon(
  staging: KeyValueStore,
  conversationId: string,
  code: string,
): Promise<void> {
  await staging.set(stagedCouponKey(conversationId), code, STAGED_COUPON_TTL_SECONDS);
}

/** Takes (reads and removes) the code staged for a conversation: with `take` when the store has it. */
export async function takeStagedCoupon(
  staging: KeyValueStore,
  conversationId: string,
): Promise<string | null> {
  const key = stagedCouponKey(conversationId);
  if (staging.take) return staging.take(key);
  const code = await staging.get(key);
  if (code !== null) await staging.delete(key);
  return code;
}

/**
 * The conversation id from a Cookie header's `svc_conversation` cookie, URL-decoded; null when it
 * is absent, empty or longer than a conversation id can be. Tolerant of spacing, quotes, other
 * cookies and malformed pairs (RFC 6265 §5.2: a pair without `=` is skipped).
 */
export function readConversationCookie(cookieHeader: string | null | undefined): string | null {
  if (typeof cookieHeader !== 'string' || cookieHeader === '') return null;
  for (const pair of cookieHeader.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1 || pair.slice(0, eq).trim() !== CONVERSATION_COOKIE) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    const decoded = safeDecode(value);
    if (decoded === '' || decoded.length > MAX_CONVERSATION_ID_LENGTH) return null;
    return decoded;
  }
  return null;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    // Not valid percent-encoding: the raw text is the best guess (and can only match itself).
    return value;
  }
}
