import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../errors/app-error.js';
import {
  isExpectedHit,
  MAX_GOLDEN_QUESTIONS,
  normaliseText,
  normaliseUrl,
  parseGoldenSet,
  type QuestionScore,
  type RankedHit,
  scoreRanking,
  summarise,
} from './evaluate.js';

const hit = (content: string, url: string | null = null): RankedHit => ({ content, url });
const text = (expected_text: string) => ({ question: 'q', expected_text });
const url = (expected_url: string) => ({ question: 'q', expected_url });

/** Hits where only position `at` (1-based) holds the answer. */
function rankingWithAnswerAt(at: number, length: number = 12): RankedHit[] {
  return Array.from({ length }, (_, index) => hit(index + 1 === at ? 'the ANSWER here' : `other ${index}`));
}

describe('normaliseUrl / normaliseText', () => {
  test('a trailing slash, host case and default port do not matter; the path does', () => {
    assert.equal(normaliseUrl('https://Shop.Example.com:443/returns/'), 'https://shop.example.com/returns');
    assert.equal(normaliseUrl('https://shop.example.com/'), normaliseUrl('https://shop.example.com'));
    assert.equal(normaliseUrl(' /relative/path// '), '/relative/path');
    assert.notEqual(normaliseUrl('https://x.test/a'), normaliseUrl('https://x.test/a/b'));
    assert.notEqual(normaliseUrl('https://x.test/a?p=1'), normaliseUrl('https://x.test/a?p=2'));
  });

  test('text is lower-cased, NFKC-normalised and whitespace-collapsed', () => {
    assert.equal(normaliseText('  Free\n\tRETURNS  within\u00a030 days '), 'free returns within 30 days');
    assert.equal(normaliseText('ﬁt'), 'fit');
  });
});

describe('isExpectedHit', () => {
  test('expected_text matches a chunk containing it, case- and whitespace-insensitively', () => {
    assert.ok(isExpectedHit(text('within 30   DAYS'), hit('Return shoes within\n30 days of delivery.')));
    assert.ok(!isExpectedHit(text('within 31 days'), hit('Return shoes within 30 days.')));
  });

  test('expected_url matches the document url with or without a trailing slash; no url is no match', () => {
    assert.ok(isExpectedHit(url('https://x.test/returns/'), hit('', 'https://x.test/returns')));
    assert.ok(isExpectedHit(url('https://x.test/returns'), hit('', 'https://x.test/returns/')));
    assert.ok(!isExpectedHit(url('https://x.test/returns'), hit('https://x.test/returns', null)));
    assert.ok(!isExpectedHit(url('https://x.test/returns'), hit('', 'https://x.test/shipping')));
  });

  test('a page set matches a hit on any of its URLs or document ids, and nothing else', () => {
    const pages = {
      question: 'q',
      expected_urls: ['https://x.test/returns', 'https://x.test/refunds/'],
      expected_document_ids: ['doc-7'],
    };
    assert.ok(isExpectedHit(pages, hit('', 'https://X.test/refunds')));
    assert.ok(isExpectedHit(pages, { content: '', url: null, document_id: 'doc-7' }));
    assert.ok(!isExpectedHit(pages, { content: 'https://x.test/returns', url: null, document_id: 'doc-8' }));
    assert.ok(!isExpectedHit(pages, hit('', 'https://x.test/returns/extra')));
  });
});

describe('scoreRanking', () => {
  test('the first matching hit gives the rank; reciprocal rank is 1/rank', () => {
    assert.deepEqual(scoreRanking(text('answer'), rankingWithAnswerAt(1)), {
      rank: 1,
      hit_at_1: true,
      hit_at_5: true,
      reciprocal_rank: 1,
    });
    assert.deepEqual(scoreRanking(text('answer'), rankingWithAnswerAt(2)), {
      rank: 2,
      hit_at_1: false,
      hit_at_5: true,
      reciprocal_rank: 0.5,
    });
    const twice = [hit('x'), hit('answer'), hit('answer')];
    assert.equal(scoreRanking(text('answer'), twice).rank, 2);
  });

  test('recall@5 edge: rank 5 is in, rank 6 is out', () => {
    assert.equal(scoreRanking(text('answer'), rankingWithAnswerAt(5)).hit_at_5, true);
    const six = scoreRanking(text('answer'), rankingWithAnswerAt(6));
    assert.equal(six.hit_at_5, false);
    assert.equal(six.reciprocal_rank, 1 / 6);
  });

  test('MRR edge: rank 10 counts, rank 11 is 0 (but keeps its rank)', () => {
    assert.equal(scoreRanking(text('answer'), rankingWithAnswerAt(10)).reciprocal_rank, 0.1);
    const eleven = scoreRanking(text('answer'), rankingWithAnswerAt(11));
    assert.equal(eleven.rank, 11);
    assert.equal(eleven.reciprocal_rank, 0);
  });

  test('not found, or no hits at all: rank null and zeros', () => {
    const none = { rank: null, hit_at_1: false, hit_at_5: false, reciprocal_rank: 0 };
    assert.deepEqual(scoreRanking(text('missing'), rankingWithAnswerAt(3)), none);
    assert.deepEqual(scoreRanking(text('missing'), []), none);
  });
});

