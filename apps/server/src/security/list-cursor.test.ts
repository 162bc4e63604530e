import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { newId } from './ids.js';
import { decodeListCursor, encodeListCursor, listCursorKey } from './list-cursor.js';

describe('list cursors', () => {
  const key = listCursorKey(randomBytes(32));
  const binding = { list: 'sources', workspaceId: newId(), parentId: newId() };
  const lastId = newId();

  test('a cursor decodes to its id under the same key and binding', () => {
    assert.equal(decodeListCursor(key, binding, encodeListCursor(key, binding, lastId)), lastId);
  });

  test('another list, workspace, parent or key refuses it', () => {
    const cursor = encodeListCursor(key, binding, lastId);
    for (const other of [
      { ...binding, list: 'api_tokens' },
      { ...binding, workspaceId: newId() },
      { ...binding, parentId: newId() },
      { list: binding.list, workspaceId: binding.workspaceId },
    ]) {
      assert.equal(decodeListCursor(key, other, cursor), null, JSON.stringify(other));
    }
    assert.equal(decodeListCursor(listCursorKey(randomBytes(32)), binding, cursor), null);
  });

  test('every other spelling of the MAC is refused (base64url spare bits included)', () => {
    const cursor = encodeListCursor(key, binding, lastId);
    const [id = '', mac = ''] = cursor.split('.');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // The last character holds 2 spare bits: 3 of its 63 other spellings decode to the same bytes.
    const accepted = [...alphabet]
      .filter((c) => c !== mac.at(-1))
      .filter((c) => decodeListCursor(key, binding, `${id}.${mac.slice(0, -1)}${c}`) !== null);
    assert.deepEqual(accepted, []);
  });

  test('the id part must be an id: the MAC of a real id does not carry to another', () => {
    const cursor = encodeListCursor(key, binding, lastId);
    const mac = cursor.split('.')[1] ?? '';
    assert.equal(decodeListCursor(key, binding, `${newId()}.${mac}`), null);
    assert.equal(decodeListCursor(key, binding, `${lastId.toLowerCase()}.${mac}`), null);
    assert.equal(decodeListCursor(key, binding, ''), null);
  });
});
