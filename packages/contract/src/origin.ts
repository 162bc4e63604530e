const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * Normalises an origin to `scheme://host[:port]`: trimmed, lower-case, no trailing slash,
 * default port dropped. Returns null for anything that is not an http(s) origin (paths,
 * queries, credentials and fragments are not part of an origin, so they make it invalid).
 */
export function normalizeOrigin(input: string): string | null {
  const trimmed = input.trim().replace(/\/+$/, '');
  // Backslashes read as "/" in the URL parser, and "*" would be a wildcard the origin policy
  // never expands (no subdomain inference): both make an entry that can never match.
  if (!/^https?:\/\/[^/?#@\s\\*]+$/i.test(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.hostname === '') return null;
  const port = url.port && url.port !== DEFAULT_PORTS[url.protocol] ? `:${url.port}` : '';
  return `${url.protocol}//${url.hostname.toLowerCase()}${port}`;
}

/**
 * Normalises an `allowed_origins` entry: `*` stays `*`, anything else must be an origin.
 * Returns null when the entry is not acceptable.
 */
export function normalizeAllowedOrigin(input: string): string | null {
  return input.trim() === '*' ? '*' : normalizeOrigin(input);
}

/**
 * The widget origin policy, one function for init and every later widget route: an empty
 * list denies everything; `*` allows everything, a missing Origin included; otherwise the
 * request's Origin, normalised, must equal an entry exactly (no subdomain inference). The
 * literal Origin `null` (sandboxed frames, file pages) matches only `*`.
 */
export function isOriginAllowed(
  allowedOrigins: readonly string[],
  origin: string | undefined | null,
): boolean {
  if (allowedOrigins.includes('*')) return true;
  if (origin === undefined || origin === null) return false;
  const normalized = normalizeOrigin(origin);
  if (normalized === null) return false;
  return allowedOrigins.some((entry) => normalizeAllowedOrigin(entry) === normalized);
}
