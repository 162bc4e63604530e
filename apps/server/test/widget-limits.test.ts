import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ZWidgetAnswer } from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { expectData, expectError } from './support/http.js';
import { serverOf, unreachable } from './support/local-databases.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initRequest, initSession, newAnonId, ORIGIN } from './support/widget.js';

// Every widget limit of the contract ("Rate limits on public surfaces"), at n and n+1, on the
// in-process store and, when TEST_REDIS_URL names one, on Redis. Every test uses its own agent,
// visitor and (random) IPs, so counts never mix between tests or between runs on a shared Redis.

const stores: Array<[string, Record<string, string>]> = [['memory', {}]];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) stores.push(['redis', { REDIS_URL: redisUrl }]);
/** Set but not answering: the Redis suite skips by name instead of failing after ioredis' retries. */
const redisSkip = redisUrl ? await unreachable('Redis', serverOf(redisUrl, 6379)) : false;

/** A random private IPv4 address (unique per test and run, so a shared Redis never carries counts over). */
function freshIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

/** A widget call with the token as bearer, from ORIGIN and the given remote address. */
function call(
  t: TestApp,
  method: 'POST' | 'GET',
  url: string,
  token: string,
  body: unknown,
  remoteAddress: string,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, origin: ORIGIN };
  if (body === undefined) return t.app.inject({ method, url, headers, remoteAddress });
  headers['content-type'] = 'application/json';
  return t.app.inject({ method, url, headers, payload: JSON.stringify(body), remoteAddress });
}

/** Asserts a 429 in the service envelope with a Retry-After of at least one second and CORS for ORIGIN. */
function expectLimited(res: LightMyRequestResponse): void {
  expectError(res, 429, 'rate_limited');
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
    `Retry-After: ${res.headers['retry-after']}`,
  );
  assert.equal(res.headers['access-control-allow-origin'], ORIGIN, 'the widget can read the 429');
}

/** Sends `count` requests and asserts each answered `status`. */
async function expectAll(
  count: number,
  status: number,
  send: (i: number) => Promise<LightMyRequestResponse>,
) {
  for (let i = 0; i < count; i += 1) {
    const res = await send(i);
    assert.equal(res.statusCode, status, `request ${i + 1}: ${res.body}`);
  }
}

