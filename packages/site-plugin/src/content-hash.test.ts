import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ZPost, ZProduct } from '@service/contract';
import {
  postContentHash,
  postWithContentHash,
  productContentHash,
  productWithContentHash,
} from './content-hash.js';
import type { SitePost, SiteProduct } from './site-store.js';

const post: SitePost = {
  wp_id: 42,
  post_type: 'page',
  permalink: 'https://shop.example.com/returns/',
  title: 'Returns policy',
  content_html: '<p>Return any item within 30 days. Café ✓</p>',
  excerpt: 'Returns',
  modified_at: '2026-11-01T10:00:00+00:00',
  language: 'en',
  taxonomy_terms: ['policy', 'help'],
};

const product: SiteProduct = {
  wp_id: 7,
  sku: 'SHOE-42',
  name: 'Trail shoe',
  permalink: 'https://shop.example.com/product/trail-shoe/',
  image_url: 'https://shop.example.com/img/shoe.jpg',
  short_description: '<p>Light</p>',
  description: '<p>Light trail shoe</p>',
  price: '79.90',
  regular_price: '99.90',
  sale_price: '79.90',
  currency: 'EUR',
  stock_status: 'instock',
  on_sale: true,
  modified_at: '2026-11-01T10:00:00+00:00',
  categories: ['shoes', 'outdoor'],
  attributes: ['Size: 40, 41, 42', 'Color: red'],
};

/** The same post, its keys written in another order. */
const postReordered: SitePost = {
  taxonomy_terms: ['policy', 'help'],
  language: 'en',
  modified_at: '2026-11-01T10:00:00+00:00',
  excerpt: 'Returns',
  content_html: '<p>Return any item within 30 days. Café ✓</p>',
  title: 'Returns policy',
  permalink: 'https://shop.example.com/returns/',
  post_type: 'page',
  wp_id: 42,
};

/** The same product, its keys written in another order. */
const productReordered: SiteProduct = {
  attributes: ['Size: 40, 41, 42', 'Color: red'],
  categories: ['shoes', 'outdoor'],
  modified_at: '2026-11-01T10:00:00+00:00',
  on_sale: true,
  stock_status: 'instock',
  currency: 'EUR',
  sale_price: '79.90',
  regular_price: '99.90',
  price: '79.90',
  description: '<p>Light trail shoe</p>',
  short_description: '<p>Light</p>',
  image_url: 'https://shop.example.com/img/shoe.jpg',
  permalink: 'https://shop.example.com/product/trail-shoe/',
  name: 'Trail shoe',
  sku: 'SHOE-42',
  wp_id: 7,
};

describe('postContentHash', () => {
  it('is the lower-case SHA-256 hex of the canonical JSON of the descriptive fields', async () => {
    const canonical =
      '{"content_html":"<p>Return any item within 30 days. Café ✓</p>","excerpt":"Returns","language":"en",' +
      '"permalink":"https://shop.example.com/returns/","post_type":"page","taxonomy_terms":["help","policy"],' +
      '"title":"Returns policy"}';
    const expected = createHash('sha256').update(canonical, 'utf8').digest('hex');
    assert.equal(await postContentHash(post), expected);
    assert.match(expected, /^[0-9a-f]{64}$/);
  });

  it('ignores key order, term order, wp_id and modified_at', async () => {
    const hash = await postContentHash(post);
    assert.equal(await postContentHash(postReordered), hash);
    assert.equal(await postContentHash({ ...post, taxonomy_terms: ['help', 'policy'] }), hash);
    assert.equal(
      await postContentHash({ ...post, modified_at: '2027-01-01T00:00:00+00:00', wp_id: 43 }),
      hash,
    );
  });

  it('changes with every descriptive field', async () => {
    const hash = await postContentHash(post);
    const edits: Partial<SitePost>[] = [
      { title: 'Returns policy (updated)' },
      { content_html: '<p>Return any item within 14 days.</p>' },
      { excerpt: 'Other' },
      { permalink: 'https://shop.example.com/returns-2/' },
      { post_type: 'post' },
      { language: 'de' },
      { taxonomy_terms: ['policy'] },
    ];
    const hashes = await Promise.all(edits.map((edit) => postContentHash({ ...post, ...edit })));
    for (const [index, edited] of hashes.entries())
      assert.notEqual(edited, hash, JSON.stringify(edits[index]));
    assert.equal(new Set(hashes).size, edits.length);
  });

  it('postWithContentHash adds a hash the contract accepts', async () => {
    const record = await postWithContentHash(post);
    assert.equal(record.content_hash, await postContentHash(post));
    assert.equal(record.title, post.title);
    assert.equal(ZPost.safeParse(record).success, true);
  });
});

describe('productContentHash', () => {
  it('ignores key order, category and attribute order, wp_id and modified_at', async () => {
    const hash = await productContentHash(product);
    assert.equal(await productContentHash(productReordered), hash);
    const reordered = {
      ...product,
      categories: ['outdoor', 'shoes'],
      attributes: ['Color: red', 'Size: 40, 41, 42'],
    };
    assert.equal(await productContentHash(reordered), hash);
    assert.equal(
      await productContentHash({ ...product, wp_id: 8, modified_at: '2027-01-01T00:00:00Z' }),
      hash,
    );
  });

  it('a name or description change gives another hash, with or without price and stock', async () => {
    for (const includePriceAndStock of [true, false]) {
      const hash = await productContentHash(product, { includePriceAndStock });
      assert.notEqual(
        await productContentHash({ ...product, name: 'Trail shoe 2' }, { includePriceAndStock }),
        hash,
      );
      assert.notEqual(
        await productContentHash({ ...product, description: '<p>Heavier</p>' }, { includePriceAndStock }),
        hash,
      );
    }
  });

  it('by default (includePriceAndStock true) a price-only or stock-only change gives another hash', async () => {
    const hash = await productContentHash(product);
    assert.equal(await productContentHash(product, { includePriceAndStock: true }), hash);
    const edits: Partial<SiteProduct>[] = [
      { price: '69.90' },
      { regular_price: '89.90' },
      { sale_price: '69.90' },
      { currency: 'USD' },
      { stock_status: 'outofstock' },
      { on_sale: false },
    ];
    for (const edit of edits)
      assert.notEqual(await productContentHash({ ...product, ...edit }), hash, JSON.stringify(edit));
  });

  it('with includePriceAndStock false, price and stock changes keep the hash', async () => {
    const options = { includePriceAndStock: false };
    const hash = await productContentHash(product, options);
    const repriced = {
      ...product,
      price: '9.90',
      sale_price: '9.90',
      stock_status: 'outofstock',
      on_sale: false,
    };
    assert.equal(await productContentHash(repriced, options), hash);
    assert.notEqual(hash, await productContentHash(product));
  });

  it('productWithContentHash adds a hash the contract accepts', async () => {
    const record = await productWithContentHash(product, { includePriceAndStock: false });
    assert.equal(record.content_hash, await productContentHash(product, { includePriceAndStock: false }));
    assert.equal(ZProduct.safeParse(record).success, true);
  });
});
