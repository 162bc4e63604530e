import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { bearer, expectError, tokenIdOf } from './support/http.js';
import { serverOf, unreachable } from './support/local-databases.js';
import { samplePost, siteSyncApp, snapshot, target, wpPost } from './support/site-sync.js';
import { injectJson, issueToken } from './support/test-app.js';

const HANDSHAKE = { site_url: 'https://shop.example.com', plugin_version: '1.2.0' };

/** The throttle runs on the in-process store, and on Redis too when TEST_REDIS_URL names one. */
const stores: Array<[string, Record<string, string>]> = [['memory', {}]];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) stores.push(['redis', { REDIS_URL: redisUrl }]);
/** Set but not answering: the Redis suite skips by name instead of failing after ioredis' retries. */
const redisSkip = redisUrl ? await unreachable('Redis', serverOf(redisUrl, 6379)) : false;

for (const [store, env] of stores) {
  describe(`site integration: 60 requests per minute per token (${store})`, {
    skip: store === 'redis' && redisSkip,
  }, () => {
    // Default limit; every token is new, so its key (the token id) is unique even on a shared Redis.
    const s = siteSyncApp({ env });
    let redis: Redis | null = null;

    const handshake = (token: string) =>
      injectJson(s.t.app, 'POST', '/api/v1/wp/handshake', HANDSHAKE, bearer(token));

    before(async () => {
      if (env.REDIS_URL) {
        redis = new Redis(env.REDIS_URL);
        // Until the app's Redis connection is ready, its in-memory insurance limiter counts instead;
        // a throwaway token waits for the first count that lands in Redis.
        const probe = (await issueToken(s.t, s.site.tenant, ['wp:integration'])).token;
        const probeKey = `svc:rl:wp:${await tokenIdOf(s.t, probe)}`;
        for (let attempt = 0; attempt < 50 && (await redis.exists(probeKey)) === 0; attempt += 1) {
          assert.equal((await handshake(probe)).statusCode, 200);
          await sleep(20);
        }
        assert.equal(await redis.exists(probeKey), 1, 'the app counts in Redis');
      }
    });
    after(async () => {
      await redis?.quit();
    });

    test('requests 1–60 pass, the 61st → 429 rate_limited with Retry-After', async () => {
      for (let i = 1; i <= 60; i += 1) {
        const res = await handshake(s.site.token);
        assert.equal(res.statusCode, 200, `request ${i}: ${res.body}`);
      }
      const limited = await handshake(s.site.token);
      const body = expectError(limited, 429, 'rate_limited');
      assert.deepEqual(body, { message: 'Too many requests.', code: 'rate_limited', errors: {} });
      const retryAfter = String(limited.headers['retry-after']);
      assert.match(retryAfter, /^[1-9][0-9]*$/, `Retry-After is whole seconds: ${retryAfter}`);
      assert.ok(Number(retryAfter) <= 60, `Retry-After within the minute: ${retryAfter}`);
      if (redis) assert.equal(await redis.get(`svc:rl:wp:${s.site.tokenId}`), '61', 'counted in Redis');
    });

    test('a throttled token stays throttled on signed routes too, and nothing is stored', async () => {
      const before = await snapshot(s.t);
      const res = await s.post('posts/sync', {
        ...target(s.site.agentId),
        posts: [samplePost(1)],
      });
      expectError(res, 429, 'rate_limited');
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.deepEqual(await snapshot(s.t), before);
    });

    test('another token, even of the same workspace, is not throttled', async () => {
      const other = (await issueToken(s.t, s.site.tenant, ['wp:integration'])).token;
      for (let i = 1; i <= 5; i += 1) {
        const res = await handshake(other);
        assert.equal(res.statusCode, 200, `request ${i}: ${res.body}`);
      }
      const synced = await wpPost(s.t, 'posts/sync', other, {
        ...target(s.site.agentId),
        posts: [samplePost(1)],
      });
      assert.equal(synced.statusCode, 200, synced.body);
    });

    test('a token without the ability is refused with 403 every time, before the throttle', async () => {
      const adminOnly = (await issueToken(s.t, s.site.tenant, ['admin'])).token;
      for (let i = 1; i <= 65; i += 1) {
        expectError(await handshake(adminOnly), 403, 'forbidden');
      }
    });
  });
}
