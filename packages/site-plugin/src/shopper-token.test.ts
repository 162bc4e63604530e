import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { CONVERSATION_COOKIE, createShopperToken, emailHash } from './shopper-token.js';

const SECRET = 'svc_shopper_secret';
const NOW = new Date('2026-11-02T10:00:00Z');

describe('createShopperToken', () => {
  it('signs {wp_user_id, email_hash, iat} as compact HS256 keyed by the secret bytes', async () => {
    const token = await createShopperToken(
      { wp_user_id: 42, email: 'Ana@Example.com' },
      { secret: SECRET, now: () => NOW },
    );
    assert.equal(token.split('.').length, 3);
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'HS256', typ: 'JWT' });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET), {
      algorithms: ['HS256'],
      currentDate: NOW,
    });
    assert.deepEqual(payload, {
      wp_user_id: 42,
      email_hash: createHash('sha256').update('ana@example.com').digest('hex'),
      iat: NOW.getTime() / 1000,
    });
  });

  it('is deterministic for the same claims and clock', async () => {
    const make = () =>
      createShopperToken({ wp_user_id: 1, email: 'a@b.co' }, { secret: SECRET, now: () => NOW });
    assert.equal(await make(), await make());
  });

  it('uses the real clock when none is injected', async () => {
    const token = await createShopperToken({ wp_user_id: 1, email: 'a@b.co' }, { secret: SECRET });
    const { iat } = decodeJwt(token);
    assert.ok(typeof iat === 'number' && Math.abs(iat - Date.now() / 1000) < 5);
  });

  it('rejects a non-positive-integer user id, an empty email and an empty secret', async () => {
    const options = { secret: SECRET, now: () => NOW };
    for (const id of [0, -3, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
      await assert.rejects(createShopperToken({ wp_user_id: id, email: 'a@b.co' }, options), /wp_user_id/);
    }
    await assert.rejects(createShopperToken({ wp_user_id: 1, email: '' }, options), /email is empty/);
    await assert.rejects(createShopperToken({ wp_user_id: 1, email: '   ' }, options), /email is empty/);
    await assert.rejects(
      createShopperToken({ wp_user_id: 1, email: 'a@b.co' }, { secret: '', now: () => NOW }),
      /secret is empty/,
    );
  });
});

describe('emailHash', () => {
  it('is the SHA-256 hex of the trimmed, lower-cased email', async () => {
    const expected = createHash('sha256').update('ana@example.com').digest('hex');
    assert.equal(await emailHash('  ANA@Example.COM \n'), expected);
    assert.equal(await emailHash('ana@example.com'), expected);
    assert.match(expected, /^[0-9a-f]{64}$/);
  });
});

describe('CONVERSATION_COOKIE', () => {
  it('is the cookie the widget writes', () => {
    assert.equal(CONVERSATION_COOKIE, 'svc_conversation');
  });
});
