import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZSqlTestResult } from '@service/contract';
import { expectData, expectValidation } from './support/http.js';
import {
  LOCAL_POSTGRES as PG,
  LOCAL_POSTGRES_ALLOW as PG_ALLOW,
  unreachable,
} from './support/local-databases.js';
import { createAgent } from './support/site-sync.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

// `POST /agents/{id}/sources/test-sql`: the query's read-only check, the crawl-safety guard and a
// 3-row preview, storing nothing. The preview runs on the machine's own PostgreSQL on loopback
// (SAFE_URL_ALLOW lets the guard through to it); without one that test is skipped by name.
const PG_SKIP = await unreachable('PostgreSQL', PG);

describe('admin API: testing an SQL source before adding it', () => {
  let t: TestApp;
  let tenant: Tenant;
  let agentId = '';
  const body = (overrides: Record<string, unknown> = {}) => ({
    type: 'sql',
    engine: 'postgres',
    host: PG.host,
    port: PG.port,
    database: PG.database,
    user: PG.user,
    password: PG.password,
    query: 'SELECT n, n * 2 AS twice, NULL AS nothing FROM generate_series(1, 10) AS n ORDER BY n',
    ...overrides,
  });
  const path = () => `/api/v1/admin/agents/${agentId}/sources/test-sql`;

  before(async () => {
    t = await createTestApp({ env: { SAFE_URL_ALLOW: PG_ALLOW.join(',') } });
    tenant = await seedTenant(t);
    agentId = await createAgent(t, tenant, { name: 'SQL agent' });
  });
  after(() => t?.close());

  const sourceCount = async () =>
    (await t.database.db.selectFrom('sources').select('id').where('agent_id', '=', agentId).execute()).length;

  test('a query that is not one read-only SELECT is 422 errors.query, and nothing connects', async () => {
    const res = await injectJson(t.app, 'POST', path(), body({ query: 'DELETE FROM users' }), tenant.auth);
    const error = expectValidation(res, ['query']);
    assert.match(String(error.errors.query), /only a single SELECT statement is accepted; found DELETE/);
  });

  test('a host the guard refuses is ok false with the reason verbatim', async () => {
    const res = await injectJson(t.app, 'POST', path(), body({ host: '169.254.169.254' }), tenant.auth);
    const result = expectData(res, 200, ZSqlTestResult);
    assert.equal(result.ok, false);
    assert.match(result.reason ?? '', /^refused: 169\.254\.169\.254 is a link-local address/);
    assert.deepEqual(result.rows, []);
  });

  test("another workspace's agent is 404", async () => {
    const other = await seedTenant(t);
    const res = await injectJson(t.app, 'POST', path(), body(), other.auth);
    assert.equal(res.statusCode, 404, res.body);
  });

  test('a working connection previews the first 3 rows as text and stores nothing', {
    skip: PG_SKIP,
  }, async () => {
    const res = await injectJson(t.app, 'POST', path(), body(), tenant.auth);
    const result = expectData(res, 200, ZSqlTestResult);
    assert.deepEqual(result, {
      ok: true,
      reason: null,
      columns: ['n', 'twice', 'nothing'],
      rows: [
        { n: '1', twice: '2', nothing: null },
        { n: '2', twice: '4', nothing: null },
        { n: '3', twice: '6', nothing: null },
      ],
    });
    assert.ok(!res.body.includes(PG.password) || PG.password === '', 'the password is not in the answer');
    assert.equal(await sourceCount(), 0);
  });
});
