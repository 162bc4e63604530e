import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { common, errorPaths, post, product, without } from '../test/site-fixtures.js';
import {
  DEFAULT_PLUGIN_PREFIX,
  defaultPluginBase,
  normalizeSiteUrl,
  SYNC_BATCH_MAX,
  ZChangeResult,
  ZPost,
  ZPostsChanged,
  ZPostsSync,
  ZProduct,
  ZProductsChanged,
  ZProductsSync,
  ZSyncResult,
} from './site.js';

describe('batch sizes', () => {
  const posts = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ ...post, wp_id: index + 1 }));
  const products = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ ...product, wp_id: index + 1 }));

  test('the limit is 50', () => {
    assert.equal(SYNC_BATCH_MAX, 50);
  });

  test('posts sync takes 1 to 50 posts', () => {
    assert.equal(ZPostsSync.parse({ ...common, posts: posts(1) }).posts.length, 1);
    assert.equal(ZPostsSync.parse({ ...common, posts: posts(50) }).posts.length, 50);
    assert.deepEqual(errorPaths(ZPostsSync.safeParse({ ...common, posts: posts(51) })), ['posts']);
    assert.deepEqual(errorPaths(ZPostsSync.safeParse({ ...common, posts: [] })), ['posts']);
  });

  test('products sync takes 1 to 50 products', () => {
    assert.equal(ZProductsSync.parse({ ...common, products: products(1) }).products.length, 1);
    assert.equal(ZProductsSync.parse({ ...common, products: products(50) }).products.length, 50);
    assert.deepEqual(errorPaths(ZProductsSync.safeParse({ ...common, products: products(51) })), [
      'products',
    ]);
    assert.deepEqual(errorPaths(ZProductsSync.safeParse({ ...common, products: [] })), ['products']);
  });

  test('one bad item fails the batch, named by its index', () => {
    const batch = posts(50);
    batch[37] = { ...post, wp_id: 38, title: '', permalink: 'ftp://x' };
    assert.deepEqual(errorPaths(ZPostsSync.safeParse({ ...common, posts: batch })), ['posts.37.permalink']);
  });

  test('agent_id, site_url and plugin_version are required', () => {
    for (const key of ['agent_id', 'site_url', 'plugin_version'] as const) {
      assert.deepEqual(
        errorPaths(ZPostsSync.safeParse({ ...without(common, key), posts: [post] })),
        [key],
        key,
      );
    }
  });
});

describe('ZPostsChanged and ZProductsChanged', () => {
  const cases = [
    {
      name: 'posts',
      schema: ZPostsChanged,
      itemSchema: ZPost,
      plural: 'posts',
      singular: 'post',
      item: post,
    },
    {
      name: 'products',
      schema: ZProductsChanged,
      itemSchema: ZProduct,
      plural: 'products',
      singular: 'product',
      item: product,
    },
  ] as const;

  for (const { name, schema, itemSchema, plural, singular, item } of cases) {
    describe(name, () => {
      test(`upsert with ${plural}: [one]`, () => {
        const parsed = schema.parse({ ...common, action: 'upsert', [plural]: [item] });
        assert.deepEqual(parsed, { ...common, change: { action: 'upsert', item: itemSchema.parse(item) } });
      });

      test(`upsert with a singular ${singular} object`, () => {
        const parsed = schema.parse({ ...common, action: 'upsert', [singular]: item });
        assert.equal(parsed.change.action, 'upsert');
        assert.equal(parsed.change.action === 'upsert' ? parsed.change.item.wp_id : 0, item.wp_id);
      });

      test('both forms, neither, or two items are refused', () => {
        assert.deepEqual(
          errorPaths(schema.safeParse({ ...common, action: 'upsert', [plural]: [item], [singular]: item })),
          [plural],
        );
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, action: 'upsert' })), [plural]);
        assert.deepEqual(
          errorPaths(schema.safeParse({ ...common, action: 'upsert', [plural]: [item, item] })),
          [plural],
        );
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, action: 'upsert', [plural]: [] })), [
          plural,
        ]);
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, action: 'upsert', [plural]: item })), [
          plural,
        ]);
      });

      test('delete needs only wp_id, in either form', () => {
        const expected = { ...common, change: { action: 'delete', wp_id: item.wp_id } };
        assert.deepEqual(
          schema.parse({ ...common, action: 'delete', [plural]: [{ wp_id: item.wp_id }] }),
          expected,
        );
        assert.deepEqual(
          schema.parse({ ...common, action: 'delete', [singular]: { wp_id: item.wp_id } }),
          expected,
        );
        // A full (even incomplete) item is fine for a delete: only wp_id is read.
        assert.deepEqual(
          schema.parse({ ...common, action: 'delete', [plural]: [{ wp_id: item.wp_id, title: 5 }] }),
          expected,
        );
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, action: 'delete', [plural]: [{}] })), [
          `${plural}.0.wp_id`,
        ]);
        assert.deepEqual(
          errorPaths(schema.safeParse({ ...common, action: 'delete', [singular]: { wp_id: '7' } })),
          [`${singular}.wp_id`],
        );
      });

      test('item errors carry the item path', () => {
        const bad = { ...item, permalink: 'javascript:alert(1)' };
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, action: 'upsert', [plural]: [bad] })), [
          `${plural}.0.permalink`,
        ]);
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, action: 'upsert', [singular]: bad })), [
          `${singular}.permalink`,
        ]);
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, action: 'upsert', [singular]: null })), [
          singular,
        ]);
      });

      test('action must be upsert or delete; common fields are checked', () => {
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, action: 'update', [plural]: [item] })), [
          'action',
        ]);
        assert.deepEqual(errorPaths(schema.safeParse({ ...common, [plural]: [item] })), ['action']);
        assert.deepEqual(
          errorPaths(
            schema.safeParse({
              ...common,
              site_url: 'ftp://shop.example.com',
              action: 'upsert',
              [plural]: [item],
            }),
          ),
          ['site_url'],
        );
      });
    });
  }

  test('posts: a missing title is reported as posts.0.title', () => {
    const result = ZPostsChanged.safeParse({ ...common, action: 'upsert', posts: [without(post, 'title')] });
    assert.deepEqual(errorPaths(result), ['posts.0.title']);
    const single = ZPostsChanged.safeParse({ ...common, action: 'upsert', post: without(post, 'title') });
    assert.deepEqual(errorPaths(single), ['post.title']);
  });

  test('the answer shape of a delta', () => {
    const answer = {
      action: 'delete',
      result: 'not_found',
      queued: 0,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 0,
      failures: [],
    };
    assert.deepEqual(ZChangeResult.parse(answer), answer);
    assert.equal(ZChangeResult.safeParse({ ...answer, result: 'gone' }).success, false);
    const failed = {
      ...answer,
      action: 'upsert',
      result: 'failed',
      failed: 1,
      failures: [{ wp_id: 7, reason: 'its HTML has more than 2,000,000 characters of text' }],
    };
    assert.deepEqual(ZChangeResult.parse(failed), failed);
  });

  test('an answer without failed and failures (an older service) parses with none failed', () => {
    assert.deepEqual(ZSyncResult.parse({ queued: 1, skipped_unchanged: 2, deleted: 0 }), {
      queued: 1,
      skipped_unchanged: 2,
      deleted: 0,
      failed: 0,
      failures: [],
    });
  });
});

