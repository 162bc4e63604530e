import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crawlPace } from './crawl-source.js';

describe('crawl pace: per source, per host', () => {
  const allow = ['127.0.0.1:8080', 'docs.internal'];

  test('a host on SAFE_URL_ALLOW gets no delay by default, whatever CRAWL_DELAY_MS says', () => {
    assert.deepEqual(
      crawlPace({}, 'http://127.0.0.1:8080/sitemap.xml', { safeUrlAllow: allow, crawlDelayMs: 250 }),
      {
        minDelayMs: 0,
        concurrency: 2,
      },
    );
    assert.deepEqual(crawlPace({}, 'https://docs.internal/', { safeUrlAllow: allow, crawlDelayMs: 900 }), {
      minDelayMs: 0,
      concurrency: 2,
    });
  });

  test('any other host gets CRAWL_DELAY_MS, or the crawler default when it is unset', () => {
    // Same host, another port: not the allowed entry.
    assert.deepEqual(crawlPace({}, 'http://127.0.0.1:8081/', { safeUrlAllow: allow, crawlDelayMs: 250 }), {
      minDelayMs: 250,
      concurrency: 2,
    });
    assert.deepEqual(crawlPace({}, 'https://shop.example/', { safeUrlAllow: allow }), { concurrency: 2 });
    assert.deepEqual(crawlPace({}, 'not a url', { safeUrlAllow: allow, crawlDelayMs: 100 }), {
      minDelayMs: 100,
      concurrency: 2,
    });
  });

  test("the source's own crawl_delay_ms and concurrency win, on any host", () => {
    const config = { crawl_delay_ms: 1500, concurrency: 6 };
    assert.deepEqual(crawlPace(config, 'http://127.0.0.1:8080/', { safeUrlAllow: allow, crawlDelayMs: 0 }), {
      minDelayMs: 1500,
      concurrency: 6,
    });
    assert.deepEqual(crawlPace({ crawl_delay_ms: 0 }, 'https://shop.example/', { crawlDelayMs: 250 }), {
      minDelayMs: 0,
      concurrency: 2,
    });
    // Stored garbage (never written by the API) falls back to the defaults.
    assert.deepEqual(
      crawlPace({ crawl_delay_ms: -5, concurrency: '8' }, 'https://shop.example/', { crawlDelayMs: 250 }),
      { minDelayMs: 250, concurrency: 2 },
    );
  });
});
