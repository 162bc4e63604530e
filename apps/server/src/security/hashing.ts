import { createHash } from 'node:crypto';

/** SHA-256 of a UTF-8 text, hex-encoded: content hashes, token hashes, migration checksums. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
