import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import fixture from '../fixtures/hmac-vectors.json' with { type: 'json' };
import {
  computeSignature,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
  signRequest,
  verifySignature,
} from './hmac.js';

/** The fixture's shape; parsing it also checks the file itself. */
const ZVectors = z.strictObject({
  scheme: z.looseObject({ header: z.string(), tolerance_seconds: z.number() }),
  valid: z
    .array(
      z.strictObject({
        name: z.string(),
        key: z.string(),
        timestamp: z.number().int(),
        now: z.number().int(),
        body: z.string(),
        header: z.string(),
      }),
    )
    .min(1),
  invalid: z
    .array(
      z.strictObject({
        name: z.string(),
        key: z.string(),
        now: z.number().int(),
        body: z.string(),
        header: z.string().nullable(),
        expected: z.enum(['missing', 'mismatch']),
      }),
    )
    .min(1),
});
const vectors = ZVectors.parse(fixture);
const generator = fileURLToPath(new URL('../fixtures/generate-hmac-vectors.mjs', import.meta.url));
const fixturePath = fileURLToPath(new URL('../fixtures/hmac-vectors.json', import.meta.url));

const HEX_64 = 'a'.repeat(64);

describe('HMAC vectors (packages/contract/fixtures/hmac-vectors.json)', () => {
  test('the fixture is exactly what the generator prints', () => {
    const printed = execFileSync(process.execPath, [generator], { encoding: 'utf8' });
    assert.equal(printed, readFileSync(fixturePath, 'utf8'));
  });

  test('the scheme matches the package constants', () => {
    assert.equal(vectors.scheme.header.toLowerCase(), SIGNATURE_HEADER);
    assert.equal(vectors.scheme.tolerance_seconds, SIGNATURE_TOLERANCE_SECONDS);
  });

  test('names are unique and the required cases are present', () => {
    for (const list of [vectors.valid, vectors.invalid]) {
      const names = list.map((vector) => vector.name);
      assert.equal(new Set(names).size, names.length);
    }
    const valid = vectors.valid;
    assert.ok(valid.some((vector) => vector.body === ''));
    assert.ok(valid.some((vector) => vector.body.includes('café – 東京')));
    assert.ok(valid.some((vector) => vector.body.includes('\r\n') && vector.body.includes('  \r\n')));
    assert.ok(valid.some((vector) => vector.body.length > 10_000));
    assert.ok(valid.some((vector) => vector.timestamp === vector.now - SIGNATURE_TOLERANCE_SECONDS));
    assert.ok(valid.some((vector) => vector.timestamp === vector.now + SIGNATURE_TOLERANCE_SECONDS));
    for (const vector of valid) assert.match(vector.key, /^svc_[A-Za-z0-9_-]{40}$/);
    assert.ok(vectors.invalid.some((vector) => vector.header === null && vector.expected === 'missing'));
  });

  describe('valid vectors verify and are reproduced by signRequest', () => {
    for (const vector of vectors.valid) {
      test(vector.name, () => {
        assert.equal(signRequest(vector.key, vector.body, vector.timestamp), vector.header);
        const check = (body: string | Uint8Array) =>
          verifySignature({ header: vector.header, key: vector.key, body, now: () => vector.now });
        assert.equal(check(vector.body), 'ok');
        // The same bytes given as a Buffer (what the service verifies) give the same answer.
        assert.equal(check(Buffer.from(vector.body, 'utf8')), 'ok');
        assert.equal(
          signRequest(vector.key, Buffer.from(vector.body, 'utf8'), vector.timestamp),
          vector.header,
        );
      });
    }
  });

  describe('invalid vectors give their expected result', () => {
    for (const vector of vectors.invalid) {
      test(`${vector.name} → ${vector.expected}`, () => {
        const check = verifySignature({
          header: vector.header,
          key: vector.key,
          body: vector.body,
          now: () => vector.now,
        });
        assert.equal(check, vector.expected);
        assert.equal(
          verifySignature({
            header: vector.header,
            key: vector.key,
            body: Buffer.from(vector.body, 'utf8'),
            now: () => vector.now,
          }),
          vector.expected,
        );
      });
    }
  });

  test('the window vectors fail only because of the clock', () => {
    for (const name of ['timestamp now - 301', 'timestamp now + 301']) {
      const vector = vectors.invalid.find((candidate) => candidate.name === name);
      assert.ok(vector?.header, name);
      const parsed = parseSignatureHeader(vector.header);
      assert.ok(parsed);
      assert.equal(Math.abs(vector.now - parsed.t), SIGNATURE_TOLERANCE_SECONDS + 1);
      const at = (now: number) =>
        verifySignature({ header: vector.header, key: vector.key, body: vector.body, now: () => now });
      assert.equal(at(parsed.t), 'ok');
      assert.equal(at(vector.now), 'mismatch');
    }
  });
});

