import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ABILITIES } from './abilities.js';
import { ZApiTokenCreate } from './api-token.js';

/** The dotted issue paths of a failed parse; [] on success. */
function issuePaths(input: unknown): string[] {
  const result = ZApiTokenCreate.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('ZApiTokenCreate', () => {
  test('accepts each known ability', () => {
    for (const ability of ABILITIES) {
      assert.deepEqual(ZApiTokenCreate.parse({ name: 'CI', abilities: [ability] }), {
        name: 'CI',
        abilities: [ability],
      });
    }
  });

  test('removes duplicate abilities, keeping first-seen order', () => {
    const parsed = ZApiTokenCreate.parse({
      name: 'site',
      abilities: ['wp:integration', 'admin', 'wp:integration', 'admin'],
    });
    assert.deepEqual(parsed.abilities, ['wp:integration', 'admin']);
  });

  test('rejects an unknown ability, naming its index', () => {
    assert.deepEqual(issuePaths({ name: 'x', abilities: ['admin', 'superuser'] }), ['abilities.1']);
    assert.deepEqual(issuePaths({ name: 'x', abilities: ['ADMIN'] }), ['abilities.0']);
    assert.deepEqual(issuePaths({ name: 'x', abilities: ['wp:*'] }), ['abilities.0']);
  });

  test('rejects an empty or missing abilities list', () => {
    assert.deepEqual(issuePaths({ name: 'x', abilities: [] }), ['abilities']);
    assert.deepEqual(issuePaths({ name: 'x' }), ['abilities']);
    assert.deepEqual(issuePaths({ name: 'x', abilities: 'admin' }), ['abilities']);
  });

  test('takes at most 10 abilities (counted before de-duplication)', () => {
    assert.deepEqual(ZApiTokenCreate.parse({ name: 'x', abilities: Array(10).fill('admin') }).abilities, [
      'admin',
    ]);
    assert.deepEqual(issuePaths({ name: 'x', abilities: Array(11).fill('admin') }), ['abilities']);
  });

  test('trims the name and enforces 1..100 characters', () => {
    assert.equal(ZApiTokenCreate.parse({ name: '  deploy  ', abilities: ['admin'] }).name, 'deploy');
    assert.equal(ZApiTokenCreate.parse({ name: 'n'.repeat(100), abilities: ['admin'] }).name.length, 100);
    assert.deepEqual(issuePaths({ name: 'n'.repeat(101), abilities: ['admin'] }), ['name']);
    assert.deepEqual(issuePaths({ name: '  ', abilities: ['admin'] }), ['name']);
  });

  test('rejects unknown keys such as workspace_id', () => {
    assert.deepEqual(issuePaths({ name: 'x', abilities: ['admin'], workspace_id: 'w' }), ['']);
    assert.deepEqual(issuePaths({ name: 'x', abilities: ['admin'], token: 'svc_chosen' }), ['']);
  });
});
