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

describe('composeOfflineAnswer: products, markup, repeats', () => {
  const product = (
    id: number,
    name: string,
    content: string,
    extra: Partial<OfflinePassage> = {},
  ): OfflinePassage => ({
    id,
    title: name,
    url: `https://shop.example.com/products/${id}`,
    content: `${name}\n\n${content}`,
    fromText: true,
    documentId: `doc-${id}`,
    product: {
      name,
      url: `https://shop.example.com/products/${id}`,
      image_url: null,
      price: '14.90',
      regular_price: '14.90',
      sale_price: null,
      currency: 'EUR',
      on_sale: false,
      in_stock: true,
    },
    categories: ['Coffee', 'Single origin'],
    ...extra,
  });
  const KENYA = product(
    1,
    'Kenya Nyeri 250 g',
    'Notes of blackcurrant, grapefruit and black tea. Filter Roast.\n\n* Origin: Nyeri, Kenya\n\nPrice: 14.90 EUR\n\nStock: instock',
  );
  const GUIDE: OfflinePassage = {
    id: 2,
    title: 'How to brew with a V60',
    url: 'https://shop.example.com/blog/v60',
    content:
      'How to brew with a V60\n\nThe V60 is one of our favourite ways to brew at home.\n\nThe V60 is one of our favourite ways to brew at home.\n\nWhat you need\n\n* Coffee: 15 g to 250 g of water\n * Water: 94 °C',
    fromText: true,
    documentId: 'doc-2',
  };
  const GUIDE_OVERLAP: OfflinePassage = {
    ...GUIDE,
    id: 3,
    content: 'V60 is one of our favourite ways to brew at home.\n\n* Coffee: 15 g to 250 g of water',
  };

  test('a product the question names is stated from its synced fields, with its description', () => {
    const answer = composeOfflineAnswer({
      question: 'How much is the Kenya Nyeri?',
      passages: [GUIDE, KENYA],
    });
    assert.deepEqual(answer?.text.split('\n'), [
      'Here is what I found:',
      'Kenya Nyeri 250 g: 14.90 EUR, in stock. [View the product](https://shop.example.com/products/1) [1]',
      '“Notes of blackcurrant, grapefruit and black tea.” [1]',
    ]);
    assert.deepEqual(answer?.cited, [1]);
  });

  test('"do you sell X?" is answered by a product named or categorised X, never by one mentioning X', () => {
    assert.equal(composeOfflineAnswer({ question: 'Do you sell tea?', passages: [KENYA, GUIDE] }), null);
    const coffee = composeOfflineAnswer({ question: 'Do you sell single origin coffee?', passages: [KENYA] });
    assert.match(coffee?.text ?? '', /^Here is what I found:\nKenya Nyeri 250 g: 14\.90 EUR, in stock\./);
    assert.equal(
      composeOfflineAnswer({ question: 'Do you sell V60 filters?', passages: [GUIDE, KENYA] }),
      null,
    );
  });

  test('quotes carry no markup, no heading and no repeat, even across overlapping chunks', () => {
    const answer = composeOfflineAnswer({
      question: 'How do I brew with a V60?',
      passages: [GUIDE, GUIDE_OVERLAP],
      language: 'fr',
    });
    assert.ok(answer);
    const lines = answer.text.split('\n');
    assert.equal(lines[0], "Voici ce que j'ai trouvé :");
    const quotes = lines.slice(1).map((line) => /^“(.+)” \[\d\]$/.exec(line)?.[1] ?? line);
    assert.deepEqual(quotes, [
      'The V60 is one of our favourite ways to brew at home.',
      'Coffee: 15 g to 250 g of water',
      'Water: 94 °C',
    ]);
  });

  test('an out-of-stock product on sale says both', () => {
    const sold = product(4, 'Sumatra 250 g', 'Notes of cedar and spice.', {});
    if (!sold.product) throw new Error('no product');
    sold.product = { ...sold.product, in_stock: false, on_sale: true, price: '9.90', regular_price: '11.90' };
    const answer = composeOfflineAnswer({
      question: 'Is the Sumatra in stock?',
      passages: [sold],
      language: 'es',
    });
    assert.match(
      answer?.text ?? '',
      /Sumatra 250 g: 9\.90 EUR \(en oferta, precio normal 11\.90 EUR\), agotado\./,
    );
  });
});
