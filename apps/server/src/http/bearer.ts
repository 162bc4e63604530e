/** The longest API token (`svc_…`) the admin and site-sync surfaces read from a bearer header. */
export const API_TOKEN_MAX_LENGTH = 512;

// RFC 7235 §2.1: the scheme is case-insensitive and 1*SP separates it from the credentials.
const SCHEME = /^bearer +/i;
// RFC 6750 §2.1 b64token (token68): every token this service issues (svc_… base64url, widget
// JWTs) is one; anything else cannot be ours.
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The one reader of `Authorization: Bearer <token>` for every surface: the scheme in any case,
 * one or more spaces, then exactly one token68 of 1..`maxLength` characters and nothing after it
 * but spaces or tabs. Anything else (another scheme, a tab before the token, an empty, over-long
 * or second token, a character outside token68 such as non-ASCII) is no credential: null.
 */
export function readBearer(header: unknown, maxLength: number): string | null {
  if (typeof header !== 'string') return null;
  const scheme = SCHEME.exec(header);
  if (!scheme) return null;
  // Spaces or tabs after the value (OWS) go; Node trims them already, other callers may not.
  // A loop, not a /[ \t]+$/ regex: that one is quadratic on a long run of inner spaces.
  let end = header.length;
  while (end > scheme[0].length && (header[end - 1] === ' ' || header[end - 1] === '\t')) end -= 1;
  const token = header.slice(scheme[0].length, end);
  if (token.length === 0 || token.length > maxLength) return null;
  return TOKEN68.test(token) ? token : null;
}
