import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { signRequest, verifySignature, ZShopperClaims } from '@service/contract';
import { verifyShopperToken } from '../../../apps/server/src/security/shopper-token.js';
import { createShopperToken, emailHash } from '../src/shopper-token.js';
import { signBody, verifyBody } from '../src/signature.js';

// The SDK against the service: the shared HMAC vectors, each side's signatures checked by the
// other's verifier, and shopper tokens checked by the service's verifier.

type ValidVector = {
  name: string;
  key: string;
  timestamp: number;
  now: number;
  body: string;
  header: string;
};
type InvalidVector = {
  name: string;
  key: string;
  now: number;
  body: string;
  header: string | null;
  expected: 'missing' | 'mismatch';
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readString(record: Record<string, unknown>, field: string): string {
  const value = record[field];
  if (typeof value !== 'string') throw new Error(`vector field ${field} is not a string`);
  return value;
}

function readInteger(record: Record<string, unknown>, field: string): number {
  const value = record[field];
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new Error(`vector field ${field} is not an integer`);
  return value;
}

/** Reads packages/contract/fixtures/hmac-vectors.json, checking its shape on the way. */
function loadVectors(): { valid: ValidVector[]; invalid: InvalidVector[] } {
  const raw: unknown = JSON.parse(
    readFileSync(new URL('../../contract/fixtures/hmac-vectors.json', import.meta.url), 'utf8'),
  );
  if (!isRecord(raw) || !Array.isArray(raw.valid) || !Array.isArray(raw.invalid)) {
    throw new Error('unexpected vector file shape');
  }
  const valid = raw.valid.map((entry: unknown): ValidVector => {
    if (!isRecord(entry)) throw new Error('vector is not an object');
    return {
      name: readString(entry, 'name'),
      key: readString(entry, 'key'),
      timestamp: readInteger(entry, 'timestamp'),
      now: readInteger(entry, 'now'),
      body: readString(entry, 'body'),
      header: readString(entry, 'header'),
    };
  });
  const invalid = raw.invalid.map((entry: unknown): InvalidVector => {
    if (!isRecord(entry)) throw new Error('vector is not an object');
    const expected = entry.expected;
    if (expected !== 'missing' && expected !== 'mismatch') throw new Error('unexpected expected value');
    const header = entry.header === null ? null : readString(entry, 'header');
    return {
      name: readString(entry, 'name'),
      key: readString(entry, 'key'),
      now: readInteger(entry, 'now'),
      body: readString(entry, 'body'),
      header,
      expected,
    };
  });
  return { valid, invalid };
}

const vectors = loadVectors();

describe('HMAC vectors (packages/contract/fixtures/hmac-vectors.json)', () => {
  it('has vectors of both kinds', () => {
    assert.ok(vectors.valid.length >= 10);
    assert.ok(vectors.invalid.length >= 30);
  });

  for (const vector of vectors.valid) {
    it(`valid: ${vector.name} — verifyBody says ok, and signBody gives exactly the header`, async () => {
      const now = () => vector.now;
      assert.equal(
        await verifyBody({ header: vector.header, key: vector.key, body: vector.body, now }),
        'ok',
      );
      const bytes = new TextEncoder().encode(vector.body);
      assert.equal(await verifyBody({ header: vector.header, key: vector.key, body: bytes, now }), 'ok');
      assert.equal(await signBody(vector.key, vector.body, vector.timestamp), vector.header);
    });
  }

  for (const vector of vectors.invalid) {
    it(`invalid: ${vector.name} — verifyBody says ${vector.expected}`, async () => {
      const result = await verifyBody({
        header: vector.header,
        key: vector.key,
        body: vector.body,
        now: () => vector.now,
      });
      assert.equal(result, vector.expected);
    });
  }
});

describe('SDK signer ↔ service verifier', () => {
  const key = 'svc_shopper_secret_interop';
  const body = '{"code":"WELCOME10","conversation_id":"01JBX8Q3V2M7K9T4R6W1Y5Z0AC","note":"café – 東京"}';
  const t = 1_793_523_600;
  const now = () => t;

  /** The header with one hex digit of v1 changed. */
  function flipSignature(header: string): string {
    const last = header.at(-1) === 'a' ? 'b' : 'a';
    return header.slice(0, -1) + last;
  }

  it('the service verifies what signBody signs, and refuses a 1-byte change of body or signature', async () => {
    const header = await signBody(key, body, t);
    assert.equal(verifySignature({ header, key, body, now }), 'ok');
    assert.equal(verifySignature({ header, key, body: `${body.slice(0, -1)}]`, now }), 'mismatch');
    assert.equal(verifySignature({ header: flipSignature(header), key, body, now }), 'mismatch');
    assert.equal(await verifyBody({ header, key, body: `${body.slice(0, -1)}]`, now }), 'mismatch');
    assert.equal(await verifyBody({ header: flipSignature(header), key, body, now }), 'mismatch');
  });

  it('verifyBody verifies what the service signs, and refuses a 1-byte change of body or signature', async () => {
    const header = signRequest(key, body, t);
    assert.equal(await verifyBody({ header, key, body, now }), 'ok');
    const bytes = new TextEncoder().encode(body);
    bytes[5] = (bytes[5] ?? 0) ^ 0x01;
    assert.equal(await verifyBody({ header, key, body: bytes, now }), 'mismatch');
    assert.equal(verifySignature({ header, key, body: bytes, now }), 'mismatch');
    assert.equal(await verifyBody({ header: flipSignature(header), key, body, now }), 'mismatch');
    assert.equal(verifySignature({ header: flipSignature(header), key, body, now }), 'mismatch');
  });

  it('both agree on the 300/301 s window, in both directions', async () => {
    const header = await signBody(key, body, t);
    for (const offset of [-301, -300, 300, 301]) {
      const at = () => t + offset;
      const expected = Math.abs(offset) <= 300 ? 'ok' : 'mismatch';
      assert.equal(await verifyBody({ header, key, body, now: at }), expected, `sdk ${offset}`);
      assert.equal(verifySignature({ header, key, body, now: at }), expected, `service ${offset}`);
    }
  });
});

describe('shopper token ↔ service verifier', () => {
  const secret = 'svc_shopper_signing_secret_interop';
  const now = new Date('2026-11-02T10:00:00Z');

  it('the service accepts createShopperToken output and reads the same email hash', async () => {
    const token = await createShopperToken(
      { wp_user_id: 42, email: ' Ana@Example.COM ' },
      { secret, now: () => now },
    );
    const claims = await verifyShopperToken(token, ['other-secret', secret], now);
    assert.ok(claims);
    assert.deepEqual(claims, {
      wp_user_id: 42,
      email_hash: await emailHash('ana@example.com'),
      iat: Math.floor(now.getTime() / 1000),
    });
    assert.equal(ZShopperClaims.safeParse(claims).success, true);
  });

  it('the service refuses a token with one changed byte, another secret, or a stale iat', async () => {
    const token = await createShopperToken(
      { wp_user_id: 42, email: 'ana@example.com' },
      { secret, now: () => now },
    );
    const [header, payload, signature] = token.split('.');
    assert.ok(header && payload && signature);
    const flip = (text: string, index: number) => {
      const char = text[index] === 'A' ? 'B' : 'A';
      return text.slice(0, index) + char + text.slice(index + 1);
    };
    for (const changed of [
      `${header}.${payload}.${flip(signature, 3)}`,
      `${header}.${flip(payload, 10)}.${signature}`,
      `${flip(header, 5)}.${payload}.${signature}`,
    ]) {
      assert.equal(await verifyShopperToken(changed, [secret], now), null, changed);
    }
    assert.equal(await verifyShopperToken(token, ['another-secret'], now), null);
    const later = new Date(now.getTime() + 901_000);
    assert.equal(await verifyShopperToken(token, [secret], later), null);
  });
});
