import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { common, errorPaths, post, product, without } from '../test/site-fixtures.js';
import { ZCoupon, ZCouponsSync, ZPost, ZPostsSync, ZProduct } from './site.js';

describe('ZPost', () => {
  test('fills the defaulted fields', () => {
    assert.deepEqual(ZPost.parse(post), { ...post, excerpt: '', taxonomy_terms: [] });
  });

  test('keeps every field given, and normalises the language tag', () => {
    const full = { ...post, excerpt: 'Short', language: 'pt_BR', taxonomy_terms: ['policy', 'help'] };
    assert.deepEqual(ZPost.parse(full), { ...full, language: 'pt-br' });
    assert.equal(ZPost.parse({ ...post, language: 'EN' }).language, 'en');
    assert.equal(ZPost.parse({ ...post, language: null }).language, null);
    assert.equal(ZPost.parse(post).language, undefined);
    assert.deepEqual(errorPaths(ZPost.safeParse({ ...post, language: 'english!' })), ['language']);
  });

  test('requires wp_id, post_type, permalink, title, content_html, content_hash, modified_at', () => {
    for (const key of [
      'wp_id',
      'post_type',
      'permalink',
      'title',
      'content_html',
      'content_hash',
      'modified_at',
    ] as const) {
      assert.deepEqual(errorPaths(ZPost.safeParse(without(post, key))), [key], key);
    }
  });

  test('wp_id is a positive integer, not a string', () => {
    for (const wpId of [0, -1, 1.5, '42', null]) {
      assert.deepEqual(errorPaths(ZPost.safeParse({ ...post, wp_id: wpId })), ['wp_id'], String(wpId));
    }
  });

  test('content_hash is a hex digest of 8 to 128 digits', () => {
    for (const hash of ['abcdef01', 'ABCDEF0123456789', 'a'.repeat(64), 'a'.repeat(128)]) {
      assert.equal(ZPost.safeParse({ ...post, content_hash: hash }).success, true, hash);
    }
    for (const hash of ['', 'abc', 'a'.repeat(129), 'not-hex!', 'zzzzzzzz']) {
      assert.deepEqual(errorPaths(ZPost.safeParse({ ...post, content_hash: hash })), ['content_hash'], hash);
    }
  });

  test('a title may be empty (untitled posts exist)', () => {
    assert.equal(ZPost.parse({ ...post, title: '' }).title, '');
  });

  test('ignores fields it does not know', () => {
    assert.equal('sticky' in ZPost.parse({ ...post, sticky: true }), false);
  });
});

describe('ISO 8601 timestamps need an offset', () => {
  test('accepts Z and ±hh:mm offsets, with or without fractions', () => {
    for (const value of [
      '2026-11-01T10:00:00+00:00',
      '2026-11-01T10:00:00Z',
      '2026-11-01T10:00:00-05:00',
      '2026-11-01T10:00:00+14:00',
      '2026-11-01T10:00:00.123+02:00',
      '2026-11-01T10:00:00.123456Z',
    ]) {
      assert.equal(ZPost.safeParse({ ...post, modified_at: value }).success, true, value);
      assert.equal(ZProduct.safeParse({ ...product, modified_at: value }).success, true, value);
      assert.equal(ZCoupon.safeParse({ code: 'A', expires_at: value }).success, true, value);
    }
  });

  test('reads a basic offset (+0200, PHP DATE_ISO8601) as its extended form', () => {
    const parsed = ZPost.parse({ ...post, modified_at: '2026-11-01T10:00:00+0200' });
    assert.equal(parsed.modified_at, '2026-11-01T10:00:00+02:00');
    assert.equal(
      ZPost.parse({ ...post, modified_at: '2026-11-01T10:00:00-0530' }).modified_at,
      '2026-11-01T10:00:00-05:30',
    );
  });

  test('rejects local times, dates, spaces, hour-only offsets and impossible values', () => {
    for (const value of [
      '2026-11-01T10:00:00',
      '2026-11-01',
      '2026-11-01 10:00:00+00:00',
      '2026-11-01T10:00+00:00',
      '2026-11-01T10:00:00+02',
      '2026-11-01T10:00:00z',
      '2026-13-01T10:00:00+00:00',
      '2026-11-01T25:00:00+00:00',
      '2026-11-01T10:00:00+24:00',
      'Sun, 01 Nov 2026 10:00:00 +0000',
      '1793523600',
      '',
    ]) {
      assert.deepEqual(errorPaths(ZPost.safeParse({ ...post, modified_at: value })), ['modified_at'], value);
      assert.deepEqual(
        errorPaths(ZProduct.safeParse({ ...product, modified_at: value })),
        ['modified_at'],
        value,
      );
      assert.deepEqual(
        errorPaths(ZCoupon.safeParse({ code: 'A', expires_at: value })),
        ['expires_at'],
        value,
      );
    }
    assert.deepEqual(errorPaths(ZPost.safeParse({ ...post, modified_at: 1793523600 })), ['modified_at']);
  });
});

