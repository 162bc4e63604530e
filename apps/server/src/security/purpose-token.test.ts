import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { inviteTokenKey, signInviteToken, verifyInviteToken } from './invite-token.js';
import { purposeTokenKey, signPurposeToken, verifyPurposeToken } from './purpose-token.js';
import { resetTokenKey, signResetToken, verifyResetToken } from './reset-token.js';

const appKey = randomBytes(32);
const now = new Date('2026-11-27T10:00:00Z');

describe('single-purpose tokens', () => {
  test("a token of one purpose never passes as another's, even under the other's key", async () => {
    const invite = await signInviteToken(inviteTokenKey(appKey), 'inv_1', now);
    const reset = await signResetToken(resetTokenKey(appKey), { userId: 'usr_1', tokenId: 'rst_1' }, now);
    assert.equal(await verifyInviteToken(inviteTokenKey(appKey), invite.token, now), 'inv_1');
    assert.deepEqual(await verifyResetToken(resetTokenKey(appKey), reset.token, now), {
      userId: 'usr_1',
      tokenId: 'rst_1',
      expiresAt: reset.expiresAt,
    });
    assert.equal(await verifyResetToken(resetTokenKey(appKey), invite.token, now), null);
    assert.equal(await verifyInviteToken(inviteTokenKey(appKey), reset.token, now), null);
    // Same key, other audience: refused by the audience alone.
    const key = purposeTokenKey(appKey, 'label');
    const signed = await signPurposeToken(key, { audience: 'a', ttlSeconds: 60, jti: 'x' }, now);
    assert.equal(
      await verifyPurposeToken(key, signed.token, { audience: 'b', withSubject: false }, now),
      null,
    );
    assert.equal(
      (await verifyPurposeToken(key, signed.token, { audience: 'a', withSubject: false }, now))?.jti,
      'x',
    );
    assert.equal(
      await verifyPurposeToken(key, signed.token, { audience: 'a', withSubject: true }, now),
      null,
      'a subject required and absent',
    );
  });

  test('expiry has no leeway: valid one second before, refused at the second it ends', async () => {
    const key = purposeTokenKey(appKey, 'label');
    const { token, expiresAt } = await signPurposeToken(
      key,
      { audience: 'a', ttlSeconds: 60, jti: 'x' },
      now,
    );
    const at = (ms: number) =>
      verifyPurposeToken(key, token, { audience: 'a', withSubject: false }, new Date(ms));
    assert.ok(await at(expiresAt.getTime() - 1000));
    assert.equal(await at(expiresAt.getTime()), null);
  });

  test('an overlong or malformed token is refused unread', async () => {
    const key = purposeTokenKey(appKey, 'label');
    assert.equal(
      await verifyPurposeToken(key, 'x'.repeat(2001), { audience: 'a', withSubject: false }, now),
      null,
    );
    assert.equal(await verifyPurposeToken(key, 'a.b.c', { audience: 'a', withSubject: false }, now), null);
  });
});
