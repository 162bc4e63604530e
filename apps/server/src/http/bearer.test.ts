import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { API_TOKEN_MAX_LENGTH, readBearer } from './bearer.js';

const TOKEN = 'svc_S_NEDPN2UNf--S7USoLThtCT0JcEgs14Z7FjS_2D';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ2In0.c2lnbmF0dXJlLXBhcnQ';

describe('readBearer', () => {
  test('reads one token after the scheme, in any case of the scheme', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      assert.equal(readBearer(`${scheme} ${TOKEN}`, API_TOKEN_MAX_LENGTH), TOKEN, scheme);
    }
    assert.equal(readBearer(`Bearer ${JWT}`, 12_288), JWT);
    // token68 may end in = padding, and holds + and / (standard base64) too.
    assert.equal(readBearer('Bearer ab+/c~d==', 100), 'ab+/c~d==');
  });

  test('several spaces before the token, and spaces or tabs after it, are allowed', () => {
    assert.equal(readBearer(`Bearer    ${TOKEN}`, API_TOKEN_MAX_LENGTH), TOKEN);
    assert.equal(readBearer(`Bearer ${TOKEN} `, API_TOKEN_MAX_LENGTH), TOKEN);
    assert.equal(readBearer(`Bearer ${TOKEN}\t \t`, API_TOKEN_MAX_LENGTH), TOKEN);
  });

  test('a tab instead of a space, or no space at all, is no credential', () => {
    assert.equal(readBearer(`Bearer\t${TOKEN}`, API_TOKEN_MAX_LENGTH), null);
    assert.equal(readBearer(`Bearer \t${TOKEN}`, API_TOKEN_MAX_LENGTH), null);
    assert.equal(readBearer(`Bearer${TOKEN}`, API_TOKEN_MAX_LENGTH), null);
    assert.equal(readBearer(` Bearer ${TOKEN}`, API_TOKEN_MAX_LENGTH), null);
  });

  test('no header, an empty one, the scheme alone or another scheme is no credential', () => {
    for (const header of [undefined, null, 42, ['Bearer x'], '', 'Bearer', 'Bearer ', 'Bearer \t ']) {
      assert.equal(readBearer(header, API_TOKEN_MAX_LENGTH), null, JSON.stringify(header));
    }
    assert.equal(readBearer(`Basic ${TOKEN}`, API_TOKEN_MAX_LENGTH), null);
    assert.equal(readBearer(`Token ${TOKEN}`, API_TOKEN_MAX_LENGTH), null);
    assert.equal(readBearer(`Bearers ${TOKEN}`, API_TOKEN_MAX_LENGTH), null);
  });

  test('the longest token passes; one character more does not', () => {
    const longest = 'a'.repeat(API_TOKEN_MAX_LENGTH);
    assert.equal(readBearer(`Bearer ${longest}`, API_TOKEN_MAX_LENGTH), longest);
    assert.equal(readBearer(`Bearer ${longest}a`, API_TOKEN_MAX_LENGTH), null);
    assert.equal(
      readBearer(`Bearer ${longest}  `, API_TOKEN_MAX_LENGTH),
      longest,
      'trailing spaces do not count',
    );
    assert.equal(readBearer('Bearer a', 1), 'a');
  });

  test('two tokens, or anything outside token68, is no credential', () => {
    for (const token of [
      `${TOKEN} ${TOKEN}`,
      `${TOKEN},${TOKEN}`,
      `${TOKEN}\t${TOKEN}`,
      'a=b',
      '=abc',
      'tökén',
      'token\u00a0',
      'tok\u0000en',
      '"quoted"',
      'emoji😀',
    ]) {
      assert.equal(readBearer(`Bearer ${token}`, API_TOKEN_MAX_LENGTH), null, token);
    }
  });

  test('a header of many spaces is read in linear time (no backtracking)', () => {
    const header = `Bearer ${' '.repeat(200_000)}x${' '.repeat(200_000)}y`;
    assert.equal(readBearer(header, API_TOKEN_MAX_LENGTH), null);
    assert.equal(readBearer(`Bearer x${' '.repeat(200_000)}`, API_TOKEN_MAX_LENGTH), 'x');
  });
});
