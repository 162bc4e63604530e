import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header both directions sign with: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'x-service-signature';

/** Either side rejects a timestamp further than this from its own clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The result of checking a signed request. */
export type SignatureCheck = 'ok' | 'missing' | 'mismatch';

/** `v1` for a body: hex HMAC-SHA256 keyed by `key` over `"<t>.<raw body>"`. */
export function computeSignature(key: string, timestamp: number, body: string | Uint8Array): string {
  const mac = createHmac('sha256', key);
  mac.update(`${timestamp}.`);
  mac.update(body);
  return mac.digest('hex');
}

/** The header value for a body signed at `timestamp` (unix seconds). */
export function signRequest(key: string, body: string | Uint8Array, timestamp: number): string {
  return `t=${timestamp},v1=${computeSignature(key, timestamp, body)}`;
}

/**
 * Parses the header strictly: exactly the parts `t` and `v1`, `t` a decimal integer without leading zeros,
 * `v1` 64 hex digits. Anything else (missing `v1`, other lengths, spaces, repeats) is null.
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
  // No leading zeros: every verifier must agree on the exact text "<t>." that was signed.
  if (!/^(?:0|[1-9][0-9]{0,11})$/.test(t) || !/^[0-9a-f]{64}$/i.test(v1)) return null;
  return { t: Number(t), v1: v1.toLowerCase() };
}

/**
 * Verifies a signed body: `missing` when there is no header, `mismatch` for a malformed
 * header, a wrong signature or a timestamp more than 300 s away (either direction),
 * `ok` otherwise. The comparison is constant-time. `now` returns unix seconds.
 */
export function verifySignature(options: {
  header: string | undefined | null;
  key: string;
  body: string | Uint8Array;
  now?: () => number;
  toleranceSeconds?: number;
}): SignatureCheck {
  if (options.header === undefined || options.header === null || options.header === '') return 'missing';
  const parsed = parseSignatureHeader(options.header);
  if (!parsed) return 'mismatch';
  const expected = Buffer.from(computeSignature(options.key, parsed.t, options.body), 'hex');
  const given = Buffer.from(parsed.v1, 'hex');
  const matches = given.length === expected.length && timingSafeEqual(given, expected);
  const now = options.now ? options.now() : Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const fresh = Math.abs(now - parsed.t) <= tolerance;
  return matches && fresh ? 'ok' : 'mismatch';
}
