import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LIST_PAGE_MAX } from '@service/contract';
import { insertKbArticles, insertSources, insertTokens } from './support/bulk-rows.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const ROWS = 10_000;
const PAGE = 100;

type PageBody = { data: Array<{ id: string }>; meta: { next_cursor: string | null } };

/**
 * The console's lists with 10,000 rows each: paging through every page finds every row once,
 * in order, never more than `limit` per page, and ends with `next_cursor: null`.
 */
describe('admin lists page through 10,000 rows with a cursor', () => {
  let t: TestApp;
  let tenant: Tenant;
  let agentId: string;

  before(async () => {
    t = await createTestApp();
    tenant = await seedTenant(t, 'Ten thousand');
    const agent = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Big' }, tenant.auth);
    assert.equal(agent.statusCode, 201, agent.body);
    agentId = agent.json().data.id;
  });
  after(() => t.close());

  async function pageThrough(path: string, limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query = new URLSearchParams({ limit: String(limit) });
      if (cursor !== null) query.set('cursor', cursor);
      const separator = path.includes('?') ? '&' : '?';
      const res = await t.app.inject({
        method: 'GET',
        url: `${path}${separator}${query}`,
        headers: tenant.auth,
      });
      assert.equal(res.statusCode, 200, res.body);
      const body: PageBody = res.json();
      assert.ok(body.data.length <= limit, `page ${pages} has ${body.data.length} rows`);
      // Only the last page may be short, and it has no next cursor.
      if (body.meta.next_cursor !== null) assert.equal(body.data.length, limit);
      ids.push(...body.data.map((row) => row.id));
      cursor = body.meta.next_cursor;
      pages += 1;
      assert.ok(pages <= ROWS, 'paging does not end');
    } while (cursor !== null);
    return { ids, pages };
  }

  /** Every inserted id exactly once, in creation order (no duplicate, no gap). */
  function assertAll(found: string[], inserted: string[], before: string[] = []): void {
    const expected = [...before, ...inserted];
    assert.equal(new Set(found).size, found.length, 'no row twice');
    assert.equal(found.length, expected.length);
    assert.deepEqual(found, expected);
  }

  test('API tokens', async () => {
    const seeded = await listedIds('/api/v1/admin/tokens');
    const inserted = await insertTokens(t.database.db, tenant.workspace.id, ROWS);
    const { ids, pages } = await pageThrough('/api/v1/admin/tokens', PAGE);
    assertAll(ids, inserted, seeded);
    assert.equal(pages, Math.ceil((ROWS + seeded.length) / PAGE));
  });

  test('KB articles, oldest first and newest first', async () => {
    const inserted = await insertKbArticles(t.database.db, tenant.workspace.id, ROWS);
    const { ids, pages } = await pageThrough('/api/v1/admin/kb/articles', PAGE);
    assertAll(ids, inserted);
    // 10,000 rows in pages of 100: the 100th page is exactly full and has no next cursor.
    assert.equal(pages, ROWS / PAGE);
    const newestFirst = await pageThrough('/api/v1/admin/kb/articles?order=desc', PAGE);
    assertAll(newestFirst.ids, [...inserted].reverse());
  });

  test("an agent's sources (counts included)", async () => {
    const inserted = await insertSources(t.database.db, tenant.workspace.id, agentId, ROWS);
    const { ids } = await pageThrough(`/api/v1/admin/agents/${agentId}/sources`, PAGE);
    assertAll(ids, inserted);
  });

  test('without limit the page is the largest allowed; limits outside 1–100 are 422', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/kb/articles', headers: tenant.auth });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.length, LIST_PAGE_MAX);
    assert.equal(typeof res.json().meta.next_cursor, 'string');
    for (const limit of ['0', '101', '-1', '1.5', 'ten']) {
      const bad = await t.app.inject({
        method: 'GET',
        url: `/api/v1/admin/tokens?limit=${limit}`,
        headers: tenant.auth,
      });
      assert.equal(bad.statusCode, 422, `limit=${limit}`);
      assert.ok(bad.json().errors.limit, `limit=${limit}: ${bad.body}`);
    }
    const edge = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/tokens?limit=1',
      headers: tenant.auth,
    });
    assert.equal(edge.json().data.length, 1);
  });

  async function listedIds(path: string): Promise<string[]> {
    const res = await t.app.inject({ method: 'GET', url: path, headers: tenant.auth });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as PageBody).data.map((row) => row.id);
  }
});
