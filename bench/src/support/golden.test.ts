import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pageOf, parseGolden, rankOf, rankPages, readGolden, scoreRanks } from './golden.js';

const ROOT = 'http://127.0.0.1:4300';

/** Four hand-made questions of two kinds. */
const SET = [
  '{"id":"q1","kind":"fact","question":"a?","expected_url":"a.html","also_ok":["c3ref/a.html"]}',
  '',
  '{"id":"q2","kind":"fact","question":"b?","expected_url":"b.html","also_ok":[]}',
  '{"id":"q3","kind":"typo","question":"c?","expected_url":"c.html","also_ok":[]}',
  '{"id":"q4","kind":"typo","question":"d?","expected_url":"d.html"}',
].join('\n');

describe('golden set metrics', () => {
  test('pages are paths below the corpus root; other hosts and bad URLs are no page', () => {
    assert.equal(pageOf(`${ROOT}/lang_vacuum.html`, ROOT), 'lang_vacuum.html');
    assert.equal(pageOf(`${ROOT}/c3ref/open.html#x`, `${ROOT}/`), 'c3ref/open.html');
    assert.equal(pageOf(`${ROOT}/`, ROOT), 'index.html');
    assert.equal(pageOf(`${ROOT}/a%20b.html`, ROOT), 'a b.html');
    assert.equal(pageOf('http://127.0.0.1:9999/a.html', ROOT), null);
    assert.equal(pageOf('not a url', ROOT), null);
    assert.equal(pageOf(null, ROOT), null);
  });

  test('ranks distinct pages and finds the first acceptable one', () => {
    const [q1] = parseGolden(SET);
    assert.ok(q1);
    assert.deepEqual(q1.ok, ['a.html', 'c3ref/a.html']);
    const pages = rankPages(
      [
        `${ROOT}/x.html`,
        `${ROOT}/x.html`,
        'https://else.example/a.html',
        `${ROOT}/c3ref/a.html`,
        `${ROOT}/a.html`,
      ],
      ROOT,
    );
    assert.deepEqual(pages, ['x.html', 'c3ref/a.html', 'a.html']);
    assert.equal(rankOf(q1, pages), 2, 'also_ok counts, chunks of one page count once');
    assert.equal(rankOf(q1, ['x.html', 'y.html']), null);
  });

  test('recall@1, recall@5 and MRR@10 per kind and overall', () => {
    const questions = parseGolden(SET);
    // q1 at rank 1, q2 at rank 3, q3 at rank 7 (not in the top 5, in MRR@10), q4 not found.
    const scores = scoreRanks(questions, [1, 3, 7, null]);
    assert.deepEqual([...scores.keys()], ['fact', 'typo', 'overall']);
    assert.deepEqual(scores.get('fact'), { n: 2, recall1: 0.5, recall5: 1, mrr10: (1 + 1 / 3) / 2 });
    assert.deepEqual(scores.get('typo'), { n: 2, recall1: 0, recall5: 0, mrr10: 1 / 7 / 2 });
    const overall = scores.get('overall');
    assert.equal(overall?.n, 4);
    assert.equal(overall?.recall1, 0.25);
    assert.equal(overall?.recall5, 0.5);
    assert.ok(Math.abs((overall?.mrr10 ?? 0) - (1 + 1 / 3 + 1 / 7) / 4) < 1e-12);
    // Rank 11 is outside MRR@10.
    assert.equal(scoreRanks(questions.slice(0, 1), [11]).get('overall')?.mrr10, 0);
  });

  test('refuses a line without question or expected_url', () => {
    assert.throws(() => parseGolden('{"id":"x","question":"q"}'), /line 1: needs question and expected_url/);
    assert.throws(() => parseGolden('not json'), SyntaxError);
  });

  test('the committed SQLite set has 80 questions of five kinds', () => {
    const file = join(fileURLToPath(new URL('.', import.meta.url)), '../../golden/sqlite/sqlite-docs.jsonl');
    const questions = readGolden(file);
    assert.equal(questions.length, 80);
    const kinds = new Map<string, number>();
    for (const q of questions) kinds.set(q.kind, (kinds.get(q.kind) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(kinds), {
      fact: 20,
      howto: 20,
      typo: 15,
      paraphrase: 15,
      multilingual: 10,
    });
  });
});
