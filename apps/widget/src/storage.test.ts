/// <reference types="node" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHTML } from 'linkedom';
import { ANON_KEY, loadAnonId, newAnonId, writeConversationCookie } from './storage.js';

/** A Storage backed by a Map. */
function memoryStorage(): Storage {
  const map = new Map<string, string>();
  return {
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (key) => map.get(key) ?? null,
    key: (index) => [...map.keys()][index] ?? null,
    removeItem: (key) => map.delete(key),
    setItem: (key, value) => map.set(key, value),
  };
}

describe('anon id', () => {
  it('is 24 url-safe characters from the random source', () => {
    const id = newAnonId();
    assert.match(id, /^[A-Za-z0-9_-]{24}$/);
    assert.notEqual(newAnonId(), id);
    assert.equal(newAnonId(new Uint8Array(24).fill(255)), '_'.repeat(24));
  });

  it('is stored under svc_anon_id and reused', () => {
    const storage = memoryStorage();
    const first = loadAnonId(() => storage);
    assert.equal(storage.getItem(ANON_KEY), first);
    assert.equal(
      loadAnonId(() => storage),
      first,
    );
  });

  it('replaces a malformed stored id', () => {
    const storage = memoryStorage();
    storage.setItem(ANON_KEY, 'bad id!');
    const id = loadAnonId(() => storage);
    assert.match(id, /^[A-Za-z0-9_-]{24}$/);
  });

  it('works in memory when storage is blocked', () => {
    const id = loadAnonId(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    assert.match(id, /^[A-Za-z0-9_-]{24}$/);
  });
});

describe('conversation cookie', () => {
  it('writes svc_conversation with the documented attributes', () => {
    const { document } = parseHTML('<html></html>');
    const written: string[] = [];
    Object.defineProperty(document, 'cookie', { set: (v: string) => written.push(v), get: () => '' });
    Object.defineProperty(document, 'location', { value: { protocol: 'https:' } });
    writeConversationCookie(document, 'conv_01');
    writeConversationCookie(document, '');
    assert.deepEqual(written, [
      'svc_conversation=conv_01; Path=/; Max-Age=86400; SameSite=Lax; Secure',
      'svc_conversation=; Path=/; Max-Age=0; SameSite=Lax; Secure',
    ]);
  });

  it('never throws when cookies are blocked', () => {
    const { document } = parseHTML('<html></html>');
    Object.defineProperty(document, 'cookie', {
      set: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    });
    assert.doesNotThrow(() => writeConversationCookie(document, 'c'));
  });
});
