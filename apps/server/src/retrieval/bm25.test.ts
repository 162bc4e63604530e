import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CANDIDATE_BUDGET, candidateTerms, liftPages } from './bm25.js';
import { withoutLetters } from './bm25-lists.js';
import { type Bm25Term, idf } from './bm25-terms.js';

const term = (word: string, df: number): Bm25Term => ({
  word,
  tsquery: `'${word}'`,
  df,
  idf: idf(1000, df),
  corrected: false,
});

describe('BM25 pieces', () => {
  test('IDF falls as a word gets common and stays positive', () => {
    assert.ok(idf(1000, 1) > idf(1000, 10));
    assert.ok(idf(1000, 10) > idf(1000, 500));
    assert.ok(idf(1000, 1000) > 0);
    // A stale chunk count below a word's frequency cannot make it negative.
    assert.ok(idf(10, 50) > 0);
  });

  test('single letters are left out of the words searched for, a lone digit is kept', () => {
    assert.deepEqual(withoutLetters(['sqlite3', 'prompt', 'i', 'm']), ['sqlite3', 'prompt']);
    assert.deepEqual(withoutLetters(['result', 'code', '5']), ['result', 'code', '5']);
    assert.deepEqual(withoutLetters(['usunąć', 'z', 'tabeli', 'é']), ['usunąć', 'tabeli']);
    // Nothing else left: the letters are the query.
    assert.deepEqual(withoutLetters(['x', 'y']), ['x', 'y']);
  });

  test('candidates: rarest words first, within the budget, at least one word', () => {
    const terms = [term('common', CANDIDATE_BUDGET), term('rare', 3), term('mid', 200)];
    assert.deepEqual(
      candidateTerms(terms).map((t) => t.word),
      ['rare', 'mid'],
    );
    assert.deepEqual(
      candidateTerms([term('common', CANDIDATE_BUDGET * 2)]).map((t) => t.word),
      ['common'],
    );
  });

  test("page lift: a page's other chunks lift its best one; strict matches stay first", () => {
    const rows = [
      { id: 'single', document_id: 'p1', strict: false, score: 3 },
      { id: 'a', document_id: 'p2', strict: false, score: 2 },
      { id: 'b', document_id: 'p2', strict: false, score: 2 },
      { id: 'c', document_id: 'p2', strict: false, score: 2 },
      { id: 'strict', document_id: 'p3', strict: true, score: 0.1 },
    ];
    assert.deepEqual(liftPages(rows, 0), ['strict', 'single', 'a', 'b', 'c']);
    // 2 + 1 + 0.5 = 3.5 > 3: page p2's best chunk first; its others keep their score.
    assert.deepEqual(liftPages(rows, 0.5), ['strict', 'a', 'single', 'b', 'c']);
  });
});