describe('normalizeSiteUrl', () => {
  test('lower-cases, drops the trailing slash, query, fragment and default port', () => {
    assert.equal(normalizeSiteUrl('HTTPS://Shop.Example.com/'), 'https://shop.example.com');
    assert.equal(normalizeSiteUrl('https://shop.example.com'), 'https://shop.example.com');
    assert.equal(normalizeSiteUrl('  https://shop.example.com/  '), 'https://shop.example.com');
    assert.equal(normalizeSiteUrl('https://shop.example.com///'), 'https://shop.example.com');
    assert.equal(normalizeSiteUrl('https://shop.example.com:443/'), 'https://shop.example.com');
    assert.equal(normalizeSiteUrl('http://shop.example.com:80'), 'http://shop.example.com');
    assert.equal(normalizeSiteUrl('https://shop.example.com/?lang=en#top'), 'https://shop.example.com');
  });

  test('keeps other ports and sub-directory installs', () => {
    assert.equal(normalizeSiteUrl('http://localhost:8080/'), 'http://localhost:8080');
    assert.equal(normalizeSiteUrl('https://example.com/shop/'), 'https://example.com/shop');
    // Host case is normalised; the path keeps its case (case-sensitive servers).
    assert.equal(normalizeSiteUrl('https://Example.com/Shop/'), 'https://example.com/Shop');
  });

  test('two spellings of one site normalise to the same value', () => {
    assert.equal(
      normalizeSiteUrl('HTTPS://SHOP.example.COM:443//'),
      normalizeSiteUrl('https://shop.example.com'),
    );
  });

  test('throws on something that is not a URL', () => {
    assert.throws(() => normalizeSiteUrl('shop.example.com'), TypeError);
    assert.throws(() => normalizeSiteUrl(''), TypeError);
  });
});

describe('defaultPluginBase', () => {
  test('is the normalised site URL plus /wp-json/service/v1/', () => {
    assert.equal(DEFAULT_PLUGIN_PREFIX, '/wp-json/service/v1/');
    assert.equal(
      defaultPluginBase('HTTPS://Shop.Example.com/'),
      'https://shop.example.com/wp-json/service/v1/',
    );
    assert.equal(
      defaultPluginBase('https://shop.example.com'),
      'https://shop.example.com/wp-json/service/v1/',
    );
    assert.equal(
      defaultPluginBase('https://example.com/shop/?x=1'),
      'https://example.com/shop/wp-json/service/v1/',
    );
    assert.equal(defaultPluginBase('http://localhost:8080'), 'http://localhost:8080/wp-json/service/v1/');
  });
});
