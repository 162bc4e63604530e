import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { isDatabaseUnavailable, isUniqueViolation } from './pg-errors.js';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

test('a database that is down, restarting or out of connections is unavailable', () => {
  for (const error of [
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('the database system is starting up', '57P03'),
    withCode('sorry, too many clients already', '53300'),
    withCode('connection failure', '08006'),
    withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], 'all failed'),
  ]) {
    assert.equal(isDatabaseUnavailable(error), true, error.message);
  }
});

test('a query the database refused is not unavailability', () => {
  const refused = new pg.DatabaseError('duplicate key value violates unique constraint', 100, 'error');
  refused.code = '23505';
  assert.equal(isUniqueViolation(refused), true);
  for (const error of [
    refused,
    withCode('syntax error at or near "selec"', '42601'),
    withCode('permission denied', '42501'),
    new Error('something else'),
    'Connection terminated',
    null,
  ]) {
    assert.equal(isDatabaseUnavailable(error), false, String(error));
  }
});
