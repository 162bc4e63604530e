import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnswerSource } from './answer-context.js';
import { answerSuggestions, topicWords } from './answer-suggestions.js';

function source(id: number, title: string, extra: Partial<AnswerSource> = {}): AnswerSource {
  return {
    id,
    hit: { chunk_id: `c${id}`, document_id: `d${id}`, title, url: null, content: '', score: 1, ranks: {} },
    fromText: true,
    product: null,
    categories: [],
    ...extra,
  } as AnswerSource;
}

const product = (id: number, name: string, categories: string[]) =>
  source(id, name, {
    product: {
      name,
      url: null,
      image_url: null,
      price: '9.90',
      regular_price: null,
      sale_price: null,
      currency: 'EUR',
      on_sale: false,
      in_stock: true,
    },
    categories,
  });

describe('answerSuggestions', () => {
  it('offers no coffee names for a returns question (found only by a loose match)', () => {
    const sources = [
      source(1, 'Shipping and returns'),
      product(2, 'Ethiopia Yirgacheffe', ['Coffee']),
      product(3, 'Colombia Huila', ['Coffee']),
      source(4, 'Our returns process for damaged parcels'),
    ];
    const chips = answerSuggestions({
      question: 'Can I return an opened bag?',
      text: 'Opened coffee cannot be returned [1].',
      citations: [{ id: 1, url: null, title: 'Shipping and returns' }],
      sources,
    });
    assert.deepEqual(chips, ['Our returns process for damaged parcels']);
  });

  it('offers products named in the answer and products of the cited kind', () => {
    const sources = [
      product(1, 'Espresso Blend', ['Coffee']),
      product(2, 'Decaf Colombia', ['Coffee']),
      product(3, 'Ceramic Dripper', ['Brewing']),
      product(4, 'Hand Grinder', ['Brewing']),
    ];
    const chips = answerSuggestions({
      question: 'Which coffee for espresso?',
      text: 'The Espresso Blend [1] is made for it; grind it with the Hand Grinder.',
      citations: [{ id: 1, url: null, title: 'Espresso Blend' }],
      sources,
    });
    assert.deepEqual(chips, ['Decaf Colombia', 'Hand Grinder']);
  });

  it('offers nothing without a cited source, and never a vector-only match', () => {
    const sources = [source(1, 'Returns'), source(2, 'Returns for gifts', { fromText: false })];
    assert.deepEqual(
      answerSuggestions({ question: 'returns', text: 'No idea.', citations: [], sources }),
      [],
    );
    assert.deepEqual(
      answerSuggestions({
        question: 'returns',
        text: 'See [1].',
        citations: [{ id: 1, url: null, title: 'Returns' }],
        sources,
      }),
      [],
    );
  });

  it('reads topic words without stop words or plural s', () => {
    assert.deepEqual(
      [...topicWords("What's your policy on Returns and boxes?")],
      ['policy', 'return', 'boxe'],
    );
  });
});
