import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fuseRankedLists, RRF_K } from './fusion.js';
import { eitherForm } from './lexical.js';
import { normalizeQuery, orTsQuery, queryTerms, usesSearchOperators } from './query-terms.js';

describe('search query sanitizer', () => {
  test('keeps only words: letters, marks and digits, lower case, de-duplicated', () => {
    assert.deepEqual(queryTerms('Refund POLICY refund, 30 days!'), ['refund', 'policy', '30', 'days']);
    assert.deepEqual(queryTerms("it's the customer's"), ['it', 's', 'the', 'customer']);
    assert.deepEqual(queryTerms('Rückgabe Größe 退货政策 возврат'), [
      'rückgabe',
      'größe',
      '退货政策',
      'возврат',
    ]);
    assert.deepEqual(queryTerms('e\u0301t\u00e9'), ['été'], 'NFKC composes the accent');
    assert.deepEqual(queryTerms('ﬁle'), ['file'], 'NFKC unfolds ligatures');
  });

  test('drops every tsquery operator, quote, backslash and weight', () => {
    for (const hostile of [
      "'); drop table chunks; --",
      'a & | ! :* <->',
      "refund' | 'x':* & !(",
      '\\ \\\\ \' " `  $$ $1 %s %',
      'warranty:A & shipping:*B <2> <-> !!',
    ]) {
      for (const term of queryTerms(hostile)) assert.match(term, /^[\p{L}\p{M}\p{N}]+$/u, hostile);
      const or = orTsQuery(hostile);
      if (or !== null) assert.match(or, /^'[\p{L}\p{M}\p{N}]+'(?: \| '[\p{L}\p{M}\p{N}]+')*$/u, hostile);
    }
    assert.equal(orTsQuery("'); drop table chunks; --"), "'drop' | 'table' | 'chunks'");
    assert.equal(orTsQuery('a & | ! :* <->'), "'a'");
  });

  test('a query without words has no OR form', () => {
    for (const empty of [
      '',
      '   ',
      '!!! ??? ---',
      '🙂👍🏽',
      '& | ! :* <->'.replace('a', ''),
      '\u0000\u001f',
    ]) {
      assert.equal(orTsQuery(empty), null, JSON.stringify(empty));
    }
  });

  test('caps the number of terms and drops over-long ones', () => {
    const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    assert.equal(queryTerms(many).length, 32);
    assert.deepEqual(queryTerms(`${'x'.repeat(65)} ok ${'y'.repeat(64)}`), ['ok', 'y'.repeat(64)]);
  });

  test('normalizeQuery removes control characters and collapses whitespace', () => {
    assert.equal(normalizeQuery('  a\u0000b \t\n c\u007f\u0085d  '), 'a b c d');
    assert.equal(normalizeQuery('\u0000'), '');
  });
});

describe('search operators', () => {
  test('phrases, exclusions and or between words are websearch syntax', () => {
    for (const query of [
      '"alpha bravo"',
      'alpha -bravo',
      '-bravo',
      'alpha or bravo',
      'alpha OR bravo',
      'or bravo',
    ]) {
      assert.equal(usesSearchOperators(query), true, query);
    }
  });

  test('plain questions, hyphenated words and words containing "or" are not', () => {
    for (const query of [
      'how do I store dates',
      'built-in functions',
      'error code 5 - what now',
      'order for more colors',
      'a-b',
      '',
    ]) {
      assert.equal(usesSearchOperators(query), false, query);
    }
  });
});

describe('reciprocal rank fusion', () => {
  test('sums 1/(k + rank) over the lists and records each rank', () => {
    const fused = fuseRankedLists([
      { name: 'fulltext', ids: ['a', 'b', 'c'] },
      { name: 'trigram', ids: ['c', 'a'] },
    ]);
    assert.deepEqual(
      fused.map((hit) => hit.id),
      ['a', 'c', 'b'],
    );
    assert.deepEqual(fused[0], {
      id: 'a',
      score: 1 / (RRF_K + 1) + 1 / (RRF_K + 2),
      ranks: { fulltext: 1, trigram: 2 },
    });
    assert.deepEqual(fused[2], { id: 'b', score: 1 / (RRF_K + 2), ranks: { fulltext: 2 } });
  });

  test('ties break by best single rank, then id; duplicates in a list count once', () => {
    const fused = fuseRankedLists([
      { name: 'fulltext', ids: ['z', 'y', 'z'] },
      { name: 'trigram', ids: ['y', 'z'] },
    ]);
    assert.deepEqual(
      fused.map((hit) => [hit.id, hit.ranks]),
      [
        ['y', { fulltext: 2, trigram: 1 }],
        ['z', { fulltext: 1, trigram: 2 }],
      ],
    );
    assert.deepEqual(fuseRankedLists([]), []);
    assert.deepEqual(
      fuseRankedLists([
        { name: 'fulltext', ids: ['b'] },
        { name: 'trigram', ids: ['a'] },
      ]).map((hit) => hit.id),
      ['a', 'b'],
    );
  });
});

describe('tsquery forms', () => {
  test('a word whose simple and stemmed forms agree is written once', () => {
    assert.equal(eitherForm("'refund'", "'refund'"), "'refund'");
    assert.equal(eitherForm("'policy'", "'polici'"), "('policy') | ('polici')");
    assert.equal(eitherForm("'the'", ''), "'the'", 'a stop word has only its simple form');
    assert.equal(eitherForm('', ''), '');
    assert.equal(
      eitherForm("'gift' & 'card'", "'gift' & 'card'"),
      "'gift' & 'card'",
      'a whole strict query too',
    );
  });
});
