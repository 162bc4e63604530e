import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deriveSecretKey, SecretBoxError, sealSecret } from './secret-box.js';
import { createSecretKeyring } from './secret-keyring.js';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);
const OTHER = Buffer.alloc(32, 3);
const PURPOSE = 'test-purpose';

describe('createSecretKeyring', () => {
  test('seals with the current key, bound to the context', () => {
    const ring = createSecretKeyring(NEW, OLD);
    const sealed = ring.seal('s3cret', PURPOSE, 'ctx-1');
    assert.equal(sealed.split('.')[1], deriveSecretKey(NEW, PURPOSE).id);
    assert.equal(ring.isCurrent(sealed, PURPOSE), true);
    assert.equal(ring.open(sealed, PURPOSE, 'ctx-1'), 's3cret');
    assert.throws(() => ring.open(sealed, PURPOSE, 'ctx-2'), SecretBoxError);
    assert.throws(() => ring.open(sealed, 'another-purpose', 'ctx-1'), SecretBoxError);
  });

  test('opens values of the previous key too, and says they are not current', () => {
    const byOld = sealSecret('old-pw', deriveSecretKey(OLD, PURPOSE), { context: 'ctx' });
    const ring = createSecretKeyring(NEW, OLD);
    assert.equal(ring.open(byOld, PURPOSE, 'ctx'), 'old-pw');
    assert.equal(ring.isCurrent(byOld, PURPOSE), false);
    assert.throws(() => createSecretKeyring(NEW).open(byOld, PURPOSE, 'ctx'), /sealed with key/);
  });

  test('a value neither key sealed fails with the key ids named, and never with the plaintext', () => {
    const byOther = sealSecret('other-pw', deriveSecretKey(OTHER, PURPOSE), { context: 'ctx' });
    const ring = createSecretKeyring(NEW, OLD);
    assert.throws(
      () => ring.open(byOther, PURPOSE, 'ctx'),
      (error: unknown) => {
        assert.ok(error instanceof SecretBoxError);
        assert.match(error.message, new RegExp(deriveSecretKey(OTHER, PURPOSE).id));
        assert.doesNotMatch(error.message, /other-pw/);
        return true;
      },
    );
  });

  test('an altered value of the previous key fails', () => {
    const byOld = sealSecret('old-pw', deriveSecretKey(OLD, PURPOSE), { context: 'ctx' });
    const parts = byOld.split('.');
    const tag = parts[4] ?? '';
    parts[4] = `${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}`;
    assert.throws(() => createSecretKeyring(NEW, OLD).open(parts.join('.'), PURPOSE, 'ctx'), /altered/);
  });
});
