import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { typingSlips, vocabularyWords } from './vocabulary.js';

describe('typing slips: the words a typo was likely meant to be', () => {
  test('a letter left out, two letters swapped, a letter typed twice, a neighbouring key', () => {
    assert.ok(typingSlips('partal').includes('partial'));
    assert.ok(typingSlips('colum').includes('column'));
    assert.ok(typingSlips('veiw').includes('view'));
    assert.ok(typingSlips('verison').includes('version'));
    assert.ok(typingSlips('sqllite').includes('sqlite'));
    assert.ok(typingSlips('indez').includes('index'), 'z is next to x');
  });

  test('not any edit: a key far away, or a letter too many that was not doubled', () => {
    assert.equal(typingSlips('shop').includes('show'), false, 'p is not next to w');
    assert.equal(typingSlips('replay').includes('reply'), false);
    assert.equal(typingSlips('preview').includes('review'), false);
  });

  test('short and very long words get none; the word itself is never among them', () => {
    assert.deepEqual(typingSlips('abc'), []);
    assert.deepEqual(typingSlips('a'.repeat(21)), []);
    assert.equal(typingSlips('view').includes('view'), false);
    assert.equal(typingSlips('book').includes('book'), false);
  });

  test("a word's own letters are tried where it has letters beyond a to z", () => {
    assert.ok(typingSlips('müncen').includes('münchen'));
    assert.ok(typingSlips('mnüchen').includes('münchen'));
    assert.ok(typingSlips('münnchen').includes('münchen'));
  });

  test('vocabulary words are lower case runs of letters and digits within the length bounds', () => {
    assert.deepEqual(vocabularyWords('A View, a VIEW; x-ray 3.14 and Übergabe'), [
      'view',
      'ray',
      'and',
      'übergabe',
    ]);
  });
});
