import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  parseSignatureHeader,
  SIGNATURE_HEADER_NAME,
  SIGNATURE_TOLERANCE_SECONDS,
  signBody,
  verifyBody,
} from './signature.js';

const KEY = 'svc_shopper_secret';
const T = 1_793_523_600;
const BODY = '{"wp_user_id":7,"limit":5}';

describe('signBody / verifyBody', () => {
  it('exports the header name and the 300 s window', () => {
    assert.equal(SIGNATURE_HEADER_NAME, 'X-Service-Signature');
    assert.equal(SIGNATURE_TOLERANCE_SECONDS, 300);
  });

  it('signs as t=<unix s>,v1=<64 hex> and verifies its own signature', async () => {
    const header = await signBody(KEY, BODY, T);
    assert.match(header, /^t=1793523600,v1=[0-9a-f]{64}$/);
    assert.equal(await verifyBody({ header, key: KEY, body: BODY, now: () => T }), 'ok');
  });

  it('signs a string and its UTF-8 bytes the same way', async () => {
    const text = '{"name":"café – 東京"}';
    assert.equal(await signBody(KEY, text, T), await signBody(KEY, new TextEncoder().encode(text), T));
  });

  it('uses the current second when no timestamp is given', async () => {
    const before = Math.floor(Date.now() / 1000);
    const parsed = parseSignatureHeader(await signBody(KEY, BODY));
    const after = Math.floor(Date.now() / 1000);
    assert.ok(parsed && parsed.t >= before && parsed.t <= after);
  });

  it('accepts 300 s of skew and refuses 301 s, in both directions', async () => {
    const header = await signBody(KEY, BODY, T);
    const at = (now: number) => verifyBody({ header, key: KEY, body: BODY, now: () => now });
    assert.equal(await at(T + 300), 'ok');
    assert.equal(await at(T - 300), 'ok');
    assert.equal(await at(T + 301), 'mismatch');
    assert.equal(await at(T - 301), 'mismatch');
  });

  it('refuses a body changed by one byte, a changed signature and another key', async () => {
    const header = await signBody(KEY, BODY, T);
    const now = () => T;
    const changedBody = BODY.replace('7', '8');
    assert.equal(await verifyBody({ header, key: KEY, body: changedBody, now }), 'mismatch');
    const bytes = new TextEncoder().encode(BODY);
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    assert.equal(await verifyBody({ header, key: KEY, body: bytes, now }), 'mismatch');
    const last = header.at(-1) === '0' ? '1' : '0';
    assert.equal(
      await verifyBody({ header: header.slice(0, -1) + last, key: KEY, body: BODY, now }),
      'mismatch',
    );
    assert.equal(await verifyBody({ header, key: `${KEY}x`, body: BODY, now }), 'mismatch');
  });

  it('answers missing for an absent or empty header and mismatch for a malformed one', async () => {
    const now = () => T;
    assert.equal(await verifyBody({ header: undefined, key: KEY, body: BODY, now }), 'missing');
    assert.equal(await verifyBody({ header: null, key: KEY, body: BODY, now }), 'missing');
    assert.equal(await verifyBody({ header: '', key: KEY, body: BODY, now }), 'missing');
    const good = await signBody(KEY, BODY, T);
    for (const header of [
      'garbage',
      `${good} `,
      good.replace(',', ';'),
      good.replace('t=', 't=0'),
      `${good},v0=1`,
    ]) {
      assert.equal(await verifyBody({ header, key: KEY, body: BODY, now }), 'mismatch', header);
    }
  });

  it('accepts an upper-case hex signature, as the service does', async () => {
    const header = await signBody(KEY, BODY, T);
    const upper = header.replace(/v1=([0-9a-f]+)/, (_match, hex: string) => `v1=${hex.toUpperCase()}`);
    assert.equal(await verifyBody({ header: upper, key: KEY, body: BODY, now: () => T }), 'ok');
  });

  it('never verifies with an empty key and refuses to sign with one', async () => {
    const header = await signBody(KEY, BODY, T);
    assert.equal(await verifyBody({ header, key: '', body: BODY, now: () => T }), 'mismatch');
    await assert.rejects(signBody('', BODY, T), /key is empty/);
  });

  it('refuses to sign with a timestamp that is not whole unix seconds', async () => {
    for (const bad of [-1, 1.5, Number.NaN, 1_000_000_000_000]) {
      await assert.rejects(signBody(KEY, BODY, bad), /timestamp/);
    }
  });

  it('does not import node:crypto (runs where only Web Crypto exists)', () => {
    const source = readFileSync(new URL('./signature.ts', import.meta.url), 'utf8');
    assert.doesNotMatch(source, /from ['"](node:)?crypto['"]/);
    assert.doesNotMatch(source, /from ['"]@service\/contract['"]/);
  });
});

describe('parseSignatureHeader', () => {
  it('reads exactly t and v1', () => {
    const v1 = 'a'.repeat(64);
    assert.deepEqual(parseSignatureHeader(`t=0,v1=${v1}`), { t: 0, v1 });
    assert.deepEqual(parseSignatureHeader(`v1=${v1},t=12`), { t: 12, v1 });
  });

  it('refuses leading zeros, other lengths, repeats and extra parts', () => {
    const v1 = 'a'.repeat(64);
    for (const header of [
      `t=012,v1=${v1}`,
      `t=1,v1=${v1}a`,
      `t=1,v1=${v1.slice(1)}`,
      `t=1,t=1`,
      `t=1,v1=${v1},v1=${v1}`,
      `t=1000000000000,v1=${v1}`,
      `t=1.0,v1=${v1}`,
      `=1,v1=${v1}`,
    ]) {
      assert.equal(parseSignatureHeader(header), null, header);
    }
  });
});
