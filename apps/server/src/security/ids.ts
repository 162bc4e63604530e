import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

// ulidx asks its PRNG once per character, and its default (WebCrypto) costs a system call
// each time; the same CSPRNG read 4 KiB at a time is as random and far cheaper.
const pool = Buffer.alloc(4096);
let offset = pool.length;

/** A uniform number in [0, 1) in steps of 1/256 (ulidx maps it onto 32 symbols: 256 is a multiple). */
function pooledRandom(): number {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const byte = pool[offset] ?? 0;
  offset += 1;
  return byte / 256;
}

const next = monotonicFactory(pooledRandom);

/** A new ULID: 26 Crockford base32 characters, sortable by creation time. */
export function newId(): string {
  return next();
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** True for a string shaped like {@link newId}'s output (what a cursor may carry back). */
export function isId(value: string): boolean {
  return ULID.test(value);
}