describe('summarise', () => {
  test('averages recall@1, recall@5 and MRR over all questions, rounded to 4 decimals', () => {
    const scores: QuestionScore[] = [1, 2, 6, 11, null].map((at) =>
      scoreRanking(text('answer'), at === null ? [] : rankingWithAnswerAt(at)),
    );
    // MRR = (1 + 1/2 + 1/6 + 0 + 0) / 5 = 0.3333…
    assert.deepEqual(summarise(scores), { questions: 5, recall_at_1: 0.2, recall_at_5: 0.4, mrr: 0.3333 });
  });

  test('no questions: all zeros, no NaN', () => {
    assert.deepEqual(summarise([]), { questions: 0, recall_at_1: 0, recall_at_5: 0, mrr: 0 });
  });

  test('a perfect ranking is 1 everywhere', () => {
    const scores = [scoreRanking(text('answer'), rankingWithAnswerAt(1))];
    assert.deepEqual(summarise(scores), { questions: 1, recall_at_1: 1, recall_at_5: 1, mrr: 1 });
  });
});

describe('parseGoldenSet', () => {
  function problemsOf(input: string): string[] {
    try {
      parseGoldenSet(input);
    } catch (error) {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'validation_failed');
      return error.errors.golden ?? [];
    }
    assert.fail('expected the golden set to be refused');
  }

  test('parses JSON lines, skipping blank lines and a BOM, with CRLF endings', () => {
    const questions = parseGoldenSet(
      '\uFEFF{"id":"a","question":" Where? ","expected_text":"here"}\r\n\r\n{"question":"Which?","expected_url":"https://x.test/"}\r\n',
    );
    assert.deepEqual(questions, [
      { id: 'a', question: 'Where?', expected_text: 'here' },
      { question: 'Which?', expected_url: 'https://x.test/' },
    ]);
  });

  test('every bad line is named by its number', () => {
    const problems = problemsOf(
      [
        '{"question":"ok","expected_text":"x"}',
        '{"question": "unterminated',
        '["an","array"]',
        '{"question":42,"expected_text":"x"}',
        '{"question":"both","expected_text":"x","expected_url":"https://x.test"}',
        '{"question":"neither"}',
        '{"question":"empty text","expected_text":" "}',
      ].join('\n'),
    );
    assert.equal(problems.length, 6, problems.join('\n'));
    assert.match(problems[0] ?? '', /^line 2: not valid JSON/);
    assert.match(problems[1] ?? '', /^line 3: /);
    assert.match(problems[2] ?? '', /^line 4: question: /);
    assert.match(
      problems[3] ?? '',
      /^line 5: needs exactly one of expected_url, expected_text or expected_urls\/expected_document_ids$/,
    );
    assert.match(
      problems[4] ?? '',
      /^line 6: needs exactly one of expected_url, expected_text or expected_urls\/expected_document_ids$/,
    );
    assert.match(problems[5] ?? '', /^line 7: expected_text: must not be empty$/);
  });

  test('an empty set is refused; the question count is capped at its edge', () => {
    assert.match(problemsOf(' \n\n')[0] ?? '', /no questions/);
    const line = '{"question":"q","expected_text":"x"}\n';
    assert.equal(parseGoldenSet(line.repeat(MAX_GOLDEN_QUESTIONS)).length, MAX_GOLDEN_QUESTIONS);
    assert.match(problemsOf(line.repeat(MAX_GOLDEN_QUESTIONS + 1))[0] ?? '', /at most/);
  });
});
