import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { declareUncompressedSize } from '../../../test/support/upload-files.js';
import { repackWithinLimits, unzipWithinLimits } from './unzip-within-limits.js';
import { UploadLimitError } from './upload-limit-error.js';

describe('unzipWithinLimits', () => {
  const zip = zipSync(
    { 'a.txt': new Uint8Array(60).fill(97), 'b.txt': new Uint8Array(40).fill(98) },
    { level: 9 },
  );

  test('total uncompressed size: 100 bytes pass a 100-byte cap, not a 99-byte one', () => {
    const entries = unzipWithinLimits(zip, { maxBytes: 100 });
    assert.equal(entries['a.txt']?.length, 60);
    assert.equal(entries['b.txt']?.length, 40);
    assert.throws(() => unzipWithinLimits(zip, { maxBytes: 99 }), UploadLimitError);
  });

  test('entry count: 2 entries pass a cap of 2, not a cap of 1', () => {
    assert.equal(Object.keys(unzipWithinLimits(zip, { maxEntries: 2 })).length, 2);
    assert.throws(() => unzipWithinLimits(zip, { maxEntries: 1 }), /more than 1 entries/);
  });

  test('an entry that under-declares its size comes out truncated, never larger', () => {
    const bomb = declareUncompressedSize(
      zipSync({ 'big.xml': new Uint8Array(1_000_000).fill(65) }, { level: 9 }),
      10,
    );
    assert.equal(unzipWithinLimits(bomb)['big.xml']?.length, 10);
  });

  test('bytes that are not a zip give a readable error', () => {
    assert.throws(() => unzipWithinLimits(strToU8('not a zip at all')), /not a readable zip archive/);
  });

  test('repacking keeps every entry, stored, with the sizes that were checked', () => {
    const repacked = repackWithinLimits(zip);
    assert.deepEqual(unzipWithinLimits(repacked), unzipWithinLimits(zip));
  });
});
