import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { regressionsOf } from './evaluation-runs.js';

const result = (golden_id: string, rank: number | null) => ({ golden_id, question: `q ${golden_id}`, rank });

describe('regressionsOf: items that passed (rank ≤ 5) before and fail now', () => {
  test('rank 5 passes and rank 6 fails: 5 → 6 is a regression, 6 → null is not', () => {
    const previous = [result('a', 5), result('b', 6), result('c', 1)];
    const current = [result('a', 6), result('b', null), result('c', 2)];
    assert.deepEqual(regressionsOf(previous, current), [{ ...result('a', 6), previous_rank: 5 }]);
  });

  test('a pass that is no longer retrieved at all is a regression; a new item is not', () => {
    const previous = [result('a', 1)];
    const current = [result('a', null), result('new', null)];
    assert.deepEqual(regressionsOf(previous, current), [{ ...result('a', null), previous_rank: 1 }]);
  });

  test('an item deleted since the previous run, or still passing, is not a regression', () => {
    assert.deepEqual(regressionsOf([result('gone', 1), result('b', 3)], [result('b', 5)]), []);
    assert.deepEqual(regressionsOf([], [result('a', null)]), []);
  });
});
