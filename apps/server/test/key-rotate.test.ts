import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deriveSecretKey, SecretBoxError, sealSecret } from '../src/security/secret-box.js';
import { createSecretKeyring } from '../src/security/secret-keyring.js';
import { KeyRotationError, resealSecrets } from '../src/services/sealed-secrets.js';
import { openSqlPassword, SQL_PASSWORD_PURPOSE, sealSqlPassword } from '../src/sql-source/sql-password.js';
import {
  keyRotationApp,
  NEW,
  OLD,
  OTHER,
  PASSWORDS,
  STRANGER,
  sealedPasswords,
  setSealedPassword,
  tamperSealed,
} from './support/key-rotation.js';

// resealSecrets: every sealed SQL password re-sealed with the new key, in one transaction that
// changes nothing when any value cannot be opened.
const f = keyRotationApp();
const { workspaces, sourceIds, sealAll, snapshot, rotationAudits, assertAllOpenWith } = f;

describe('key:rotate: re-sealing the stored secrets', () => {
  test('re-seals every password with the new key: each opens with it and its source, not with the old key', async () => {
    await sealAll(OLD);
    const auditsBefore = (await rotationAudits()).length;
    const counts = await resealSecrets({ db: f.t.database.db, from: createSecretKeyring(OLD), to: NEW });
    assert.deepEqual(counts, { resealed: 3, alreadyCurrent: 0, workspaces: 2 });
    await assertAllOpenWith(NEW);
    const sealed = await sealedPasswords(f.t.database.db);
    const [first, second] = sourceIds();
    assert.ok(first && second);
    for (const [id, value] of sealed) {
      assert.throws(() => openSqlPassword(value, createSecretKeyring(OLD), id), SecretBoxError);
    }
    // Still bound to its source: another source's id does not open it.
    assert.throws(
      () => openSqlPassword(sealed.get(first) ?? '', createSecretKeyring(NEW), second),
      /altered/,
    );
    // Mid-rollover, the keyring (new, previous = old) opens values of either key.
    const both = createSecretKeyring(NEW, OLD);
    assert.equal(openSqlPassword(sealed.get(first) ?? '', both, first), PASSWORDS[0]);
    assert.equal(openSqlPassword(sealSqlPassword('legacy', OLD, first), both, first), 'legacy');

    const audits = (await rotationAudits()).slice(auditsBefore);
    assert.deepEqual(
      audits.map((row) => [row.workspace_id, row.actor_type, row.actor_id, row.metadata]).sort(),
      [
        [workspaces[0], 'cli', null, { resealed: 2 }],
        [workspaces[1], 'cli', null, { resealed: 1 }],
      ].sort(),
    );
  });

  test('a second run re-seals nothing and records nothing', async () => {
    await sealAll(OLD);
    await resealSecrets({ db: f.t.database.db, from: createSecretKeyring(OLD), to: NEW });
    const before = await snapshot();
    const counts = await resealSecrets({ db: f.t.database.db, from: createSecretKeyring(NEW, OLD), to: NEW });
    assert.deepEqual(counts, { resealed: 0, alreadyCurrent: 3, workspaces: 0 });
    assert.deepEqual(await snapshot(), before);
  });

  test('a mix of new and previous values: only the previous ones are re-sealed', async () => {
    const [first] = sourceIds();
    await sealAll((id) => (id === first ? NEW : OLD));
    const untouched = (await sealedPasswords(f.t.database.db)).get(first ?? '');
    const counts = await resealSecrets({ db: f.t.database.db, from: createSecretKeyring(NEW, OLD), to: NEW });
    assert.deepEqual(counts, { resealed: 2, alreadyCurrent: 1, workspaces: 2 });
    assert.equal((await sealedPasswords(f.t.database.db)).get(first ?? ''), untouched);
    await assertAllOpenWith(NEW);
  });

  for (const [name, breakValue] of [
    ['an altered value', (sealed: string) => tamperSealed(sealed)],
    [
      'a value of an unknown key',
      (_sealed: string, id: string) =>
        sealSecret('x', deriveSecretKey(STRANGER, SQL_PASSWORD_PURPOSE), { context: id }),
    ],
    ['garbage', () => 'not-a-sealed-value'],
  ] as const) {
    test(`${name} aborts the whole rotation, naming the source, and nothing changes`, async () => {
      await sealAll(OLD);
      const victim = sourceIds()[2] ?? '';
      await setSealedPassword(
        f.t.database.db,
        victim,
        breakValue((await sealedPasswords(f.t.database.db)).get(victim) ?? '', victim),
      );
      const before = await snapshot();
      await assert.rejects(
        resealSecrets({ db: f.t.database.db, from: createSecretKeyring(NEW, OLD), to: OTHER }),
        (error: unknown) => {
          assert.ok(error instanceof KeyRotationError);
          assert.match(error.message, new RegExp(`SQL source ${victim}`));
          assert.match(error.message, /Nothing was changed/);
          for (const password of PASSWORDS) assert.ok(!error.message.includes(password));
          return true;
        },
      );
      assert.deepEqual(await snapshot(), before);
    });
  }

  test('a value of the old key without APP_KEY_PREVIOUS aborts: APP_KEY alone cannot open it', async () => {
    await sealAll(OLD);
    const before = await snapshot();
    await assert.rejects(
      resealSecrets({ db: f.t.database.db, from: createSecretKeyring(NEW), to: OTHER }),
      /Cannot open the sealed secret of SQL source .*sealed with key/,
    );
    assert.deepEqual(await snapshot(), before);
  });
});
