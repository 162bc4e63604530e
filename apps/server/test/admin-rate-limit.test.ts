import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { createApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { loadMigrations } from '../src/db/migrate.js';
import { embeddingProviderFor } from '../src/embeddings/index.js';
import { SESSION_COOKIE } from '../src/services/accounts/admin-sessions.js';
import { postSignIn, sendAs } from './support/admin-session.js';
import { bearer, expectError, tokenIdOf } from './support/http.js';
import { createTestApp, issueToken, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

/** Small budgets so the edges are cheap to reach: 5 requests a minute, 2 expensive ones. */
const ENV = { ADMIN_RATE_LIMIT_PER_MINUTE: '5', ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: '2' };

function listAgents(app: FastifyInstance, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  return sendAs(app, 'GET', '/api/v1/admin/agents', headers);
}

/** Asserts the contract's 429: the service envelope and Retry-After in whole seconds within the minute. */
function expectRateLimited(res: LightMyRequestResponse): void {
  const body = expectError(res, 429, 'rate_limited');
  assert.deepEqual(body, { message: 'Too many requests.', code: 'rate_limited', errors: {} });
  const retryAfter = String(res.headers['retry-after']);
  assert.match(retryAfter, /^[1-9][0-9]*$/, `Retry-After is whole seconds: ${retryAfter}`);
  assert.ok(Number(retryAfter) <= 60, `Retry-After within the minute: ${retryAfter}`);
}

async function freshToken(t: TestApp, tenant: Tenant): Promise<Record<string, string>> {
  return bearer((await issueToken(t, tenant, ['admin'])).token);
}

describe('admin API budgets in the configuration', () => {
  test('defaults 300 and 30 a minute; 1 is the least, 0 or a non-number fails at boot', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.adminRateLimitPerMinute, 300);
    assert.equal(defaults.adminExpensiveRateLimitPerMinute, 30);
    const least = loadConfig({
      ADMIN_RATE_LIMIT_PER_MINUTE: '1',
      ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: '1',
    });
    assert.equal(least.adminRateLimitPerMinute, 1);
    assert.equal(least.adminExpensiveRateLimitPerMinute, 1);
    for (const name of ['ADMIN_RATE_LIMIT_PER_MINUTE', 'ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE']) {
      for (const bad of ['0', '-5', '2.5', 'lots', '100001']) {
        assert.throws(() => loadConfig({ [name]: bad }), ConfigError, `${name}=${bad}`);
      }
    }
    assert.equal(loadConfig({ ADMIN_RATE_LIMIT_PER_MINUTE: '100000' }).adminRateLimitPerMinute, 100_000);
  });
});

