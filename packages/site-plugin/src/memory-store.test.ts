import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryStore } from './memory-store.js';

function clock(start = Date.UTC(2026, 10, 2, 10)) {
  let current = start;
  return {
    now: () => new Date(current),
    advance(seconds: number) {
      current += seconds * 1000;
    },
  };
}

describe('createMemoryStore', () => {
  it('sets, gets and deletes', async () => {
    const store = createMemoryStore();
    assert.equal(await store.get('a'), null);
    await store.set('a', '1');
    assert.equal(await store.get('a'), '1');
    await store.set('a', '2');
    assert.equal(await store.get('a'), '2');
    await store.delete('a');
    assert.equal(await store.get('a'), null);
  });

  it('expires a key at its TTL by the injected clock (ttl - 1 s present, ttl gone)', async () => {
    const time = clock();
    const store = createMemoryStore({ now: time.now });
    await store.set('k', 'v', 900);
    time.advance(899);
    assert.equal(await store.get('k'), 'v');
    time.advance(1);
    assert.equal(await store.get('k'), null);
  });

  it('keeps a key without TTL', async () => {
    const time = clock();
    const store = createMemoryStore({ now: time.now });
    await store.set('k', 'v');
    time.advance(365 * 24 * 3600);
    assert.equal(await store.get('k'), 'v');
  });

  it('take reads once and deletes', async () => {
    const time = clock();
    const store = createMemoryStore({ now: time.now });
    await store.set('k', 'v', 60);
    assert.equal(await store.take('k'), 'v');
    assert.equal(await store.take('k'), null);
    assert.equal(await store.get('k'), null);
    await store.set('old', 'v', 60);
    time.advance(61);
    assert.equal(await store.take('old'), null);
  });

  it('sweeps expired keys so it cannot grow without bound', async () => {
    const time = clock();
    const store = createMemoryStore({ now: time.now });
    for (let i = 0; i < 5000; i += 1) await store.set(`a${i}`, 'v', 10);
    assert.ok(store.size() <= 5000);
    time.advance(11);
    // A write after the interval sweeps every expired key, even ones never read again.
    time.advance(60);
    await store.set('fresh', 'v', 10);
    assert.equal(store.size(), 1);
  });

  it('sweeps by size too: a burst of short-lived keys stays bounded without the clock moving a minute', async () => {
    const time = clock();
    const store = createMemoryStore({ now: time.now });
    let largest = 0;
    for (let round = 0; round < 20; round += 1) {
      for (let i = 0; i < 500; i += 1) await store.set(`r${round}-${i}`, 'v', 1);
      time.advance(2);
      largest = Math.max(largest, store.size());
    }
    assert.ok(largest <= 2048 + 500, `size reached ${largest}`);
  });
});
