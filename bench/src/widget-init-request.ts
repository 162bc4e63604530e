/**
 * autocannon's per-request hook for `widget-init.bench.ts`. autocannon runs in its own worker
 * thread and loads this module there by path (`require`), so it shares nothing with the server.
 *
 * The body template carries `ANON_MARKER` where the `anon_id` goes; every request replaces it
 * with an id no earlier request of the run used, so each widget init creates a new visitor (and
 * conversation), and each baseline request inserts a new row. The id has the marker's length,
 * so the body's length never changes.
 */
import { randomBytes } from 'node:crypto';
import type { Request } from 'autocannon';

/** 24 characters standing for the `anon_id` in the body template (a valid anon_id itself). */
export const ANON_MARKER = 'ANONIDMARKER000000000000';

// New for each autocannon run (each run starts a new worker), so the warm-up's ids and the
// measured run's never coincide.
const runNonce = randomBytes(4).toString('hex');
let counter = 0;

/** A new anon_id: the run's nonce and a counter, 24 characters of [0-9a-z]. */
export function nextAnonId(): string {
  counter += 1;
  return `${runNonce}${counter.toString(36).padStart(ANON_MARKER.length - runNonce.length, '0')}`;
}

/** Returns the request to send: the template's body with a new anon_id. */
export function varyAnonId(request: Request): Request {
  const template = typeof request.body === 'string' ? request.body : String(request.body ?? '');
  return { ...request, body: template.replace(ANON_MARKER, nextAnonId()) };
}

// `require()` of this ES module (what autocannon's worker does with a setupRequest path)
// returns this export itself, not the module namespace.
export { varyAnonId as 'module.exports' };