describe('URLs must be http or https', () => {
  test('accepts http and https, any case', () => {
    for (const url of [
      'http://shop.example.com',
      'https://shop.example.com/p?id=1',
      'HTTPS://Shop.example.com/x',
    ]) {
      assert.equal(ZPost.safeParse({ ...post, permalink: url }).success, true, url);
      assert.equal(ZProduct.safeParse({ ...product, image_url: url }).success, true, url);
    }
  });

  test('rejects other schemes and relative or broken URLs', () => {
    for (const url of [
      'ftp://shop.example.com/file',
      'javascript:alert(1)',
      'data:text/html,<b>x</b>',
      'mailto:shop@example.com',
      'file:///etc/passwd',
      '//shop.example.com/x',
      '/blog/returns',
      'shop.example.com/x',
      'https://',
      '',
    ]) {
      assert.deepEqual(errorPaths(ZPost.safeParse({ ...post, permalink: url })), ['permalink'], url);
      assert.deepEqual(errorPaths(ZProduct.safeParse({ ...product, permalink: url })), ['permalink'], url);
      assert.deepEqual(errorPaths(ZPostsSync.safeParse({ ...common, site_url: url, posts: [post] })), [
        'site_url',
      ]);
    }
    for (const url of ['ftp://shop.example.com/a.png', 'javascript:alert(1)']) {
      assert.deepEqual(errorPaths(ZProduct.safeParse({ ...product, image_url: url })), ['image_url'], url);
    }
  });

  test('a product image_url may be empty', () => {
    assert.equal(ZProduct.parse({ ...product, image_url: '' }).image_url, '');
  });
});

describe('ZProduct', () => {
  test('fills the defaulted fields and leaves currency out', () => {
    const parsed = ZProduct.parse(product);
    assert.deepEqual(parsed, {
      ...product,
      sku: '',
      image_url: '',
      short_description: '',
      description: '',
      price: '',
      regular_price: '',
      sale_price: '',
      on_sale: false,
      categories: [],
      attributes: [],
    });
    assert.equal('currency' in parsed, false);
  });

  test('keeps every field given', () => {
    const full = {
      ...product,
      sku: 'MUG-BLUE',
      image_url: 'https://shop.example.com/mug.png',
      short_description: '<p>Blue.</p>',
      description: '<p>A blue mug.</p>',
      price: '9.90',
      regular_price: '12.00',
      sale_price: '9.90',
      currency: 'EUR',
      on_sale: true,
      categories: ['Kitchen'],
      attributes: ['Colour: blue', 'Size: S, M'],
    };
    assert.deepEqual(ZProduct.parse(full), full);
  });

  test('requires wp_id, name, permalink, stock_status, content_hash, modified_at', () => {
    for (const key of [
      'wp_id',
      'name',
      'permalink',
      'stock_status',
      'content_hash',
      'modified_at',
    ] as const) {
      assert.deepEqual(errorPaths(ZProduct.safeParse(without(product, key))), [key], key);
    }
    assert.deepEqual(errorPaths(ZProduct.safeParse({ ...product, name: '' })), ['name']);
    assert.deepEqual(errorPaths(ZProduct.safeParse({ ...product, stock_status: '' })), ['stock_status']);
  });

  test('stock_status is any non-empty string (instock, outofstock, onbackorder, …)', () => {
    for (const status of ['instock', 'outofstock', 'onbackorder', 'custom_status']) {
      assert.equal(ZProduct.parse({ ...product, stock_status: status }).stock_status, status);
    }
  });

  test('prices are decimal strings or empty', () => {
    for (const price of ['19.90', '0', '19', '-5.00', '0.5', '19.900000', '']) {
      for (const field of ['price', 'regular_price', 'sale_price'] as const) {
        assert.equal(ZProduct.parse({ ...product, [field]: price })[field], price, `${field}=${price}`);
      }
    }
    for (const price of ['19,90', '1e3', '$19', '19 EUR', '19.', '.5', '+19', ' 19.90', 'free', 19.9, null]) {
      for (const field of ['price', 'regular_price', 'sale_price'] as const) {
        assert.deepEqual(
          errorPaths(ZProduct.safeParse({ ...product, [field]: price })),
          [field],
          `${field}=${String(price)}`,
        );
      }
    }
  });

  test('currency is a three-letter code, either case', () => {
    for (const currency of ['EUR', 'usd', 'Jpy']) {
      assert.equal(ZProduct.parse({ ...product, currency }).currency, currency);
    }
    for (const currency of ['EURO', 'EU', '€', 'E1R', '', ' EUR', 978]) {
      assert.deepEqual(
        errorPaths(ZProduct.safeParse({ ...product, currency })),
        ['currency'],
        String(currency),
      );
    }
  });

  test('on_sale is a boolean, not a string', () => {
    assert.deepEqual(errorPaths(ZProduct.safeParse({ ...product, on_sale: 'yes' })), ['on_sale']);
  });
});

describe('ZCoupon', () => {
  test('only code is required; the rest default', () => {
    assert.deepEqual(ZCoupon.parse({ code: 'WELCOME10' }), {
      code: 'WELCOME10',
      label: '',
      discount: '',
      expires_at: null,
    });
    assert.deepEqual(errorPaths(ZCoupon.safeParse({ label: 'x' })), ['code']);
  });

  test('trims the code and rejects a blank one', () => {
    assert.equal(ZCoupon.parse({ code: '  WELCOME10 ' }).code, 'WELCOME10');
    assert.deepEqual(errorPaths(ZCoupon.safeParse({ code: '   ' })), ['code']);
    assert.deepEqual(errorPaths(ZCoupon.safeParse({ code: 'x'.repeat(101) })), ['code']);
  });

  test('keeps label, discount and an explicit null expiry', () => {
    const full = { code: 'SUMMER', label: 'Summer sale', discount: '15%', expires_at: null };
    assert.deepEqual(ZCoupon.parse(full), full);
    assert.equal(ZCoupon.parse({ code: 'A', discount: '5.00' }).discount, '5.00');
  });

  test('coupons sync may carry an empty list (clears the stored one)', () => {
    assert.deepEqual(ZCouponsSync.parse({ ...common, coupons: [] }).coupons, []);
    assert.deepEqual(errorPaths(ZCouponsSync.safeParse({ ...common })), ['coupons']);
  });
});
