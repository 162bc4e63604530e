// The HMAC scheme of the contract ("Authentication"), on Web Crypto only: no node:crypto and no
// import of @service/contract, so this module runs in edge runtimes, workers and browsers too.
// It must agree byte for byte with the service's signer (packages/contract/src/hmac.ts); the
// shared vectors in packages/contract/fixtures/hmac-vectors.json keep both honest.

/** The header that carries a signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER_NAME = 'X-Service-Signature';

/** Either side rejects a timestamp further than this from its own clock (contract: 300 s). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The result of checking a signed body: `missing` (no header) or `mismatch` (anything else wrong). */
export type SignatureResult = 'ok' | 'missing' | 'mismatch';

/** Options of {@link verifyBody}. `now` returns unix seconds (default: the real clock). */
export type VerifyBodyOptions = {
  header: string | null | undefined;
  key: string;
  body: string | Uint8Array;
  now?: () => number;
};

const encoder = new TextEncoder();
const HEX_SIGNATURE = /^[0-9a-f]{64}$/i;
// No leading zeros: every verifier must agree on the exact text "<t>." that was signed.
const UNIX_SECONDS = /^(?:0|[1-9][0-9]{0,11})$/;
const MAX_TIMESTAMP = 999_999_999_999;

/**
 * Parses the header exactly as strictly as the service does: the parts `t` and `v1` once each,
 * `t` a decimal integer without leading zeros (at most 12 digits), `v1` 64 hex digits. Anything
 * else (spaces, repeats, other parts, other lengths) is null.
 */
export function parseSignatureHeader(value: string): { t: number; v1: string } | null {
  const parts = value.split(',');
  if (parts.length !== 2) return null;
  const fields = new Map<string, string>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const name = part.slice(0, eq);
    if (fields.has(name)) return null;
    fields.set(name, part.slice(eq + 1));
  }
  const t = fields.get('t');
  const v1 = fields.get('v1');
  if (t === undefined || v1 === undefined) return null;
  if (!UNIX_SECONDS.test(t) || !HEX_SIGNATURE.test(v1)) return null;
  return { t: Number(t), v1: v1.toLowerCase() };
}

/**
 * Signs a body: returns the header value `t=<unix s>,v1=<hex>`, where v1 is HMAC-SHA256 keyed by
 * the UTF-8 bytes of `key` over `"<t>.<raw body>"`. `timestamp` defaults to the current second.
 */
export async function signBody(key: string, body: string | Uint8Array, timestamp?: number): Promise<string> {
  const t = timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(t) || t < 0 || t > MAX_TIMESTAMP) {
    throw new Error('signBody: timestamp must be a whole, non-negative number of unix seconds.');
  }
  if (key === '') throw new Error('signBody: the signing key is empty.');
  const cryptoKey = await importHmacKey(key);
  const mac = new Uint8Array(await webCrypto().sign('HMAC', cryptoKey, signedBytes(t, body)));
  return `t=${t},v1=${toHex(mac)}`;
}

/**
 * Verifies a signed body: `missing` when the header is absent or empty; `mismatch` for a
 * malformed header, an empty key, a wrong signature, or a timestamp more than 300 s from `now`
 * (either direction); `ok` otherwise. The MAC comparison is constant-time (`subtle.verify`).
 */
export async function verifyBody(options: VerifyBodyOptions): Promise<SignatureResult> {
  const { header, key, body } = options;
  if (header === undefined || header === null || header === '') return 'missing';
  const parsed = parseSignatureHeader(header);
  // Web Crypto refuses zero-length HMAC keys; an empty key never verifies anything (fail closed).
  if (!parsed || key === '') return 'mismatch';
  const cryptoKey = await importHmacKey(key);
  const matches = await webCrypto().verify(
    'HMAC',
    cryptoKey,
    fromHex(parsed.v1),
    signedBytes(parsed.t, body),
  );
  const now = options.now ? options.now() : Math.floor(Date.now() / 1000);
  const isFresh = Math.abs(now - parsed.t) <= SIGNATURE_TOLERANCE_SECONDS;
  return matches && isFresh ? 'ok' : 'mismatch';
}

function webCrypto() {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('Web Crypto (globalThis.crypto.subtle) is not available in this runtime.');
  return subtle;
}

function importHmacKey(key: string) {
  return webCrypto().importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

/** The bytes that are signed: `"<t>."` in UTF-8, then the raw body exactly as sent. */
function signedBytes(timestamp: number, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`);
  const payload = typeof body === 'string' ? encoder.encode(body) : body;
  const bytes = new Uint8Array(prefix.length + payload.length);
  bytes.set(prefix);
  bytes.set(payload, prefix.length);
  return bytes;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Decodes validated lower-case hex (see {@link parseSignatureHeader}). */
function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
