import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';

/** What a connector hook sees: undici's connect options plus the vetted addresses and the pinned lookup. */
export type ConnectTarget = buildConnector.Options & {
  /** The only addresses the connection may go to (vetted by `checkUrl`). */
  addresses: readonly string[];
  /** The pinned lookup the real connector uses: answers only for the vetted host name. */
  lookup: LookupFunction;
};

/** Replaces the real socket connector (tests): must call back with a socket or an error. */
export type ConnectHook = (target: ConnectTarget, callback: buildConnector.Callback) => void;

/**
 * A `lookup` that answers only for `hostname`, and only with the vetted `addresses`: the socket
 * cannot reach an address a second DNS answer would give (DNS rebinding). Node skips `lookup` for
 * IP-literal hosts, which is fine: the literal itself was vetted.
 */
export function pinnedLookup(hostname: string, addresses: readonly string[]): LookupFunction {
  const expected = normaliseHost(hostname);
  const entries: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
  return (name: string, options: LookupOptions, callback) => {
    const wanted = familyNumber(options.family);
    const matching = entries.filter((entry) => wanted === 0 || entry.family === wanted);
    const first = matching[0];
    if (normaliseHost(name) !== expected || first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`${name} is not the vetted host ${expected}`);
      error.code = 'ENOTFOUND';
      callback(error, []);
      return;
    }
    if (options.all === true) callback(null, matching);
    else callback(null, first.address, first.family);
  };
}

/**
 * An undici connector pinned to one vetted host (every other host name is refused), and the socket
 * resolves the name only through `pinnedLookup`. `hook` replaces the socket layer in tests.
 */
export function pinnedConnector(options: {
  hostname: string;
  addresses: readonly string[];
  timeoutMs: number;
  hook?: ConnectHook | undefined;
}): buildConnector.connector {
  const expected = normaliseHost(options.hostname);
  const lookup = pinnedLookup(expected, options.addresses);
  const base = buildConnector({ lookup, timeout: options.timeoutMs });
  return (connectOptions, callback) => {
    if (normaliseHost(connectOptions.hostname) !== expected) {
      callback(new Error(`connection to unvetted host ${connectOptions.hostname} blocked`), null);
      return;
    }
    if (options.hook) {
      options.hook({ ...connectOptions, addresses: options.addresses, lookup }, callback);
      return;
    }
    base(connectOptions, callback);
  };
}

/** Lower-case, IPv6 brackets and a trailing root dot removed, so "[::1]" and "::1" compare equal. */
function normaliseHost(host: string): string {
  const lower = host.toLowerCase();
  const bare = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

function familyNumber(family: LookupOptions['family']): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return typeof family === 'number' ? family : 0;
}
