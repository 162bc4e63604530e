import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { insertKbArticles, insertSources, insertTokens } from './support/bulk-rows.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

async function planOf(db: Kysely<DB>, query: RawBuilder<unknown>): Promise<string> {
  const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(db);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

type PageBody = { data: Array<{ id: string }>; meta: { next_cursor: string | null } };

/** List cursors are opaque, signed and bound to their list, workspace and agent. */
describe('admin list cursors: tamper-checked, tenant-bound, index-backed', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let agentA: string;
  let agentA2: string;
  let agentB: string;

  before(async () => {
    t = await createTestApp();
    a = await seedTenant(t, 'Cursor A');
    b = await seedTenant(t, 'Cursor B');
    agentA = await createAgent(a, 'A one');
    agentA2 = await createAgent(a, 'A two');
    agentB = await createAgent(b, 'B one');
    for (const tenant of [a, b]) {
      await insertTokens(t.database.db, tenant.workspace.id, 30);
      await insertKbArticles(t.database.db, tenant.workspace.id, 30);
    }
    await insertSources(t.database.db, a.workspace.id, agentA, 30);
    await insertSources(t.database.db, a.workspace.id, agentA2, 30);
    await insertSources(t.database.db, b.workspace.id, agentB, 30);
  });
  after(() => t.close());

  async function createAgent(tenant: Tenant, name: string): Promise<string> {
    const res = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name }, tenant.auth);
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.id;
  }

  async function get(path: string, tenant: Tenant, query: Record<string, string>) {
    const res = await t.app.inject({
      method: 'GET',
      url: `${path}?${new URLSearchParams(query)}`,
      headers: tenant.auth,
    });
    return res;
  }

  async function firstCursor(path: string, tenant: Tenant): Promise<string> {
    const res = await get(path, tenant, { limit: '1' });
    assert.equal(res.statusCode, 200, res.body);
    const cursor = (res.json() as PageBody).meta.next_cursor;
    assert.ok(cursor);
    return cursor;
  }

  function assertCursorRefused(res: { statusCode: number; json(): unknown; body: string }) {
    assert.equal(res.statusCode, 422, res.body);
    const body = res.json() as { code: string; errors: Record<string, string[]> };
    assert.equal(body.code, 'validation_failed');
    assert.ok(body.errors.cursor, res.body);
  }

  const lists = () => [
    '/api/v1/admin/tokens',
    '/api/v1/admin/kb/articles',
    '/api/v1/admin/agents',
    `/api/v1/admin/agents/${agentA}/sources`,
  ];

  test('the next page starts right after the cursor', async () => {
    for (const path of lists()) {
      const all = (await get(path, a, { limit: '100' })).json() as PageBody;
      const cursor = await firstCursor(path, a);
      const next = (await get(path, a, { limit: '5', cursor })).json() as PageBody;
      assert.deepEqual(
        next.data.map((row) => row.id),
        all.data.slice(1, 6).map((row) => row.id),
        path,
      );
    }
  });

  test('an edited, forged or malformed cursor is 422 on cursor', async () => {
    for (const path of lists()) {
      const cursor = await firstCursor(path, a);
      const [id = '', mac = ''] = cursor.split('.');
      // Pointing the same MAC at another id (the row before it: a page skipping nothing).
      const lastChar = id.at(-1) === '0' ? '1' : '0';
      const hostile = [
        `${id.slice(0, -1)}${lastChar}.${mac}`,
        `${id}.${mac.slice(0, -1)}${mac.at(-1) === 'A' ? 'B' : 'A'}`,
        id,
        `${id}.`,
        `.${mac}`,
        'not a cursor',
        `${id}.${mac}.${mac}`,
        Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000', id])).toString('base64url'),
        `${id.toLowerCase()}.${mac}`,
        `${id}\u0000.${mac}`,
      ];
      for (const bad of hostile) assertCursorRefused(await get(path, a, { limit: '5', cursor: bad }));
    }
  });

  test("a cursor of workspace A used in workspace B is refused and reads nothing of A's", async () => {
    const pairs: Array<[string, string]> = [
      ['/api/v1/admin/tokens', '/api/v1/admin/tokens'],
      ['/api/v1/admin/kb/articles', '/api/v1/admin/kb/articles'],
      ['/api/v1/admin/agents', '/api/v1/admin/agents'],
      [`/api/v1/admin/agents/${agentA}/sources`, `/api/v1/admin/agents/${agentB}/sources`],
    ];
    for (const [pathA, pathB] of pairs) {
      const cursor = await firstCursor(pathA, a);
      assertCursorRefused(await get(pathB, b, { limit: '5', cursor }));
    }
    // B's own listing holds none of A's rows, and A's agent is a 404 to B.
    const idsOfA = new Set(
      ((await get('/api/v1/admin/tokens', a, { limit: '100' })).json() as PageBody).data.map((r) => r.id),
    );
    const ofB = (await get('/api/v1/admin/tokens', b, { limit: '100' })).json() as PageBody;
    assert.ok(ofB.data.every((row) => !idsOfA.has(row.id)));
    assert.equal((await get(`/api/v1/admin/agents/${agentA}/sources`, b, {})).statusCode, 404);
  });

  test("a cursor is bound to its list and to its agent: another list's or agent's is refused", async () => {
    const tokensCursor = await firstCursor('/api/v1/admin/tokens', a);
    assertCursorRefused(await get('/api/v1/admin/kb/articles', a, { cursor: tokensCursor }));
    assertCursorRefused(await get('/api/v1/admin/agents', a, { cursor: tokensCursor }));
    const sourcesCursor = await firstCursor(`/api/v1/admin/agents/${agentA}/sources`, a);
    assertCursorRefused(await get(`/api/v1/admin/agents/${agentA2}/sources`, a, { cursor: sourcesCursor }));
  });

  test('order=desc lists newest first and pages on; a cursor continues only the order it was made in', async () => {
    for (const path of lists()) {
      const oldestFirst = (await get(path, a, { limit: '100' })).json() as PageBody;
      const first = await get(path, a, { limit: '1', order: 'desc' });
      assert.equal(first.statusCode, 200, first.body);
      const cursor = (first.json() as PageBody).meta.next_cursor ?? '';
      const next = (await get(path, a, { limit: '5', order: 'desc', cursor })).json() as PageBody;
      assert.deepEqual(
        [...(first.json() as PageBody).data, ...next.data].map((row) => row.id),
        [...oldestFirst.data]
          .reverse()
          .slice(0, 1 + next.data.length)
          .map((row) => row.id),
        path,
      );
      assertCursorRefused(await get(path, a, { limit: '5', cursor }));
      assertCursorRefused(await get(path, a, { limit: '5', order: 'asc', cursor }));
    }
    const bad = await get('/api/v1/admin/tokens', a, { order: 'newest' });
    assert.equal(bad.statusCode, 422);
    assert.ok(bad.json().errors.order, bad.body);
  });

  test('each page is an index scan in id order (no sort, no sequential scan)', async () => {
    const db = t.database.db;
    await insertTokens(db, a.workspace.id, 3000);
    await insertKbArticles(db, a.workspace.id, 3000);
    await insertSources(db, a.workspace.id, agentA, 3000);
    await sql`analyze`.execute(db);
    const ws = a.workspace.id;
    const after = '00000000000000000000000000';
    // The pages, on tables with rows: the planner picks an index that yields id order.
    const pages = [
      sql`select * from api_tokens where workspace_id = ${ws} and id > ${after} order by id limit 101`,
      sql`select * from kb_articles where workspace_id = ${ws} and id > ${after} order by id limit 101`,
      sql`select * from sources where workspace_id = ${ws} and agent_id = ${agentA} and id > ${after} order by id limit 101`,
    ];
    for (const query of pages) {
      const plan = await planOf(db, query);
      assert.match(plan, /Index (Only )?Scan/, plan);
      assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
    }
    // The agents page (a workspace has few agents) and the lists' counts: an index serves each.
    // These tables are small here, so sequential scans are switched off: the question is whether
    // an index can serve the query, not whether it is cheaper on three rows.
    const counts = {
      agents_workspace_idx: sql`select * from agents where workspace_id = ${ws} and id > ${after} order by id limit 101`,
      documents_source_idx: sql`select count(*) from documents where source_id = ${agentA} and index_status = 'indexed'`,
      answer_turns_agent_idx: sql`select max(created_at) from answer_turns where workspace_id = ${ws} and agent_id = ${agentA}`,
      sources_workspace_agent_id_idx: sql`select count(*) from sources where workspace_id = ${ws} and agent_id = ${agentA}`,
    };
    await db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      for (const [index, query] of Object.entries(counts)) {
        const plan = await planOf(trx, query);
        assert.match(plan, new RegExp(`Index (Only )?Scan (Backward )?(using|on) ${index} `), plan);
      }
    });
  });
});
