import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  composeOfflineAnswer,
  MAX_OFFLINE_ANSWER_CHARS,
  type OfflinePassage,
  requiredMatches,
} from './offline-answer.js';

const RETURNS: OfflinePassage = {
  id: 1,
  title: 'Returns policy',
  url: 'https://shop.example.com/returns',
  content:
    'We want you to be happy. Unused items can be returned within 30 days of delivery for a full refund. ' +
    'Refunds are paid to the original payment method within five working days.\nContact us anytime.',
  fromText: true,
};
const SHIPPING: OfflinePassage = {
  id: 2,
  title: 'Shipping',
  url: null,
  content: 'Orders ship from Lisbon. Shipping to Canada takes seven to ten working days.',
  fromText: true,
};

describe('composeOfflineAnswer', () => {
  test('quotes the matching sentence verbatim with its citation after the fixed lead-in', () => {
    const answer = composeOfflineAnswer({
      question: 'How many days do I have to return an item?',
      passages: [RETURNS],
    });
    assert.ok(answer);
    const lines = answer.text.split('\n');
    assert.equal(lines[0], 'Here is what I found:');
    assert.ok(
      lines.includes('“Unused items can be returned within 30 days of delivery for a full refund.” [1]'),
      answer.text,
    );
    assert.deepEqual(answer.cited, [1]);
    // Every line after the lead-in is a verbatim sentence of a passage.
    for (const line of lines.slice(1)) {
      const quoted = /^“(.+)” \[(\d+)\]$/.exec(line);
      assert.ok(quoted?.[1], line);
      assert.ok(RETURNS.content.includes(quoted[1]) || SHIPPING.content.includes(quoted[1]), line);
    }
  });

  test('cites each passage it quotes, best passage first', () => {
    const answer = composeOfflineAnswer({
      question: 'refund and shipping to Canada',
      passages: [SHIPPING, RETURNS],
    });
    assert.ok(answer);
    assert.match(answer.text, /“Shipping to Canada takes seven to ten working days\.” \[2\]/);
    assert.equal(answer.cited[0], 2);
    assert.ok(answer.text.length <= MAX_OFFLINE_ANSWER_CHARS);
  });

  test('an unrelated question gets null (the caller says it does not know)', () => {
    assert.equal(
      composeOfflineAnswer({ question: 'Do you repair bicycles?', passages: [RETURNS, SHIPPING] }),
      null,
    );
    assert.equal(
      composeOfflineAnswer({ question: 'what is it?', passages: [RETURNS] }),
      null,
      'function words only',
    );
    assert.equal(composeOfflineAnswer({ question: 'refund', passages: [] }), null);
  });

  test('vector-only passages are no evidence', () => {
    const vectorOnly = { ...RETURNS, fromText: false };
    assert.equal(composeOfflineAnswer({ question: 'return within 30 days?', passages: [vectorOnly] }), null);
    const answer = composeOfflineAnswer({
      question: 'return within 30 days?',
      passages: [vectorOnly, { ...RETURNS, id: 5 }],
    });
    assert.deepEqual(answer?.cited, [5]);
  });

  test('coverage threshold at its edge: 2 of 4 content words answer, 1 of 4 does not', () => {
    assert.deepEqual([1, 2, 3, 4, 6, 7, 9].map(requiredMatches), [1, 1, 2, 2, 2, 3, 3]);
    const passage: OfflinePassage = {
      id: 3,
      title: 'Notes',
      url: null,
      content: 'Gift wrapping is free for every order.',
      fromText: true,
    };
    // 4 content words (gift, wrapping, cost, weekends): the sentence matches gift + wrapping.
    assert.ok(composeOfflineAnswer({ question: 'gift wrapping cost weekends', passages: [passage] }));
    // 4 content words, only "gift" matches: too little.
    assert.equal(
      composeOfflineAnswer({ question: 'gift vouchers expire abroad', passages: [passage] }),
      null,
    );
    // The passage title counts toward coverage, but a quoted sentence must match a word itself.
    const titled = { ...passage, title: 'Vouchers abroad' };
    assert.ok(composeOfflineAnswer({ question: 'gift vouchers expire abroad', passages: [titled] }));
  });

  test('light stemming and accents: shipped/shipping, envío/envio match', () => {
    const answer = composeOfflineAnswer({ question: 'when is my order shipped?', passages: [SHIPPING] });
    assert.match(answer?.text ?? '', /Orders ship from Lisbon/);
    const spanish: OfflinePassage = {
      id: 4,
      title: 'Envíos',
      url: null,
      content: 'El envio a Madrid tarda dos días.',
      fromText: true,
    };
    const es = composeOfflineAnswer({
      question: '¿Cuánto tarda el envío?',
      passages: [spanish],
      language: 'es-ES',
    });
    assert.ok(es?.text.startsWith('Esto es lo que encontré:'), es?.text);
    assert.deepEqual(es?.cited, [4]);
  });

  test('stays under the length budget with at most three sentences', () => {
    const long = 'Refund rules apply to every order placed online in our store today. ';
    const passage: OfflinePassage = {
      id: 9,
      title: 'Refunds',
      url: null,
      content: long.repeat(12),
      fromText: true,
    };
    const many = [1, 2, 3, 4].map((n) => ({ ...passage, id: n, content: `${n} ${long.repeat(3)}` }));
    const answer = composeOfflineAnswer({ question: 'refund rules for online orders', passages: many });
    assert.ok(answer);
    assert.ok(answer.text.length <= MAX_OFFLINE_ANSWER_CHARS, String(answer.text.length));
    assert.ok(answer.text.split('\n').length <= 4);
  });
});
