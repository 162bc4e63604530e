import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fuseRankedLists, type RankedList, RRF_K } from './fusion.js';
import { FULL_SEARCH, mergeRankedLists, searchComponents } from './search-components.js';

const LISTS: RankedList[] = [
  { name: 'fulltext', ids: ['a', 'b', 'c'] },
  { name: 'trigram', ids: ['d', 'c'] },
  { name: 'vector', ids: ['d', 'e', 'a'] },
];

describe('search components', () => {
  test('absent overrides are the full search, the same object every time', () => {
    assert.equal(searchComponents(), FULL_SEARCH);
    assert.equal(searchComponents(undefined), FULL_SEARCH);
    assert.deepEqual(searchComponents({ trigram: true }), { ...FULL_SEARCH, trigram: true });
    assert.equal(FULL_SEARCH.trigram, false, 'overrides never change the defaults');
    assert.equal(FULL_SEARCH.ranking, 'bm25');
    assert.ok(Object.isFrozen(FULL_SEARCH));
  });

  test('rrf merging is reciprocal rank fusion, unchanged', () => {
    assert.deepEqual(mergeRankedLists(LISTS, 'rrf'), fuseRankedLists(LISTS));
    // d is in two lists at ranks 1 and 1: it beats a (ranks 1 and 3).
    assert.deepEqual(
      mergeRankedLists(LISTS, 'rrf').map((hit) => hit.id),
      ['d', 'a', 'c', 'b', 'e'],
    );
  });

  test('concatenation keeps the full-text order and fills from the next lists', () => {
    const merged = mergeRankedLists(LISTS, 'concatenate');
    assert.deepEqual(
      merged.map((hit) => hit.id),
      ['a', 'b', 'c', 'd', 'e'],
    );
    assert.deepEqual(merged[0]?.ranks, { fulltext: 1, vector: 3 }, 'every list still reports its rank');
    const scores = merged.map((hit) => hit.score);
    assert.deepEqual(
      scores,
      [...scores].sort((x, y) => y - x),
      'scores fall with the position',
    );
  });

  test('weighted fusion scales what the trigram and vector lists add', () => {
    const merged = mergeRankedLists(LISTS, 'rrf', { trigram: 0.25, vector: 0.25 });
    // d (trigram 1, vector 1) no longer beats a (full-text 1, vector 3), nor b (full-text 2);
    // c (full-text 3, trigram 2) still passes b.
    assert.deepEqual(
      merged.map((hit) => hit.id),
      ['a', 'c', 'b', 'd', 'e'],
    );
    assert.equal(merged[0]?.score, 1 / (RRF_K + 1) + 0.25 / (RRF_K + 3));
    assert.deepEqual(mergeRankedLists(LISTS, 'rrf', { trigram: 1, vector: 1 }), fuseRankedLists(LISTS));
  });
});
