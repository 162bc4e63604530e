import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { passageSentences, sameSentence } from './passage-text.js';
import { composerPhrases } from './phrases.js';
import { productContextLine, productFactLine } from './product-facts.js';

const V60_CHUNK = `V60 is one of our favourite ways to make coffee at home. Here is the recipe we use.

What you need

* Coffee: 15 g to 250 g of water
 * Grind: **medium-fine**, like table salt
 * A scale and a timer

## Steps

1. Weigh and grind the coffee just before brewing.
 2. Brew for 2:45 to 3:15, see [the timer](https://example.com/timer).`;

describe('passageSentences', () => {
  test('list markers, heading hashes, emphasis and links go; headings and the title are left out', () => {
    const sentences = passageSentences(`How to brew with a V60\n\n${V60_CHUNK}`, 'How to brew with a V60');
    assert.deepEqual(
      sentences.map((s) => s.text),
      [
        'V60 is one of our favourite ways to make coffee at home.',
        'Here is the recipe we use.',
        'Coffee: 15 g to 250 g of water',
        'Grind: medium-fine, like table salt',
        'A scale and a timer',
        'Weigh and grind the coffee just before brewing.',
        'Brew for 2:45 to 3:15, see the timer.',
      ],
    );
    assert.deepEqual(
      sentences.map((s) => s.listed),
      [false, false, true, true, true, true, true],
    );
  });

  test('a chunk that starts mid-sentence drops the fragment; HTML tags are not quoted', () => {
    const sentences = passageSentences(
      'is on the menu at the roastery bar, and easy to make.\n\nOur <b>cappuccino</b> uses <script>x</script>120 ml of milk.',
      'Recipe: Cappuccino',
    );
    assert.deepEqual(
      sentences.map((s) => s.text),
      ['Our cappuccino uses x 120 ml of milk.'],
    );
  });
});

describe('sameSentence', () => {
  test('a sentence inside another, or with 80 % of its words, is the same; others are not', () => {
    assert.ok(
      sameSentence(
        'The V60 is one of our favourite ways to make coffee at home.',
        'V60 is one of our favourite ways to make coffee at home.',
      ),
    );
    assert.ok(
      sameSentence('120 ml of milk steamed to a foam', 'Combine it with 120 ml of milk steamed to a foam.'),
    );
    assert.ok(!sameSentence('Water: 94 °C', 'Water: 95 °C and a kettle with a long thin spout'));
    assert.ok(!sameSentence('Shipping is free over 40 euros.', 'Returns are free within 30 days.'));
  });
});

describe('product facts', () => {
  const card = {
    name: 'Kenya Nyeri 250 g',
    url: 'https://shop.example.com/products/kenya',
    image_url: null,
    price: '12.90',
    regular_price: '14.90',
    sale_price: '12.90',
    currency: 'eur',
    on_sale: true,
    in_stock: true,
  };

  test('the fact line states price, sale, stock and link in the visitor language, cited', () => {
    assert.equal(
      productFactLine(card, 2, composerPhrases('en')),
      'Kenya Nyeri 250 g: 12.90 EUR (on sale, regular price 14.90 EUR), in stock. [View the product](https://shop.example.com/products/kenya) [2]',
    );
    assert.equal(
      productFactLine(
        { ...card, on_sale: false, price: '14.90', in_stock: false },
        1,
        composerPhrases('de-AT'),
      ),
      'Kenya Nyeri 250 g: 14.90 EUR, nicht vorrätig. [Zum Produkt](https://shop.example.com/products/kenya) [1]',
    );
  });

  test('hostile fields: markdown in a name is flattened, a non-http URL gets no link, a target cannot be ended early', () => {
    const line = productFactLine(
      {
        ...card,
        name: '**Free** [click](javascript:alert(1)) <img src=x>',
        url: 'javascript:alert(1)',
        price: null,
      },
      1,
      composerPhrases('en'),
    );
    assert.equal(line, 'Free click javascript:alert 1 img src=x: in stock. [1]');
    const spaced = productFactLine(
      { ...card, url: 'https://shop.example.com/a b)(c' },
      1,
      composerPhrases('en'),
    );
    assert.match(spaced, /\]\(https:\/\/shop\.example\.com\/a%20b%29%28c\) \[1\]$/);
  });

  test('the model context line carries the same fields', () => {
    assert.equal(
      productContextLine(card),
      'Product: Kenya Nyeri 250 g | Price: 12.90 EUR (on sale; regular price 14.90 EUR) | Stock: in stock | URL: https://shop.example.com/products/kenya',
    );
  });
});
