// What the widget keeps in the browser: the anonymous id (localStorage `svc_anon_id`) and the
// first-party cookie `svc_conversation` the site plugin reads to stage coupons. Storage can
// be blocked (privacy modes, sandboxed frames): every access is guarded.

/** The localStorage key of the anonymous browser id. */
export const ANON_KEY = 'svc_anon_id';
/** The first-party cookie naming the current conversation. */
export const CONVERSATION_COOKIE = 'svc_conversation';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A random url-safe id of 24 characters. */
export function newAnonId(bytes: Uint8Array = crypto.getRandomValues(new Uint8Array(24))): string {
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte & 63];
  return id;
}

/** The stored id, or a new one (stored when storage allows; kept in memory otherwise). */
export function loadAnonId(storage: () => Storage | null = () => localStorage): string {
  try {
    const saved = storage()?.getItem(ANON_KEY);
    if (saved && /^[A-Za-z0-9_-]{8,64}$/.test(saved)) return saved;
  } catch {}
  const id = newAnonId();
  try {
    storage()?.setItem(ANON_KEY, id);
  } catch {}
  return id;
}

/** Forgets the stored id (after the visitor erased their data). */
export function forgetAnonId(): void {
  try {
    localStorage.removeItem(ANON_KEY);
  } catch {}
}

/** Writes (or, with an empty id, removes) the `svc_conversation` cookie. */
export function writeConversationCookie(doc: Document, conversationId: string): void {
  try {
    const secure = doc.location?.protocol === 'https:' ? '; Secure' : '';
    const value = encodeURIComponent(conversationId);
    doc.cookie = `${CONVERSATION_COOKIE}=${value}; Path=/; Max-Age=${value ? 86400 : 0}; SameSite=Lax${secure}`;
  } catch {}
}
