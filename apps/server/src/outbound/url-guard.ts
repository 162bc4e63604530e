import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { describeUnsafeAddress, formatAddress } from './ip-policy.js';

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolve = (hostname: string) => Promise<string[]>;

/** Options of `checkUrl`: an injectable resolver and the SAFE_URL_ALLOW entries. */
export type UrlGuardOptions = {
  /** Defaults to the system resolver (`dns.promises.lookup` with `all: true`). */
  resolve?: Resolve;
  /** `host` or `host:port` entries (lower-case) let a listed host through; tests and development only. */
  allow?: readonly string[];
};

/** The verdict on a URL: the parsed URL and the vetted addresses to connect to, or a refusal reason. */
export type UrlCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

const ALLOWED_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:']);
const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

// Names that only ever mean "this machine" or "this private network" (RFC 6761, 6762, 8375;
// `.internal` is reserved for private use and hosts GCP's metadata server).
const BLOCKED_NAMES: ReadonlySet<string> = new Set(['localhost', 'metadata.google.internal', 'metadata']);
const BLOCKED_SUFFIXES: readonly string[] = [
  '.localhost',
  '.internal',
  '.local',
  '.localdomain',
  '.home.arpa',
];

/** Resolves with the system resolver, every address, in the order the OS returns them. */
export async function systemResolve(hostname: string): Promise<string[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

/**
 * Decides whether `rawUrl` may be fetched: http(s) only, no credentials, no local names, and
 * every address (the IP literal itself, or all DNS answers) public. Never throws.
 */
export async function checkUrl(rawUrl: string, options: UrlGuardOptions = {}): Promise<UrlCheck> {
  let url: URL;
  try {
    // WHATWG parsing normalises every IPv4 spelling (2130706433, 0x7f000001, 0177.0.0.1, 127.1)
    // to dotted decimal and IPv6 to its compressed form, so the checks below see one spelling.
    url = new URL(rawUrl);
  } catch {
    return refuse('the URL is not valid');
  }
  if (!ALLOWED_SCHEMES.has(url.protocol)) return refuse(`scheme ${url.protocol} is not allowed`);
  if (url.username !== '' || url.password !== '') return refuse('URLs with credentials are not allowed');

  const host = bareHost(url.hostname);
  if (host === '') return refuse('the URL has no host');
  const allowed = isAllowed(url, host, options.allow ?? []);
  const literal = isIP(host) !== 0;

  if (!allowed && !literal) {
    const name = host.endsWith('.') ? host.slice(0, -1) : host;
    if (isBlockedName(name)) return refuse(`${name} is a local or internal host name`);
  }
  if (literal) {
    const unsafe = allowed ? undefined : describeUnsafeAddress(host);
    if (unsafe !== undefined) return refuse(`${formatAddress(host)} is ${unsafe}`);
    return { ok: true, url, addresses: [host] };
  }

  let addresses: string[];
  try {
    addresses = await (options.resolve ?? systemResolve)(host);
  } catch (error) {
    return refuse(`DNS lookup for ${host} failed (${errorCode(error)})`);
  }
  // Fail closed: no answer is treated like a failed lookup.
  if (addresses.length === 0) return refuse(`DNS lookup for ${host} returned no addresses`);
  for (const address of addresses) {
    // Even an allowed host must resolve to IP addresses: they are what the connection is pinned to.
    const unsafe = allowed && isIP(address) !== 0 ? undefined : describeUnsafeAddress(address);
    if (unsafe !== undefined) return refuse(`${host} resolves to ${formatAddress(address)}, ${unsafe}`);
  }
  return { ok: true, url, addresses };
}

/** True when a host name (lower-case, no trailing dot) is refused by name alone. */
export function isBlockedName(name: string): boolean {
  if (BLOCKED_NAMES.has(name)) return true;
  return BLOCKED_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * True when the URL's host is listed in SAFE_URL_ALLOW (as `host` or `host:port`, the way
 * {@link checkUrl} matches it); false for an invalid URL.
 */
export function isAllowListed(rawUrl: string, allow: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return false;
  }
  return isAllowed(url, bareHost(url.hostname), allow);
}

function isAllowed(url: URL, host: string, allow: readonly string[]): boolean {
  if (allow.length === 0) return false;
  const port = url.port !== '' ? url.port : (DEFAULT_PORTS[url.protocol] ?? '');
  const hostname = url.hostname.toLowerCase();
  const candidates = new Set([hostname, host, `${hostname}:${port}`]);
  return allow.some((entry) => candidates.has(entry.trim().toLowerCase()));
}

/** URL hostnames keep IPv6 literals in brackets; the checks and the connector want them bare. */
function bareHost(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return error instanceof Error ? error.message : 'unknown error';
}

function refuse(detail: string): UrlCheck {
  return { ok: false, reason: `refused: ${detail}` };
}
