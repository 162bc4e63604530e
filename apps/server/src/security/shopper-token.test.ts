import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { signShopperToken, verifyShopperToken } from './shopper-token.js';

const SECRET = 'shopper-secret';
const NOW = new Date('2026-11-21T12:00:00Z');
const NOW_S = NOW.getTime() / 1000;
const HASH = 'a'.repeat(64);

describe('shopper tokens', () => {
  test('valid within 15 minutes and 60 s of skew; refused just beyond', async () => {
    const at = async (iat: number) =>
      verifyShopperToken(
        await signShopperToken(SECRET, { wp_user_id: 5, email_hash: HASH, iat }),
        [SECRET],
        NOW,
      );
    assert.deepEqual(await at(NOW_S - 900), { wp_user_id: 5, email_hash: HASH, iat: NOW_S - 900 });
    assert.equal(await at(NOW_S - 901), null);
    assert.ok(await at(NOW_S + 60));
    assert.equal(await at(NOW_S + 61), null);
  });

  test('any of the candidate secrets may have signed it; a wrong or empty secret never verifies', async () => {
    const token = await signShopperToken(SECRET, { wp_user_id: 5, email_hash: HASH, iat: NOW_S });
    assert.ok(await verifyShopperToken(token, ['old-secret', SECRET], NOW));
    assert.equal(await verifyShopperToken(token, ['other'], NOW), null);
    assert.equal(await verifyShopperToken(token, [''], NOW), null);
    assert.equal(await verifyShopperToken(token, [], NOW), null);
  });

  test('malformed claims, other algorithms and tampering are refused', async () => {
    const key = new TextEncoder().encode(SECRET);
    const badClaims = await new SignJWT({ wp_user_id: '5', email_hash: HASH })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(NOW_S)
      .sign(key);
    assert.equal(await verifyShopperToken(badClaims, [SECRET], NOW), null);
    const badHash = await new SignJWT({ wp_user_id: 5, email_hash: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(NOW_S)
      .sign(key);
    assert.equal(await verifyShopperToken(badHash, [SECRET], NOW), null);
    const hs384 = await new SignJWT({ wp_user_id: 5, email_hash: HASH })
      .setProtectedHeader({ alg: 'HS384' })
      .setIssuedAt(NOW_S)
      .sign(key);
    assert.equal(await verifyShopperToken(hs384, [SECRET], NOW), null);
    const noIat = await new SignJWT({ wp_user_id: 5, email_hash: HASH })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(key);
    assert.equal(await verifyShopperToken(noIat, [SECRET], NOW), null);
    const good = await signShopperToken(SECRET, { wp_user_id: 5, email_hash: HASH, iat: NOW_S });
    const [h, , s] = good.split('.');
    const other = Buffer.from(JSON.stringify({ wp_user_id: 6, email_hash: HASH, iat: NOW_S })).toString(
      'base64url',
    );
    assert.equal(await verifyShopperToken(`${h}.${other}.${s}`, [SECRET], NOW), null);
    assert.equal(await verifyShopperToken('garbage', [SECRET], NOW), null);
  });
});
