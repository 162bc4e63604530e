import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TAgentAnalytics, ZAgentAnalytics } from '@service/contract';
import { sql } from 'kysely';
import { newId } from '../src/security/ids.js';
import { csvField, getAgentAnalyticsByFullScan } from '../src/services/analytics/agent-analytics.js';
import { seedAgent, seedConversation } from './support/conversations.js';
import { expectData, expectError, expectValidation } from './support/http.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

// Each conversation and everything in it counts on the UTC day it started; the roll-ups are
// recomputed for the days a change touched (triggers mark them) and must equal a full scan.

const DAY1 = '2026-03-10';
const DAY2 = '2026-03-11';
const FAQ = { id: 1, url: 'https://shop.example.com/faq', title: 'FAQ' };
const SHIPPING = { id: 2, url: 'https://shop.example.com/shipping', title: 'Shipping' };

describe('analytics roll-ups', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let agentId: string;
  let secondAgentId: string;
  let otherAgentId: string;
  let convA: string;
  let convB: string;
  let convC: string;

  const url = (query: string, id = agentId) => `/api/v1/admin/agents/${id}/analytics${query}`;
  const read = async (query = `?from=${DAY1}&to=${DAY2}`, id = agentId, who = tenant) =>
    expectData(
      await t.app.inject({ method: 'GET', url: url(query, id), headers: who.auth }),
      200,
      ZAgentAnalytics,
    );
  const fullScan = (from = DAY1, to = DAY2, id = agentId) =>
    getAgentAnalyticsByFullScan(
      {
        db: t.database.db,
        clock: t.clock,
        workspaceId: tenant.workspace.id,
        actor: { type: 'cli', id: null },
        agentId: id,
      },
      { from, to },
    );
  const assertMatchesFullScan = async (got: TAgentAnalytics) => {
    assert.deepEqual(got, await fullScan(got.from, got.to));
  };
  /** Records the conversation's answer turn as a question that went wrong (as the chat does). */
  const recordQuestion = async (conversationId: string, question: string, reasons: string[]) => {
    const turn = await t.database.db
      .selectFrom('answer_turns')
      .select('id')
      .where('conversation_id', '=', conversationId)
      .executeTakeFirstOrThrow();
    await t.database.db
      .insertInto('agent_questions')
      .values({
        id: newId(),
        workspace_id: tenant.workspace.id,
        agent_id: agentId,
        conversation_id: conversationId,
        turn_id: turn.id,
        question,
        reasons,
        retrieved: '[]',
      })
      .execute();
  };

  before(async () => {
    t = await createTestApp();
    tenant = await seedTenant(t);
    other = await seedTenant(t, 'Other shop');
    agentId = await seedAgent(t, tenant.workspace.id);
    secondAgentId = await seedAgent(t, tenant.workspace.id, 'Second bot');
    otherAgentId = await seedAgent(t, other.workspace.id);
    // A: answered by the bot alone, rated up, cites the FAQ.
    ({ conversationId: convA } = await seedConversation(t, {
      workspaceId: tenant.workspace.id,
      agentId,
      createdAt: `${DAY1}T00:00:00.000Z`,
      satisfactionRating: 1,
      messages: [
        { role: 'visitor', content: 'Are returns free?' },
        { role: 'assistant', content: 'Yes [1].', citations: [FAQ] },
        { role: 'visitor', content: 'Thanks' },
      ],
      answerTurns: [{ question: 'Are returns free?', answer: 'Yes [1].', questionIndex: 0, answerIndex: 1 }],
    }));
    // B: nothing found, handed to a human, rated down; its answer cited the FAQ and Shipping.
    ({ conversationId: convB } = await seedConversation(t, {
      workspaceId: tenant.workspace.id,
      agentId,
      createdAt: `${DAY1}T23:59:59.999Z`,
      humanRequestedAt: new Date(`${DAY2}T00:10:00Z`),
      satisfactionRating: -1,
      messages: [
        { role: 'visitor', content: 'Where is my parcel?' },
        { role: 'assistant', content: 'I do not know [1][2].', citations: [FAQ, SHIPPING, FAQ] },
      ],
      answerTurns: [
        {
          question: 'Where is my parcel?',
          answer: 'I do not know.',
          outcome: 'no_answer',
          questionIndex: 0,
          answerIndex: 1,
        },
      ],
    }));
    await recordQuestion(convB, 'Where is my parcel?', ['no_match', 'fallback']);
    // C: the next day, the same question as A written differently; not rated yet.
    ({ conversationId: convC } = await seedConversation(t, {
      workspaceId: tenant.workspace.id,
      agentId,
      createdAt: `${DAY2}T00:00:00.000Z`,
      messages: [
        { role: 'visitor', content: '  ARE returns   free ?? ' },
        { role: 'assistant', content: 'Yes [1].', citations: [FAQ] },
      ],
      answerTurns: [
        { question: '  ARE returns   free ?? ', answer: 'Yes [1].', questionIndex: 0, answerIndex: 1 },
      ],
    }));
    // Outside the period, another agent, another workspace: never counted here.
    await seedConversation(t, {
      workspaceId: tenant.workspace.id,
      agentId,
      createdAt: '2026-03-09T23:59:59.999Z',
      messages: [{ role: 'visitor', content: 'Before' }],
    });
    await seedConversation(t, {
      workspaceId: tenant.workspace.id,
      agentId: secondAgentId,
      createdAt: `${DAY1}T12:00:00Z`,
      messages: [{ role: 'visitor', content: 'Other agent' }],
    });
    await seedConversation(t, {
      workspaceId: other.workspace.id,
      agentId: otherAgentId,
      createdAt: `${DAY1}T12:00:00Z`,
      satisfactionRating: 1,
      messages: [{ role: 'visitor', content: 'Other tenant' }],
    });
  });
  after(() => t.close());

  test('counts per day, totals, grouped questions and cited sources with their ratings', async () => {
    const got = await read();
    assert.equal(got.from, DAY1);
    assert.equal(got.to, DAY2);
    assert.deepEqual(got.days, [
      {
        day: DAY1,
        conversations: 2,
        visitor_messages: 3,
        questions: 2,
        bot_only: 1,
        handed_off: 1,
        unanswered: 1,
        rated_up: 1,
        rated_down: 1,
      },
      {
        day: DAY2,
        conversations: 1,
        visitor_messages: 1,
        questions: 1,
        bot_only: 1,
        handed_off: 0,
        unanswered: 0,
        rated_up: 0,
        rated_down: 0,
      },
    ]);
    assert.equal(got.totals.conversations, 3);
    assert.equal(got.totals.deflection_rate, 2 / 3);
    assert.equal(got.totals.unanswered_rate, 1 / 3);
    assert.equal(got.totals.satisfaction_rate, 0.5);
    assert.deepEqual(got.top_questions, [
      { question: 'ARE returns   free ??', asks: 2, unanswered: 0 },
      { question: 'Where is my parcel?', asks: 1, unanswered: 1 },
    ]);
    assert.deepEqual(got.top_sources, [
      { title: 'FAQ', url: FAQ.url, cited: 3, rated_up: 1, rated_down: 1 },
      { title: 'Shipping', url: SHIPPING.url, cited: 1, rated_up: 0, rated_down: 1 },
    ]);
    await assertMatchesFullScan(got);
  });

  test('changes after a read (rating, message, handoff, deletion) are counted on the next read', async () => {
    await read();
    const db = t.database.db;
    await db.updateTable('conversations').set({ satisfaction_rating: 1 }).where('id', '=', convC).execute();
    await db
      .insertInto('messages')
      .values({
        id: newId(),
        workspace_id: tenant.workspace.id,
        conversation_id: convA,
        role: 'visitor',
        content: 'More',
      })
      .execute();
    let got = await read();
    assert.equal(got.days[1]?.rated_up, 1);
    assert.equal(got.days[0]?.visitor_messages, 4);
    await assertMatchesFullScan(got);

    await db
      .updateTable('conversations')
      .set({ human_requested_at: new Date() })
      .where('id', '=', convC)
      .execute();
    got = await read();
    assert.equal(got.days[1]?.handed_off, 1);
    assert.equal(got.days[1]?.bot_only, 0);
    await assertMatchesFullScan(got);

    await db.deleteFrom('conversations').where('id', '=', convB).execute();
    got = await read();
    assert.equal(got.days[0]?.conversations, 1);
    assert.equal(got.days[0]?.unanswered, 0);
    assert.deepEqual(
      got.top_sources.map((s) => [s.title, s.cited]),
      [['FAQ', 2]],
    );
    await assertMatchesFullScan(got);
    const dirty = await db
      .selectFrom('analytics_dirty_days')
      .selectAll()
      .where('workspace_id', '=', tenant.workspace.id)
      .execute();
    assert.deepEqual(dirty, [], 'a read leaves no dirty day of its workspace');
  });

  test('period edges: days are UTC and both ends are included; empty days are zeros', async () => {
    const one = await read(`?from=${DAY2}&to=${DAY2}`);
    assert.deepEqual(
      one.days.map((d) => d.day),
      [DAY2],
    );
    const before = await read('?from=2026-03-09&to=2026-03-09');
    assert.equal(before.days[0]?.conversations, 1);
    const empty = await read('?from=2025-01-01&to=2025-01-03');
    assert.deepEqual(
      empty.days.map((d) => [d.day, d.conversations]),
      [
        ['2025-01-01', 0],
        ['2025-01-02', 0],
        ['2025-01-03', 0],
      ],
    );
    assert.equal(empty.totals.deflection_rate, null);
    const year = await read('?from=2024-01-01&to=2024-12-31');
    assert.equal(year.days.length, 366);
    const defaults = await read('');
    assert.equal(defaults.days.length, 30);
    assert.equal(defaults.to, t.clock.now().toISOString().slice(0, 10));
  });

  test('bad periods are 422 in the envelope', async () => {
    const bad = (query: string) => t.app.inject({ method: 'GET', url: url(query), headers: tenant.auth });
    expectValidation(await bad('?from=2024-01-01&to=2025-01-01'), ['from']);
    expectValidation(await bad(`?from=${DAY2}&to=${DAY1}`), ['from']);
    expectValidation(await bad('?from=2026-02-30'), ['from']);
    expectValidation(await bad('?to=yesterday'), ['to']);
    expectValidation(await bad('?from=2026-03-10T00:00:00Z'), ['from']);
    expectValidation(await bad(`?from=${DAY1}&agent=x`), ['agent']);
    expectValidation(await bad(`?from='%3Bdrop%20table%20conversations--`), ['from']);
  });

  test("another workspace's agent is 404; its numbers stay its own", async () => {
    expectError(
      await t.app.inject({ method: 'GET', url: url('', otherAgentId), headers: tenant.auth }),
      404,
      'not_found',
    );
    const theirs = await read(`?from=${DAY1}&to=${DAY1}`, otherAgentId, other);
    assert.equal(theirs.totals.conversations, 1);
    assert.equal(theirs.totals.rated_up, 1);
    const second = await read(`?from=${DAY1}&to=${DAY1}`, secondAgentId);
    assert.equal(second.totals.conversations, 1);
    assert.equal(second.totals.visitor_messages, 1);
  });

  test('CSV export: one row per day, attachment, formula-safe fields', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/agents/${agentId}/analytics.csv?from=${DAY1}&to=${DAY2}`,
      headers: tenant.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.equal(res.headers['content-disposition'], `attachment; filename="analytics-${DAY1}-${DAY2}.csv"`);
    const lines = res.body.trimEnd().split('\r\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[0]?.startsWith('"day","conversations","visitor_messages"'), true);
    assert.equal(lines[1]?.startsWith(`"${DAY1}","1",`), true, lines[1]);
    assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvField('@SUM(A1)'), `"'@SUM(A1)"`);
    assert.equal(csvField('-1+2'), `"'-1+2"`);
    assert.equal(csvField('plain'), '"plain"');
    expectValidation(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/admin/agents/${agentId}/analytics.csv?from=x`,
        headers: tenant.auth,
      }),
      ['from'],
    );
  });

  test('the migration marks every change: a bulk insert is counted like single rows', async () => {
    const rows = Array.from({ length: 50 }, () => ({ visitor: newId(), conversation: newId() }));
    await sql`insert into visitors (id, workspace_id, agent_id, anon_id)
      select u.v, ${tenant.workspace.id}, ${secondAgentId}, 'bulk-' || u.v from unnest(${rows.map((r) => r.visitor)}::text[]) as u(v)`.execute(
      t.database.db,
    );
    await sql`insert into conversations (id, workspace_id, agent_id, visitor_id, created_at)
      select c, ${tenant.workspace.id}, ${secondAgentId}, v, ${`${DAY2}T08:00:00Z`}::timestamptz
      from unnest(${rows.map((r) => r.conversation)}::text[], ${rows.map((r) => r.visitor)}::text[]) as u(c, v)`.execute(
      t.database.db,
    );
    const got = await read(`?from=${DAY2}&to=${DAY2}`, secondAgentId);
    assert.equal(got.totals.conversations, 50);
    assert.deepEqual(got, await fullScan(DAY2, DAY2, secondAgentId));
  });
});