describe('parseSignatureHeader', () => {
  test('reads t and v1', () => {
    assert.deepEqual(parseSignatureHeader(`t=1793523600,v1=${HEX_64}`), { t: 1793523600, v1: HEX_64 });
    assert.deepEqual(parseSignatureHeader(`t=0,v1=${HEX_64}`), { t: 0, v1: HEX_64 });
    assert.deepEqual(parseSignatureHeader(`t=999999999999,v1=${HEX_64}`), { t: 999999999999, v1: HEX_64 });
  });

  test('accepts the parts in either order', () => {
    assert.deepEqual(parseSignatureHeader(`v1=${HEX_64},t=12`), { t: 12, v1: HEX_64 });
  });

  test('lower-cases upper-case hex digits', () => {
    assert.deepEqual(parseSignatureHeader(`t=12,v1=${'AbCdEf01'.repeat(8)}`), {
      t: 12,
      v1: 'abcdef01'.repeat(8),
    });
  });

  test('rejects every malformed header', () => {
    const cases = [
      '',
      ',',
      '=',
      't=12',
      `v1=${HEX_64}`,
      `t=12,v1=${HEX_64},v0=${HEX_64}`,
      `t=12,t=12,v1=${HEX_64}`,
      `t=12,v1=${HEX_64},v1=${HEX_64}`,
      `v1=${HEX_64},v1=${HEX_64}`,
      `t=12,v1=${HEX_64.slice(1)}`,
      `t=12,v1=${HEX_64}a`,
      `t=12,v1=${'g'.repeat(64)}`,
      `t=12,v1=`,
      `t=,v1=${HEX_64}`,
      `t=abc,v1=${HEX_64}`,
      `t=-12,v1=${HEX_64}`,
      `t=+12,v1=${HEX_64}`,
      `t=1.5,v1=${HEX_64}`,
      `t=1e3,v1=${HEX_64}`,
      `t=0x10,v1=${HEX_64}`,
      `t=1000000000000,v1=${HEX_64}`,
      `t=12, v1=${HEX_64}`,
      ` t=12,v1=${HEX_64}`,
      `t=12,v1=${HEX_64} `,
      `t =12,v1=${HEX_64}`,
      `t= 12,v1=${HEX_64}`,
      `T=12,v1=${HEX_64}`,
      `t=12,V1=${HEX_64}`,
      `t=12;v1=${HEX_64}`,
      `t:12,v1:${HEX_64}`,
      `=12,v1=${HEX_64}`,
      `t12,v1=${HEX_64}`,
      `t=12,v1=${HEX_64},`,
    ];
    for (const value of cases) assert.equal(parseSignatureHeader(value), null, JSON.stringify(value));
  });
});

describe('verifySignature options', () => {
  const key = 'svc_unit_test_key';
  const body = '{"a":1}';

  test('treats a missing, null or empty header as missing', () => {
    for (const header of [undefined, null, '']) {
      assert.equal(verifySignature({ header, key, body, now: () => 100 }), 'missing');
    }
  });

  test('defaults to the real clock', () => {
    const now = Math.floor(Date.now() / 1000);
    assert.equal(verifySignature({ header: signRequest(key, body, now), key, body }), 'ok');
    assert.equal(verifySignature({ header: signRequest(key, body, now - 3600), key, body }), 'mismatch');
  });

  test('honours toleranceSeconds', () => {
    const header = signRequest(key, body, 1000);
    const at = (now: number, toleranceSeconds?: number) =>
      verifySignature({
        header,
        key,
        body,
        now: () => now,
        ...(toleranceSeconds ? { toleranceSeconds } : {}),
      });
    assert.equal(at(1300), 'ok');
    assert.equal(at(1301), 'mismatch');
    assert.equal(at(1010, 10), 'ok');
    assert.equal(at(1011, 10), 'mismatch');
    assert.equal(at(989, 10), 'mismatch');
  });

  test('accepts upper-case hex in v1', () => {
    const signature = computeSignature(key, 1000, body);
    const header = `t=1000,v1=${signature.toUpperCase()}`;
    assert.equal(verifySignature({ header, key, body, now: () => 1000 }), 'ok');
  });

  test('computeSignature is the v1 part of signRequest for string and byte bodies', () => {
    const header = signRequest(key, body, 1000);
    assert.equal(header, `t=1000,v1=${computeSignature(key, 1000, body)}`);
    assert.equal(
      computeSignature(key, 1000, new TextEncoder().encode(body)),
      computeSignature(key, 1000, body),
    );
  });
});

describe('timestamp text', () => {
  test('a t with leading zeros is refused, so every verifier signs the same "<t>." text', () => {
    const v1 = 'a'.repeat(64);
    assert.equal(parseSignatureHeader(`t=0001793523600,v1=${v1}`), null);
    assert.equal(parseSignatureHeader(`t=01,v1=${v1}`), null);
    assert.deepEqual(parseSignatureHeader(`t=0,v1=${v1}`), { t: 0, v1 });
    assert.deepEqual(parseSignatureHeader(`t=1793523600,v1=${v1}`), { t: 1793523600, v1 });
  });
});
