import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { newId } from '../src/security/ids.js';
import { insertSources } from './support/bulk-rows.js';
import { seedConversation } from './support/conversations.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

type ListItem = {
  id: string;
  name: string;
  knowledge: {
    source_count: number;
    failed_source_count: number;
    document_count: number;
    chunk_count: number;
  };
  last_answer_at: string | null;
};

/** `n` documents of a source, each with `chunksEach` chunks; one statement per table. */
async function insertDocuments(
  db: Kysely<DB>,
  where: { workspaceId: string; agentId: string; sourceId: string },
  n: number,
  chunksEach: number,
): Promise<void> {
  const docIds = Array.from({ length: n }, () => newId());
  await sql`insert into documents (id, workspace_id, agent_id, source_id, external_id, kind, content_hash)
    select u.id, ${where.workspaceId}, ${where.agentId}, ${where.sourceId}, u.id, 'text', 'h'
    from unnest(${docIds}::text[]) as u(id)`.execute(db);
  await sql`insert into chunks (id, workspace_id, agent_id, document_id, ordinal, content, content_hash, tsv)
    select d.id || '-' || o, ${where.workspaceId}, ${where.agentId}, d.id, o, 'text', 'h', to_tsvector('simple', 'text')
    from unnest(${docIds}::text[]) as d(id), generate_series(1, ${chunksEach}) as o`.execute(db);
}

/** `GET /agents`: each agent with its knowledge size and last answer, in one answer. */
describe('admin agents list: knowledge counts and last answer', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;

  before(async () => {
    t = await createTestApp();
    tenant = await seedTenant(t, 'Counts');
    other = await seedTenant(t, 'Counts other');
  });
  after(() => t.close());

  async function createAgent(who: Tenant, name: string): Promise<string> {
    const res = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name }, who.auth);
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.id;
  }

  test('counts sources (and failed ones), documents and chunks per agent, and the last answer time', async () => {
    const db = t.database.db;
    const ws = tenant.workspace.id;
    const busy = await createAgent(tenant, 'Busy');
    const idle = await createAgent(tenant, 'Idle');
    const [first = '', second = ''] = await insertSources(db, ws, busy, 3);
    await db
      .updateTable('sources')
      .set({ status: 'failed', error: 'refused' })
      .where('id', '=', second)
      .execute();
    await insertDocuments(db, { workspaceId: ws, agentId: busy, sourceId: first }, 4, 3);
    await insertDocuments(db, { workspaceId: ws, agentId: busy, sourceId: second }, 1, 2);
    // Another workspace's agent with knowledge and answers: none of it counts here.
    const foreign = await createAgent(other, 'Foreign');
    const [foreignSource = ''] = await insertSources(db, other.workspace.id, foreign, 2);
    await insertDocuments(
      db,
      { workspaceId: other.workspace.id, agentId: foreign, sourceId: foreignSource },
      5,
      5,
    );
    for (const [workspaceId, agentId] of [
      [ws, busy],
      [ws, busy],
      [other.workspace.id, foreign],
    ] as const) {
      await seedConversation(t, {
        workspaceId,
        agentId,
        messages: [
          { role: 'visitor', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
        answerTurns: [{ question: 'hi', answer: 'hello', questionIndex: 0, answerIndex: 1 }],
      });
    }
    const latest = new Date('2026-11-20T08:30:00.123Z');
    // Answer times are written once by the service; the test sets them to known instants.
    const at = (iso: string) => sql`${iso}::timestamptz`;
    await sql`update answer_turns set created_at = ${at('2026-11-19T00:00:00Z')}`.execute(db);
    await sql`update answer_turns set created_at = ${at(latest.toISOString())}
      where id = (select id from answer_turns where agent_id = ${busy} order by id limit 1)`.execute(db);
    await sql`update answer_turns set created_at = ${at('2026-11-25T00:00:00Z')} where agent_id = ${foreign}`.execute(
      db,
    );

    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/agents', headers: tenant.auth });
    assert.equal(res.statusCode, 200, res.body);
    const items: ListItem[] = res.json().data;
    assert.deepEqual(
      items.map((item) => [item.name, item.knowledge, item.last_answer_at]),
      [
        [
          'Busy',
          { source_count: 3, failed_source_count: 1, document_count: 5, chunk_count: 14 },
          latest.toISOString(),
        ],
        ['Idle', { source_count: 0, failed_source_count: 0, document_count: 0, chunk_count: 0 }, null],
      ],
    );
    assert.equal(res.json().meta.next_cursor, null);
    // The single-agent read keeps its shape: the counts belong to the list.
    const one = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/agents/${idle}`,
      headers: tenant.auth,
    });
    assert.equal(one.json().data.knowledge, undefined);
  });

  test('agents page like the other lists', async () => {
    const fresh = await seedTenant(t, 'Many agents');
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) made.push(await createAgent(fresh, `Agent ${i}`));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? 'limit=2' : `limit=2&cursor=${encodeURIComponent(cursor)}`;
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/admin/agents?${query}`,
        headers: fresh.auth,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.json().data.length <= 2);
      seen.push(...res.json().data.map((item: ListItem) => item.id));
      cursor = res.json().meta.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(seen, made);
  });
});
