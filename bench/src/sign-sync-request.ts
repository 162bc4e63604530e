/**
 * autocannon's per-request hook for `posts-sync.bench.ts`. autocannon runs in its own worker
 * thread and loads this module there by path (`require`), so it shares nothing with the server:
 * it sees only the request template (method, path, headers, body) and the scenario's context.
 *
 * Every request is signed afresh (`t` = now) with the bearer token's plaintext, exactly as a
 * site plugin signs it. With `rehash`, the request first gets new content hashes: the body
 * template carries `HASH_MARKER` where each post's hash begins, and every request replaces it
 * with a value no earlier request of the run used, so all 50 posts differ from the stored ones.
 */
import { randomBytes } from 'node:crypto';
import { SIGNATURE_HEADER, signRequest } from '@service/contract';
import type { Request } from 'autocannon';

/** 24 hex digits at the start of each post's `content_hash` in the body template. */
export const HASH_MARKER = 'c0ffee'.repeat(4);

/** The scenario's switch, passed as autocannon's `initialContext`. */
export type SyncRequestContext = { rehash: boolean };

// New for each autocannon run (each run starts a new worker), so the warm-up's hashes and the
// measured run's never coincide.
const runNonce = randomBytes(4).toString('hex');
let counter = 0;

function nextMarker(): string {
  counter += 1;
  return `${runNonce}${counter.toString(16).padStart(HASH_MARKER.length - runNonce.length, '0')}`;
}

function bearerKey(headers: Request['headers']): string {
  const value = headers?.authorization;
  if (typeof value !== 'string' || !value.startsWith('Bearer ')) {
    throw new Error('sign-sync-request: the request template needs an `authorization: Bearer …` header');
  }
  return value.slice('Bearer '.length);
}

/** Returns the request to send: the template's body (rehashed when asked), signed now. */
export function signSyncRequest(request: Request, context: object): Request {
  const template = typeof request.body === 'string' ? request.body : String(request.body ?? '');
  const rehash = 'rehash' in context && context.rehash === true;
  const body = rehash ? template.replaceAll(HASH_MARKER, nextMarker()) : template;
  const signature = signRequest(bearerKey(request.headers), body, Math.floor(Date.now() / 1000));
  return { ...request, body, headers: { ...request.headers, [SIGNATURE_HEADER]: signature } };
}

// `require()` of this ES module (what autocannon's worker does with a setupRequest path)
// returns this export itself, not the module namespace.
export { signSyncRequest as 'module.exports' };
