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

  test('an entry that under-declares its size is refused, never inflated past what it declares', () => {
    const bomb = declareUncompressedSize(
      zipSync({ 'big.xml': new Uint8Array(1_000_000).fill(65) }, { level: 9 }),
      10,
    );
    assert.throws(
      () => unzipWithinLimits(bomb),
      /not a readable zip archive \(big\.xml expands past the 10 bytes it declares\)/,
    );
  });

  test('an entry that holds less than it declares is refused', () => {
    const short = declareUncompressedSize(
      zipSync({ 'a.txt': new Uint8Array(60).fill(97) }, { level: 9 }),
      61,
    );
    assert.throws(() => unzipWithinLimits(short), /a\.txt holds 60 bytes but declares 61/);
  });

  test('stored entries and empty entries read back as they are', () => {
    const stored = zipSync({ 'a.txt': strToU8('plain'), 'empty.txt': new Uint8Array(0) }, { level: 0 });
    const entries = unzipWithinLimits(stored);
    assert.equal(new TextDecoder().decode(entries['a.txt']), 'plain');
    assert.equal(entries['empty.txt']?.length, 0);
    const deflatedEmpty = zipSync({ 'empty.txt': new Uint8Array(0) }, { level: 9 });
    assert.equal(unzipWithinLimits(deflatedEmpty)['empty.txt']?.length, 0);
  });

  test('names: UTF-8 when the archive says so', () => {
    const entries = unzipWithinLimits(zipSync({ 'café/ünï.txt': strToU8('x') }));
    assert.deepEqual(Object.keys(entries), ['café/ünï.txt']);
  });

  test('a truncated archive or one whose directory points past its end is refused', () => {
    assert.throws(() => unzipWithinLimits(zip.slice(0, zip.length - 30)), /not a readable zip archive/);
    const broken = new Uint8Array(zip);
    const view = new DataView(broken.buffer);
    // The end record's central directory offset, pointed past the end of the file.
    view.setUint32(broken.length - 22 + 16, broken.length + 100, true);
    assert.throws(() => unzipWithinLimits(broken), /runs past the end of the file/);
  });

  test('bytes that are not a zip give a readable error', () => {
    assert.throws(() => unzipWithinLimits(strToU8('not a zip at all')), /not a readable zip archive/);
  });

  test('repacking keeps every entry, stored, with the sizes that were checked', () => {
    const repacked = repackWithinLimits(zip);
    assert.deepEqual(unzipWithinLimits(repacked), unzipWithinLimits(zip));
  });
});
