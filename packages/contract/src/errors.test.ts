import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ERROR_CODES, isErrorCode } from './errors.js';

const entries = Object.entries(ERROR_CODES);

describe('ERROR_CODES', () => {
  test('is not empty and every code is snake_case', () => {
    assert.ok(entries.length > 0);
    for (const [code] of entries) assert.match(code, /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, code);
  });

  test('maps every code to an integer 4xx or 5xx status', () => {
    for (const [code, { status }] of entries) {
      assert.ok(Number.isInteger(status), `${code}: ${status} is not an integer`);
      assert.ok(status >= 400 && status <= 599, `${code}: ${status} is not a 4xx/5xx status`);
    }
  });

  test('gives every code a non-empty message', () => {
    for (const [code, { message }] of entries) {
      assert.equal(typeof message, 'string', code);
      assert.ok(message.trim().length > 0, `${code} has an empty message`);
      assert.equal(message, message.trim(), `${code}'s message has surrounding whitespace`);
    }
  });

  test('keeps the statuses the contract fixes', () => {
    assert.equal(ERROR_CODES.unauthenticated.status, 401);
    assert.equal(ERROR_CODES.forbidden.status, 403);
    assert.equal(ERROR_CODES.not_found.status, 404);
    assert.equal(ERROR_CODES.validation_failed.status, 422);
    assert.equal(ERROR_CODES.rate_limited.status, 429);
    assert.equal(ERROR_CODES.missing_signature.status, 401);
    assert.equal(ERROR_CODES.plugin_unconfigured.status, 401);
    assert.equal(ERROR_CODES.signature_mismatch.status, 401);
    assert.equal(ERROR_CODES.origin_forbidden.status, 403);
    assert.equal(ERROR_CODES.invalid_coupon.status, 400);
    assert.equal(ERROR_CODES.commerce_inactive.status, 400);
  });
});

describe('isErrorCode', () => {
  test('is true for every code in the table', () => {
    for (const code of Object.keys(ERROR_CODES)) assert.equal(isErrorCode(code), true, code);
  });

  test('is false for unknown codes, other casings and inherited property names', () => {
    for (const value of [
      '',
      'NOT_FOUND',
      'not-found',
      'not_found ',
      'teapot',
      'toString',
      'constructor',
      '__proto__',
      'hasOwnProperty',
    ]) {
      assert.equal(isErrorCode(value), false, JSON.stringify(value));
    }
  });
});
