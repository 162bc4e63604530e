import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withProcessLock } from './process-lock.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test('holders of one owner and key take turns; other keys and owners do not wait', async () => {
  const owner = {};
  const events: string[] = [];
  const hold = (name: string, key: number, on: object = owner) =>
    withProcessLock(on, key, async () => {
      events.push(`${name} in`);
      await tick();
      await tick();
      events.push(`${name} out`);
      return name;
    });
  const results = await Promise.all([hold('a', 1), hold('b', 1), hold('c', 2), hold('d', 1, {})]);
  assert.deepEqual(results, ['a', 'b', 'c', 'd']);
  // b enters only after a left; c (another key) and d (another owner) run beside a.
  assert.ok(events.indexOf('b in') > events.indexOf('a out'));
  assert.ok(events.indexOf('c in') < events.indexOf('a out'));
  assert.ok(events.indexOf('d in') < events.indexOf('a out'));
});

test('a holder that throws releases the lock for the next one', async () => {
  const owner = {};
  await assert.rejects(
    withProcessLock(owner, 7, async () => {
      throw new Error('migration failed');
    }),
    /migration failed/,
  );
  assert.equal(await withProcessLock(owner, 7, async () => 'next'), 'next');
});
