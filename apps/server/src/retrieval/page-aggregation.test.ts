import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FusedHit } from './fusion.js';
import { aggregatePages } from './page-aggregation.js';

const hit = (id: string, score: number): FusedHit => ({ id, score, ranks: { fulltext: 1 } });

/** Chunks a1..a3 on page A, b1 on page B, c1 on page C. */
const PAGES = new Map([
  ['a1', 'A'],
  ['a2', 'A'],
  ['a3', 'A'],
  ['b1', 'B'],
  ['c1', 'C'],
]);

describe('page aggregation', () => {
  test('several matching chunks lift their page above a single slightly better chunk', () => {
    const fused = [hit('b1', 0.02), hit('a1', 0.018), hit('c1', 0.017), hit('a2', 0.016), hit('a3', 0.015)];
    const ranked = aggregatePages(fused, PAGES, 0.5);
    assert.deepEqual(
      ranked.map((h) => h.id),
      ['a1', 'b1', 'c1', 'a2', 'a3'],
      'the page of a1 comes first, its other chunks keep their own place',
    );
    assert.ok(Math.abs((ranked[0]?.score ?? 0) - (0.018 + 0.016 * 0.5 + 0.015 * 0.25)) < 1e-12);
    assert.equal(ranked[1]?.score, 0.02, 'a page of one chunk keeps its score');
    const scores = ranked.map((h) => h.score);
    assert.deepEqual(
      scores,
      [...scores].sort((x, y) => y - x),
      'scores fall with the position',
    );
  });

  test('the lift stays below the best chunk: many weak chunks never beat a strong one', () => {
    const many = new Map<string, string>([['s', 'S']]);
    const fused = [hit('s', 0.03)];
    for (let i = 0; i < 40; i += 1) {
      many.set(`w${i}`, 'W');
      fused.push(hit(`w${i}`, 0.0149));
    }
    const ranked = aggregatePages(fused, many, 0.5);
    assert.equal(ranked[0]?.id, 's');
    assert.ok((ranked[1]?.score ?? 1) < 0.0149 * 2);
  });

  test('a decay outside (0, 1) changes nothing', () => {
    const fused = [hit('b1', 0.02), hit('a1', 0.018), hit('a2', 0.016)];
    for (const decay of [0, 1, -1, Number.NaN]) {
      assert.deepEqual(aggregatePages(fused, PAGES, decay), fused);
    }
  });

  test('a chunk with no known document is a page of its own', () => {
    const fused = [hit('x', 0.02), hit('y', 0.019)];
    assert.deepEqual(
      aggregatePages(fused, new Map(), 0.5).map((h) => h.id),
      ['x', 'y'],
    );
  });
});
