/**
 * How every Chromium of the repository is started: the admin console's and the widget's browser
 * tests and the browser benchmarks. Plain data, so this folder needs no browser driver: each
 * caller hands it to `playwright-core`'s `chromium.launch`.
 */

/** The Chromium executable: CHROMIUM_PATH, else Debian's (`apt-get install chromium`). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a quiet headless Chromium: no sandbox (containers), no GPU, no calls home. */
const QUIET_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

/** Tests add these: only loopback names resolve and no QUIC, so nothing leaves the machine. */
const LOOPBACK_ONLY_ARGS = [
  '--disable-quic',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
] as const;

/**
 * The command-line flags: the quiet ones, plus (unless `loopbackOnly` is false) the ones that
 * keep the browser on loopback. Tests keep the default; benchmarks pass what they measure with.
 */
export function chromiumArgs(options: { loopbackOnly?: boolean } = {}): string[] {
  return options.loopbackOnly === false ? [...QUIET_ARGS] : [...QUIET_ARGS, ...LOOPBACK_ONLY_ARGS];
}
