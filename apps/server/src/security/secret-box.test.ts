import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  deriveSecretKey,
  isSealedWith,
  openSecret,
  SecretBoxError,
  sealedKeyId,
  sealSecret,
} from './secret-box.js';

const APP_KEY = Buffer.alloc(32, 7);
const OTHER_APP_KEY = Buffer.alloc(32, 8);
const KEY = deriveSecretKey(APP_KEY, 'sql-source-password');
const SECRET = 'correct horse battery staple';

/** Flips one character of a base64url part, keeping it valid base64url of the same length. */
function flip(part: string, index = 0): string {
  const char = part[index] === 'A' ? 'B' : 'A';
  return `${part.slice(0, index)}${char}${part.slice(index + 1)}`;
}

describe('deriveSecretKey', () => {
  test('is deterministic, and purpose and APP_KEY both change the key and its id', () => {
    const again = deriveSecretKey(APP_KEY, 'sql-source-password');
    assert.ok(again.key.equals(KEY.key));
    assert.equal(again.id, KEY.id);
    assert.match(KEY.id, /^[0-9a-f]{8}$/);
    assert.equal(KEY.key.length, 32);
    const otherPurpose = deriveSecretKey(APP_KEY, 'webhook-secret');
    const otherAppKey = deriveSecretKey(OTHER_APP_KEY, 'sql-source-password');
    assert.notEqual(otherPurpose.id, KEY.id);
    assert.notEqual(otherAppKey.id, KEY.id);
    assert.ok(!otherPurpose.key.equals(KEY.key));
  });

  test('refuses an APP_KEY that is not 32 bytes and an empty purpose', () => {
    assert.throws(() => deriveSecretKey(Buffer.alloc(31), 'x'), SecretBoxError);
    assert.throws(() => deriveSecretKey(Buffer.alloc(33), 'x'), SecretBoxError);
    assert.throws(() => deriveSecretKey(APP_KEY, ' '), SecretBoxError);
  });
});

describe('sealSecret / openSecret', () => {
  test('roundtrips, including empty and non-ASCII text', () => {
    for (const text of [SECRET, '', 'pässwörd ✓ 密码', 'x'.repeat(10_000)]) {
      assert.equal(openSecret(sealSecret(text, KEY), KEY), text);
    }
  });

  test('the output is v1.<keyId>.<iv>.<ciphertext>.<tag> with a 12-byte IV and a 16-byte tag', () => {
    const parts = sealSecret(SECRET, KEY).split('.');
    assert.equal(parts.length, 5);
    assert.equal(parts[0], 'v1');
    assert.equal(parts[1], KEY.id);
    assert.equal(Buffer.from(parts[2] ?? '', 'base64url').length, 12);
    assert.equal(Buffer.from(parts[3] ?? '', 'base64url').length, Buffer.byteLength(SECRET));
    assert.equal(Buffer.from(parts[4] ?? '', 'base64url').length, 16);
  });

  test('two seals of the same text differ (fresh IV)', () => {
    const first = sealSecret(SECRET, KEY);
    const second = sealSecret(SECRET, KEY);
    assert.notEqual(first, second);
    assert.notEqual(first.split('.')[2], second.split('.')[2]);
    assert.equal(openSecret(second, KEY), SECRET);
  });

  test('the IV comes from the injected random source', () => {
    const sealed = sealSecret(SECRET, KEY, { randomBytes: (size) => Buffer.alloc(size, 1) });
    assert.equal(sealed.split('.')[2], Buffer.alloc(12, 1).toString('base64url'));
    assert.throws(() => sealSecret(SECRET, KEY, { randomBytes: () => Buffer.alloc(8) }), SecretBoxError);
  });

  test('the plaintext never appears in the output, in any common encoding', () => {
    const sealed = sealSecret(SECRET, KEY);
    const plain = Buffer.from(SECRET);
    for (const encoding of ['utf8', 'base64', 'base64url', 'hex'] as const) {
      assert.ok(!sealed.includes(plain.toString(encoding)), encoding);
    }
    assert.ok(!sealed.includes('horse'));
  });

  test('tampering with any part fails', () => {
    const parts = sealSecret(SECRET, KEY).split('.');
    for (const index of [2, 3, 4]) {
      const altered = [...parts];
      altered[index] = flip(parts[index] ?? '');
      assert.throws(() => openSecret(altered.join('.'), KEY), SecretBoxError, `part ${index}`);
    }
    // The last ciphertext byte too (a flip at index 0 could miss a short-text bug at the end).
    const last = [...parts];
    last[3] = flip(parts[3] ?? '', (parts[3] ?? '').length - 2);
    assert.throws(() => openSecret(last.join('.'), KEY), /altered/);
    // Version, key id, truncation, extra parts and non-base64url characters.
    const cases = [
      ['v2', ...parts.slice(1)],
      [parts[0], 'deadbeef', ...parts.slice(2)],
      parts.slice(0, 4),
      [...parts, 'AA'],
      [parts[0], parts[1], parts[2], `${parts[3]}!`, parts[4]],
      [parts[0], parts[1], parts[2], parts[3], (parts[4] ?? '').slice(0, -2)],
    ];
    for (const altered of cases) {
      assert.throws(() => openSecret(altered.join('.'), KEY), SecretBoxError, altered.join('.'));
    }
    assert.throws(() => openSecret('not sealed', KEY), /not a sealed value/);
  });

  test('a wrong key fails with a message naming both key ids', () => {
    const sealed = sealSecret(SECRET, KEY);
    const other = deriveSecretKey(OTHER_APP_KEY, 'sql-source-password');
    assert.throws(
      () => openSecret(sealed, other),
      (error: unknown) =>
        error instanceof SecretBoxError &&
        error.message.includes(KEY.id) &&
        error.message.includes(other.id) &&
        !error.message.includes(SECRET),
    );
    // A different key that claims the same id (forged header) still fails on the tag.
    const impostor = { id: KEY.id, key: other.key };
    assert.throws(() => openSecret(sealed, impostor), /altered/);
  });

  test('a context binds the sealed value to its record', () => {
    const sealed = sealSecret(SECRET, KEY, { context: 'source:01A' });
    assert.equal(openSecret(sealed, KEY, { context: 'source:01A' }), SECRET);
    assert.throws(() => openSecret(sealed, KEY, { context: 'source:01B' }), SecretBoxError);
    assert.throws(() => openSecret(sealed, KEY), SecretBoxError);
  });
});

describe('isSealedWith / sealedKeyId', () => {
  test('tell which key sealed a value', () => {
    const sealed = sealSecret(SECRET, KEY);
    const other = deriveSecretKey(OTHER_APP_KEY, 'sql-source-password');
    assert.equal(isSealedWith(sealed, KEY), true);
    assert.equal(isSealedWith(sealed, other), false);
    assert.equal(isSealedWith(sealSecret(SECRET, other), other), true);
    assert.equal(sealedKeyId(sealed), KEY.id);
  });

  test('are false / null for anything that is not a sealed value', () => {
    for (const value of ['', SECRET, 'v1.x.y.z.w', `v1.${KEY.id}.AA.AA.AA`]) {
      assert.equal(isSealedWith(value, KEY), false, value);
      assert.equal(sealedKeyId(value), null, value);
    }
  });
});
