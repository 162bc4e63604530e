import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SafeFetchResult } from '../outbound/index.js';
import type { FetchPage } from './fetch-page.js';
import { CRAWLER_USER_AGENT, fetchRobots, parseRobots, ROBOTS_MAX_BYTES } from './robots.js';

const ORIGIN = 'https://shop.example';

/** A fetcher that answers every URL with `result` and records what was asked. */
function answering(result: SafeFetchResult): FetchPage & { urls: string[] } {
  const urls: string[] = [];
  return Object.assign(
    async (url: string) => {
      urls.push(url);
      return result;
    },
    { urls },
  );
}

function response(status: number, body = ''): SafeFetchResult {
  return {
    ok: true,
    status,
    url: `${ORIGIN}/robots.txt`,
    headers: {},
    body: Buffer.from(body),
    contentType: 'text/plain',
  };
}

const ROBOTS = `# shop robots
User-agent: *
Disallow: /private/
Allow: /private/open
Crawl-delay: 2

User-agent: ChatAgentServiceBot
Disallow: /no-bots/
Disallow: /private/
Crawl-delay: 30

Sitemap: https://shop.example/sitemap.xml
Sitemap: https://cdn.example/shop-sitemap.xml
`;

describe('robots', () => {
  test('the user agent carries the product token robots.txt groups name', () => {
    assert.match(CRAWLER_USER_AGENT, /^ChatAgentServiceBot\/1\.0 /);
  });

  test('2xx: the crawler group applies over *, with crawl-delay and sitemaps', async () => {
    const fetchPage = answering(response(200, ROBOTS));
    const robots = await fetchRobots(`${ORIGIN}`, fetchPage);
    assert.deepEqual(fetchPage.urls, ['https://shop.example/robots.txt']);
    assert.equal(robots.unavailableReason, undefined);
    assert.equal(robots.isAllowed(`${ORIGIN}/help`), true);
    assert.equal(robots.isAllowed(`${ORIGIN}/no-bots/page`), false);
    assert.equal(robots.isAllowed(`${ORIGIN}/private/x`), false);
    // Another origin is never "allowed" by this origin's rules.
    assert.equal(robots.isAllowed('https://other.example/help'), false);
    assert.equal(robots.crawlDelaySeconds(), 30);
    assert.deepEqual(robots.sitemaps(), [
      'https://shop.example/sitemap.xml',
      'https://cdn.example/shop-sitemap.xml',
    ]);
  });

  test('only the * group: it applies to the crawler', () => {
    const robots = parseRobots(
      `${ORIGIN}/robots.txt`,
      'User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n',
    );
    assert.equal(robots.isAllowed(`${ORIGIN}/private/a`), false);
    assert.equal(robots.isAllowed(`${ORIGIN}/public`), true);
    assert.equal(robots.crawlDelaySeconds(), 2);
  });

  test('4xx (404, 401, 403) allows everything; 429 and 5xx disallow everything', async () => {
    for (const status of [400, 401, 403, 404, 410, 499]) {
      const robots = await fetchRobots(ORIGIN, answering(response(status, 'User-agent: *\nDisallow: /')));
      assert.equal(robots.isAllowed(`${ORIGIN}/anything`), true, String(status));
      assert.equal(robots.unavailableReason, undefined);
    }
    for (const status of [429, 500, 503, 599]) {
      const robots = await fetchRobots(ORIGIN, answering(response(status)));
      assert.equal(robots.isAllowed(`${ORIGIN}/anything`), false, String(status));
      assert.equal(robots.isAllowed(`${ORIGIN}/`), false);
      assert.match(robots.unavailableReason ?? '', new RegExp(`^failed: .* HTTP ${status}`));
    }
  });

  test('a network failure or a guard refusal disallows everything, keeping the reason verbatim', async () => {
    const reason = 'refused: 10.0.0.1 is a private address';
    const robots = await fetchRobots(ORIGIN, answering({ ok: false, reason }));
    assert.equal(robots.isAllowed(`${ORIGIN}/`), false);
    assert.equal(robots.unavailableReason, reason);
    assert.deepEqual(robots.sitemaps(), []);
  });

  test('only the first 500 KiB are parsed', () => {
    const header = 'User-agent: *\n';
    const padding = '#'.repeat(ROBOTS_MAX_BYTES - header.length - 1);
    const atCap = `${header}${padding}\nDisallow: /late/\n`;
    const early = parseRobots(`${ORIGIN}/robots.txt`, `${header}Disallow: /early/\n${padding}`);
    assert.equal(early.isAllowed(`${ORIGIN}/early/x`), false);
    // The Disallow line starts exactly at the cap: it is not read.
    assert.equal(parseRobots(`${ORIGIN}/robots.txt`, atCap).isAllowed(`${ORIGIN}/late/x`), true);
    const justInside = `${header}${'#'.repeat(ROBOTS_MAX_BYTES - header.length - 40)}\nDisallow: /late/\n`;
    assert.equal(parseRobots(`${ORIGIN}/robots.txt`, justInside).isAllowed(`${ORIGIN}/late/x`), false);
  });
});