async function countRows(
  t: TestApp,
  table: 'widget_events' | 'leads',
  column: 'agent_id' | 'conversation_id',
  value: string,
) {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(column, '=', value)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

for (const [store, env] of stores) {
  describe(`widget rate limits (${store})`, { skip: store === 'redis' && redisSkip }, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp({ env: { ...env, WIDGET_RATE_LIMIT_SCALE: '1' } });
    });
    after(() => t.close());

    /** A fresh agent and a session on it from `ip`. */
    async function session(ip: string, agent: Record<string, unknown> = {}) {
      const { agentId, tenant } = await createWidgetAgent(t, agent);
      const res = await initRequest(t, { agent_id: agentId, anon_id: newAnonId() }, { remoteAddress: ip });
      assert.equal(res.statusCode, 200, res.body);
      const data = z
        .object({ data: z.object({ token: z.string(), conversation_id: z.string() }) })
        .parse(JSON.parse(res.body));
      return { agentId, tenant, ...data.data };
    }

    test('init: 60 per minute per IP and agent; another IP or agent still passes', async () => {
      const { agentId } = await createWidgetAgent(t);
      const { agentId: otherAgent } = await createWidgetAgent(t);
      const ip = freshIp();
      await expectAll(60, 200, () =>
        initRequest(t, { agent_id: agentId, anon_id: newAnonId() }, { remoteAddress: ip }),
      );
      const visitorsBefore = await t.database.db
        .selectFrom('visitors')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('agent_id', '=', agentId)
        .executeTakeFirstOrThrow();
      // Init stores nothing (the first call of a token stores the visitor): 60 answered, 0 rows.
      assert.equal(Number(visitorsBefore.n), 0);
      const limited = await initRequest(
        t,
        { agent_id: agentId, anon_id: newAnonId() },
        { remoteAddress: ip },
      );
      expectError(limited, 429, 'rate_limited');
      assert.ok(
        Number(limited.headers['retry-after']) >= 1,
        `Retry-After: ${limited.headers['retry-after']}`,
      );
      const visitorsAfter = await t.database.db
        .selectFrom('visitors')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('agent_id', '=', agentId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(visitorsAfter.n), 0, 'the 61st init created no visitor');
      const otherIp = await initRequest(
        t,
        { agent_id: agentId, anon_id: newAnonId() },
        { remoteAddress: freshIp() },
      );
      assert.equal(otherIp.statusCode, 200, otherIp.body);
      const other = await initRequest(
        t,
        { agent_id: otherAgent, anon_id: newAnonId() },
        { remoteAddress: ip },
      );
      assert.equal(other.statusCode, 200, other.body);
      if (env.REDIS_URL) {
        // The count lives in Redis (shared by every instance), not in the in-memory insurance limiter.
        const redis = new Redis(env.REDIS_URL);
        try {
          assert.equal(await redis.exists(`svc:rl:widget-init:${ip}|${agentId}`), 1);
        } finally {
          redis.disconnect();
        }
      }
    });

    test('init: the 429 carries Access-Control-Allow-Origin for an allowed origin', async () => {
      const { agentId } = await createWidgetAgent(t);
      const ip = freshIp();
      await expectAll(60, 200, () =>
        initRequest(t, { agent_id: agentId, anon_id: newAnonId() }, { remoteAddress: ip }),
      );
      const limited = await initRequest(
        t,
        { agent_id: agentId, anon_id: newAnonId() },
        { remoteAddress: ip },
      );
      expectLimited(limited);
    });

    test('messages: 30 per minute per token, shared by the JSON and the stream route', async () => {
      const ip = freshIp();
      const s = await session(ip);
      await expectAll(30, 200, async (i) => {
        const res = await call(t, 'POST', '/v1/widget/messages', s.token, { message: `Question ${i}?` }, ip);
        if (res.statusCode === 200) expectData(res, 200, ZWidgetAnswer);
        return res;
      });
      const visitorMessages = () =>
        t.database.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('conversation_id', '=', s.conversation_id)
          .where('role', '=', 'visitor')
          .executeTakeFirstOrThrow();
      assert.equal(Number((await visitorMessages()).n), 30);
      expectLimited(await call(t, 'POST', '/v1/widget/messages', s.token, { message: 'One more?' }, ip));
      expectLimited(
        await call(t, 'POST', '/v1/widget/messages/stream', s.token, { message: 'Streamed?' }, freshIp()),
      );
      assert.equal(Number((await visitorMessages()).n), 30, 'a limited message is not stored');
      // Another visitor of the same agent has its own budget.
      const other = await initSession(t, s.agentId);
      const res = await call(t, 'POST', '/v1/widget/messages', other.token, { message: 'Hello?' }, ip);
      expectData(res, 200, ZWidgetAnswer);
    });

    test('leads: 5 per minute per token', async () => {
      const ip = freshIp();
      const s = await session(ip);
      await expectAll(5, 201, (i) =>
        call(t, 'POST', '/v1/widget/leads', s.token, { email: `lead${i}@example.com` }, ip),
      );
      expectLimited(await call(t, 'POST', '/v1/widget/leads', s.token, { email: 'lead5@example.com' }, ip));
      assert.equal(await countRows(t, 'leads', 'agent_id', s.agentId), 5);
    });

    test('events: 60 per minute per token', async () => {
      const ip = freshIp();
      const s = await session(ip);
      await expectAll(60, 202, () =>
        call(t, 'POST', '/v1/widget/events', s.token, { kind: 'page_view' }, ip),
      );
      expectLimited(await call(t, 'POST', '/v1/widget/events', s.token, { kind: 'page_view' }, ip));
      assert.equal(await countRows(t, 'widget_events', 'conversation_id', s.conversation_id), 60);
    });

    test('typing: 600 per minute per token', async () => {
      const ip = freshIp();
      const s = await session(ip);
      await expectAll(600, 202, (i) =>
        call(t, 'POST', '/v1/widget/typing', s.token, { typing: i % 2 === 0 }, ip),
      );
      expectLimited(await call(t, 'POST', '/v1/widget/typing', s.token, { typing: true }, ip));
      const row = await t.database.db
        .selectFrom('conversations')
        .select('visitor_typing_at')
        .where('id', '=', s.conversation_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.visitor_typing_at, null, 'the 600th (typing: false) was the last one applied');
    });

    test('satisfaction: 60 per minute per token', async () => {
      const ip = freshIp();
      const s = await session(ip);
      await expectAll(60, 200, (i) =>
        call(t, 'POST', '/v1/widget/satisfaction', s.token, { rating: 'up', comment: `c${i}` }, ip),
      );
      expectLimited(
        await call(t, 'POST', '/v1/widget/satisfaction', s.token, { rating: 'up', comment: 'late' }, ip),
      );
      const row = await t.database.db
        .selectFrom('conversations')
        .select(['satisfaction_rating', 'satisfaction_comment'])
        .where('id', '=', s.conversation_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.satisfaction_rating, 1);
      assert.equal(row.satisfaction_comment, 'c59', 'the limited call changed nothing');
    });

    // The agent has no site: each counted call ends in 404 (the limits run before the site lookup:
    // the token's in the auth hook, the IP's first thing in the handler).
    test('coupon/apply: 30 per minute per IP', async () => {
      const ip = freshIp();
      const s = await session(ip);
      await expectAll(30, 404, () =>
        call(t, 'POST', '/api/v1/widget/coupon/apply', s.token, { code: 'SAVE10' }, ip),
      );
      expectLimited(await call(t, 'POST', '/api/v1/widget/coupon/apply', s.token, { code: 'SAVE10' }, ip));
      // Another IP with the same token still reaches the (missing) site.
      expectError(
        await call(t, 'POST', '/api/v1/widget/coupon/apply', s.token, { code: 'SAVE10' }, freshIp()),
        404,
        'not_found',
      );
      // Another visitor from the limited IP is limited too: the key is the IP alone.
      const other = await session(freshIp());
      expectLimited(
        await call(t, 'POST', '/api/v1/widget/coupon/apply', other.token, { code: 'SAVE10' }, ip),
      );
    });

    test('coupon/apply: 120 per minute per token, across IPs', async () => {
      const s = await session(freshIp());
      const ips = Array.from({ length: 5 }, freshIp);
      await expectAll(120, 404, (i) =>
        call(t, 'POST', '/api/v1/widget/coupon/apply', s.token, { code: 'SAVE10' }, ips[i % 5] ?? ''),
      );
      const fresh = freshIp();
      expectLimited(await call(t, 'POST', '/api/v1/widget/coupon/apply', s.token, { code: 'SAVE10' }, fresh));
      // Another token from a fresh IP is not limited.
      const other = await session(freshIp());
      expectError(
        await call(t, 'POST', '/api/v1/widget/coupon/apply', other.token, { code: 'SAVE10' }, freshIp()),
        404,
        'not_found',
      );
    });
  });
}
