import { monotonicFactory } from 'ulidx';

const next = monotonicFactory();

/** A new ULID: 26 Crockford base32 characters, sortable by creation time. */
export function newId(): string {
  return next();
}