describe('admin API: a per-minute budget per credential (memory)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let address = 0;

  before(async () => {
    t = await createTestApp({ env: ENV });
    tenant = await seedTenant(t, 'Rate limited');
  });
  after(() => t.close());

  async function signIn(): Promise<{ cookie: string; csrf: string }> {
    address += 1;
    const res = await postSignIn(
      t.app,
      { email: tenant.user.email, password: 'correct horse battery' },
      `10.1.0.${address}`,
    );
    assert.equal(res.statusCode, 200, res.body);
    const secret = res.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? '';
    return { cookie: `${SESSION_COOKIE}=${secret}`, csrf: res.json().data.csrf_token };
  }

  test('a token: requests 1–5 pass, the 6th → 429 rate_limited with Retry-After, and a refused write changes nothing', async () => {
    const auth = await freshToken(t, tenant);
    for (let i = 1; i <= 5; i += 1) {
      const res = await listAgents(t.app, auth);
      assert.equal(res.statusCode, 200, `request ${i}: ${res.body}`);
    }
    expectRateLimited(await listAgents(t.app, auth));
    const agentsBefore = await t.database.db.selectFrom('agents').select('id').execute();
    expectRateLimited(await sendAs(t.app, 'POST', '/api/v1/admin/agents', auth, { name: 'Too late' }));
    assert.deepEqual(await t.database.db.selectFrom('agents').select('id').execute(), agentsBefore);
  });

  test('another token of the same workspace keeps its own budget', async () => {
    const spent = await freshToken(t, tenant);
    for (let i = 1; i <= 6; i += 1) await listAgents(t.app, spent);
    expectRateLimited(await listAgents(t.app, spent));
    const other = await freshToken(t, tenant);
    for (let i = 1; i <= 5; i += 1) {
      const res = await listAgents(t.app, other);
      assert.equal(res.statusCode, 200, `other token, request ${i}: ${res.body}`);
    }
    expectRateLimited(await listAgents(t.app, other));
  });

  test('a session has its own budget, apart from the same user’s token and from the user’s other sessions', async () => {
    const token = await freshToken(t, tenant);
    for (let i = 1; i <= 6; i += 1) await listAgents(t.app, token);
    expectRateLimited(await listAgents(t.app, token));

    const first = await signIn();
    for (let i = 1; i <= 5; i += 1) {
      const res = await listAgents(t.app, { cookie: first.cookie });
      assert.equal(res.statusCode, 200, `session request ${i}: ${res.body}`);
    }
    expectRateLimited(await listAgents(t.app, { cookie: first.cookie }));
    // Writes count against the same session budget (and are refused before they run).
    expectRateLimited(
      await sendAs(
        t.app,
        'POST',
        '/api/v1/admin/agents',
        { cookie: first.cookie, 'x-csrf-token': first.csrf },
        { name: 'Refused' },
      ),
    );

    const second = await signIn();
    const res = await listAgents(t.app, { cookie: second.cookie });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('failed authentication never spends a credential’s budget and is never 429', async () => {
    const auth = await freshToken(t, tenant);
    const plaintext = String(auth.authorization).slice('Bearer '.length);
    const hostile: Array<Record<string, string>> = [
      bearer(`${plaintext}x`),
      bearer(plaintext.slice(0, -1)),
      bearer(await tokenIdOf(t, plaintext)),
      { cookie: `${SESSION_COOKIE}=sas_${'A'.repeat(43)}` },
      {},
    ];
    for (let round = 0; round < 3; round += 1) {
      for (const headers of hostile) expectError(await listAgents(t.app, headers), 401, 'unauthenticated');
    }
    // A token without the admin ability is refused with 403 every time, not counted either.
    const siteOnly = bearer((await issueToken(t, tenant, ['wp:integration'])).token);
    for (let i = 1; i <= 7; i += 1) expectError(await listAgents(t.app, siteOnly), 403, 'forbidden');
    for (let i = 1; i <= 5; i += 1) {
      const res = await listAgents(t.app, auth);
      assert.equal(res.statusCode, 200, `request ${i} after 15 failed attempts: ${res.body}`);
    }
    expectRateLimited(await listAgents(t.app, auth));
  });

  test('expensive routes: search 1–2 pass, the 3rd → 429 while cheap requests still pass', async () => {
    const created = await sendAs(t.app, 'POST', '/api/v1/admin/agents', await freshToken(t, tenant), {
      name: 'Searched',
    });
    assert.equal(created.statusCode, 201, created.body);
    const agentId = created.json().data.id;
    const auth = await freshToken(t, tenant);
    const search = () =>
      sendAs(t.app, 'POST', `/api/v1/admin/agents/${agentId}/search`, auth, { query: 'refund' });
    for (let i = 1; i <= 2; i += 1) {
      const res = await search();
      assert.equal(res.statusCode, 200, `search ${i}: ${res.body}`);
    }
    expectRateLimited(await search());
    // 3 of the 5 general points spent: two cheap requests left, then 429.
    for (let i = 1; i <= 2; i += 1) assert.equal((await listAgents(t.app, auth)).statusCode, 200);
    expectRateLimited(await listAgents(t.app, auth));
  });

  test('a reindex counts as expensive too', async () => {
    const auth = await freshToken(t, tenant);
    // An unknown source is 404 after the budget is counted: the 3rd is refused before the lookup.
    const reindex = () => sendAs(t.app, 'POST', '/api/v1/admin/sources/01UNKNOWN/reindex', auth, {});
    for (let i = 1; i <= 2; i += 1) expectError(await reindex(), 404, 'not_found');
    expectRateLimited(await reindex());
  });

  test('a playground question counts as expensive too: the 3rd is a JSON 429, never a stream', async () => {
    const auth = await freshToken(t, tenant);
    const ask = () =>
      sendAs(t.app, 'POST', '/api/v1/admin/agents/01UNKNOWN/playground', auth, { question: 'Refunds?' });
    for (let i = 1; i <= 2; i += 1) expectError(await ask(), 404, 'not_found');
    expectRateLimited(await ask());
  });
});

const redisUrl = process.env.TEST_REDIS_URL;

describe('admin API: two instances sharing Redis count one budget per credential (redis)', {
  skip: redisUrl ? false : 'TEST_REDIS_URL is not set',
}, () => {
  let t: TestApp;
  let second: FastifyInstance;
  let redis: Redis;
  let tenant: Tenant;

  before(async () => {
    const env = { ...ENV, REDIS_URL: redisUrl ?? '' };
    t = await createTestApp({ env });
    // A second app instance over the same store: its own limiters and its own Redis connection.
    second = await createApp({
      clock: systemClock,
      config: t.config,
      database: t.database,
      queue: t.queue,
      embeddings: embeddingProviderFor(t.config, t.database.features),
      expectedMigrations: (await loadMigrations()).length,
    });
    await second.ready();
    redis = new Redis(redisUrl ?? '');
    tenant = await seedTenant(t, 'Shared budget');
  });
  after(async () => {
    await redis.quit();
    await second.close();
    await t.close();
  });

  test('3 requests on one instance and 2 on the other pass; the 6th is 429 on both', async () => {
    const auth = await freshToken(t, tenant);
    const tokenId = await tokenIdOf(t, String(auth.authorization).slice('Bearer '.length));
    for (const app of [t.app, second, t.app, second, t.app]) {
      const res = await listAgents(app, auth);
      assert.equal(res.statusCode, 200, res.body);
    }
    assert.equal(
      await redis.get(`svc:rl:admin:token:${tokenId}`),
      '5',
      'counted in Redis under the token id',
    );
    expectRateLimited(await listAgents(second, auth));
    expectRateLimited(await listAgents(t.app, auth));
    // Another token is not affected on either instance.
    const other = await freshToken(t, tenant);
    assert.equal((await listAgents(second, other)).statusCode, 200);
    assert.equal((await listAgents(t.app, other)).statusCode, 200);
  });
});
