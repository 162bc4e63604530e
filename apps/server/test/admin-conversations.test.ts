import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZConversationDetail, ZConversationPage } from '@service/contract';
import { seedAgent, seedConversation } from './support/conversations.js';
import { bearer, expectData, expectError, expectValidation, UNAUTHENTICATED_BODY } from './support/http.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

const BASE = '/api/v1/admin/conversations';
// The clock the app is pinned to: visitor_typing is computed against it.
const CLOCK = new Date('2031-05-06T07:08:09.000Z');
const ago = (ms: number) => new Date(CLOCK.getTime() - ms);

describe('admin API: conversations inbox', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  let agentId: string;
  let otherAgentId: string;

  const list = async (tenant: Tenant, query = '') => {
    const res = await t.app.inject({ url: `${BASE}${query}`, headers: tenant.auth });
    assert.equal(res.statusCode, 200, res.body);
    return ZConversationPage.strict().parse(res.json());
  };

  before(async () => {
    t = await createTestApp({ clock: { now: () => CLOCK } });
    acme = await seedTenant(t, 'Acme Inbox');
    other = await seedTenant(t, 'Other Inbox');
    agentId = await seedAgent(t, acme.workspace.id);
    otherAgentId = await seedAgent(t, other.workspace.id);
  });
  after(() => t.close());

  test('auth: no token 401, integration-only token 403, other tenant 404 on every route', async () => {
    const { conversationId } = await seedConversation(t, { workspaceId: acme.workspace.id, agentId });
    const integration = await issueToken(t, acme, ['wp:integration']);
    const routes: Array<{ method: 'GET' | 'POST'; url: string; body?: unknown }> = [
      { method: 'GET', url: BASE },
      { method: 'GET', url: `${BASE}/${conversationId}` },
      { method: 'POST', url: `${BASE}/${conversationId}/claim` },
      { method: 'POST', url: `${BASE}/${conversationId}/messages`, body: { content: 'hi' } },
      { method: 'POST', url: `${BASE}/${conversationId}/release` },
    ];
    const before = await t.database.db
      .selectFrom('conversations')
      .selectAll()
      .where('id', '=', conversationId)
      .executeTakeFirstOrThrow();
    for (const route of routes) {
      const send = (headers: Record<string, string>) =>
        route.method === 'GET'
          ? t.app.inject({ url: route.url, headers })
          : injectJson(t.app, route.method, route.url, route.body ?? {}, headers);
      const anonymous = await send({});
      assert.equal(anonymous.statusCode, 401, route.url);
      assert.equal(anonymous.body, UNAUTHENTICATED_BODY);
      expectError(await send(bearer(integration.token)), 403, 'forbidden');
      if (route.url !== BASE) {
        const foreign = expectError(await send(other.auth), 404, 'not_found');
        assert.deepEqual(foreign, { message: 'Not found.', code: 'not_found', errors: {} });
      }
    }
    assert.deepEqual((await list(other)).data, []);
    const afterAll = await t.database.db
      .selectFrom('conversations')
      .selectAll()
      .where('id', '=', conversationId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(afterAll, before);
    const messages = await t.database.db
      .selectFrom('messages')
      .select('id')
      .where('conversation_id', '=', conversationId)
      .execute();
    assert.equal(messages.length, 0);
  });

  test('lists newest first with counts, a 200-character preview, satisfaction and shopper flags', async () => {
    const tenant = await seedTenant(t, 'Shape');
    const agent = await seedAgent(t, tenant.workspace.id);
    const older = await seedConversation(t, {
      workspaceId: tenant.workspace.id,
      agentId: agent,
      createdAt: '2030-01-01T00:00:00Z',
      satisfactionRating: -1,
      satisfactionComment: 'meh',
    });
    const newer = await seedConversation(t, {
      workspaceId: tenant.workspace.id,
      agentId: agent,
      status: 'waiting',
      createdAt: '2030-01-02T00:00:00Z',
      humanRequestedAt: new Date('2030-01-02T00:05:00Z'),
      satisfactionRating: 1,
      shopperVerifiedAt: new Date('2030-01-02T00:01:00Z'),
      messages: [
        { role: 'visitor', content: 'Where is my order?', createdAt: new Date('2030-01-02T00:01:00Z') },
        { role: 'assistant', content: 'é'.repeat(201), createdAt: new Date('2030-01-02T00:02:00Z') },
      ],
    });
    const page = await list(tenant);
    assert.deepEqual(
      page.data.map((c) => c.id),
      [newer.conversationId, older.conversationId],
    );
    assert.equal(page.meta.next_cursor, null);
    const [first, second] = page.data;
    assert.ok(first && second);
    assert.equal(first.status, 'waiting');
    assert.equal(first.agent_id, agent);
    assert.equal(first.visitor_id, newer.visitorId);
    assert.equal(first.human_requested_at, '2030-01-02T00:05:00.000Z');
    assert.equal(first.message_count, 2);
    assert.equal(first.last_message_at, '2030-01-02T00:02:00.000Z');
    assert.deepEqual(first.last_message, {
      id: newer.messageIds[1],
      role: 'assistant',
      preview: 'é'.repeat(200),
      created_at: '2030-01-02T00:02:00.000Z',
    });
    assert.deepEqual(first.satisfaction, { rating: 'up', comment: null });
    assert.equal(first.shopper_verified, true);
    assert.equal(first.visitor_typing, false);
    assert.equal(second.message_count, 0);
    assert.equal(second.last_message, null);
    assert.deepEqual(second.satisfaction, { rating: 'down', comment: 'meh' });
    assert.equal(second.shopper_verified, false);
  });

  test('filters by agent and status; bad filters are 422', async () => {
    const tenant = await seedTenant(t, 'Filters');
    const a1 = await seedAgent(t, tenant.workspace.id, 'One');
    const a2 = await seedAgent(t, tenant.workspace.id, 'Two');
    const open1 = await seedConversation(t, { workspaceId: tenant.workspace.id, agentId: a1 });
    const waiting1 = await seedConversation(t, {
      workspaceId: tenant.workspace.id,
      agentId: a1,
      status: 'waiting',
    });
    const open2 = await seedConversation(t, { workspaceId: tenant.workspace.id, agentId: a2 });
    const ids = async (query: string) => (await list(tenant, query)).data.map((c) => c.id).sort();
    assert.deepEqual(await ids(`?agent_id=${a1}`), [open1.conversationId, waiting1.conversationId].sort());
    assert.deepEqual(await ids('?status=open'), [open1.conversationId, open2.conversationId].sort());
    assert.deepEqual(await ids(`?agent_id=${a1}&status=waiting`), [waiting1.conversationId]);
    assert.deepEqual(await ids('?status=claimed'), []);
    // Another workspace's agent filters to nothing rather than revealing it exists.
    assert.deepEqual(await ids(`?agent_id=${otherAgentId}`), []);
    const bad = async (query: string, field: string) =>
      expectValidation(await t.app.inject({ url: `${BASE}${query}`, headers: tenant.auth }), [field]);
    await bad('?status=pending', 'status');
    await bad('?limit=0', 'limit');
    await bad('?limit=101', 'limit');
    await bad('?limit=abc', 'limit');
    await bad('?cursor=not-a-cursor', 'cursor');
    await bad(`?cursor=${Buffer.from('["2030-01-01", "x"]').toString('base64url')}`, 'cursor');
    assert.equal((await list(tenant, '?limit=100')).data.length, 3);
    assert.equal((await list(tenant, '?limit=1')).data.length, 1);
  });

  test('keyset paging: exact-fit pages end the list, ties and sub-millisecond gaps are never skipped', async () => {
    const tenant = await seedTenant(t, 'Paging');
    const agent = await seedAgent(t, tenant.workspace.id);
    // Five conversations: two share a timestamp, two differ by one microsecond.
    const stamps = [
      '2030-03-01T00:00:00.000001Z',
      '2030-03-01T00:00:00.000002Z',
      '2030-03-02T00:00:00Z',
      '2030-03-02T00:00:00Z',
      '2030-03-03T00:00:00Z',
    ];
    const seeded: string[] = [];
    for (const createdAt of stamps) {
      seeded.push(
        (await seedConversation(t, { workspaceId: tenant.workspace.id, agentId: agent, createdAt }))
          .conversationId,
      );
    }
    // Newest first; equal timestamps by id, descending (ULIDs grow).
    const expected = [seeded[4], seeded[3], seeded[2], seeded[1], seeded[0]];
    const walk = async (limit: number) => {
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await list(tenant, query);
        pages.push(page.data.map((c) => c.id));
        cursor = page.meta.next_cursor;
      } while (cursor !== null);
      return pages;
    };
    const byTwo = await walk(2);
    assert.deepEqual(
      byTwo.map((p) => p.length),
      [2, 2, 1],
    );
    assert.deepEqual(byTwo.flat(), expected);
    assert.deepEqual(await walk(5), [expected]);
    const byFour = await walk(4);
    assert.deepEqual(
      byFour.map((p) => p.length),
      [4, 1],
    );
    assert.deepEqual(byFour.flat(), expected);
    // A status filter applies on every page.
    const filtered = await list(tenant, '?status=closed&limit=1');
    assert.deepEqual(filtered, { data: [], meta: { next_cursor: null } });
  });

  test('visitor_typing is true within 5 s of the last signal (edge inclusive) against the app clock', async () => {
    const tenant = await seedTenant(t, 'Typing');
    const agent = await seedAgent(t, tenant.workspace.id);
    const typing = async (visitorTypingAt: Date | null) => {
      const { conversationId } = await seedConversation(t, {
        workspaceId: tenant.workspace.id,
        agentId: agent,
        visitorTypingAt,
      });
      const res = await t.app.inject({ url: `${BASE}/${conversationId}`, headers: tenant.auth });
      const fromDetail = expectData(res, 200, ZConversationDetail).visitor_typing;
      const fromList = (await list(tenant)).data.find((c) => c.id === conversationId)?.visitor_typing;
      assert.equal(fromList, fromDetail);
      return fromDetail;
    };
    assert.equal(await typing(ago(0)), true);
    assert.equal(await typing(ago(5_000)), true);
    assert.equal(await typing(ago(5_001)), false);
    assert.equal(await typing(ago(60_000)), false);
    assert.equal(await typing(null), false);
  });

  test('detail: every message in order with citations and authors, and the answer turns', async () => {
    const seeded = await seedConversation(t, {
      workspaceId: acme.workspace.id,
      agentId,
      status: 'claimed',
      claimedByUserId: acme.user.id,
      messages: [
        { role: 'visitor', content: 'Do you ship to Portugal?', createdAt: new Date('2030-02-01T10:00:00Z') },
        {
          role: 'assistant',
          content: 'Yes [1].',
          createdAt: new Date('2030-02-01T10:00:01Z'),
          citations: [{ id: 1, url: 'https://shop.example.com/shipping', title: 'Shipping' }],
        },
        {
          role: 'operator',
          content: 'Hello, Ana here.',
          createdAt: new Date('2030-02-01T10:01:00Z'),
          authorUserId: acme.user.id,
        },
      ],
      answerTurns: [
        {
          question: 'Do you ship to Portugal?',
          answer: 'Yes [1].',
          questionIndex: 0,
          answerIndex: 1,
          retrieved: [
            { chunk_id: 'chunk-a', score: 0.91 },
            { chunk_id: 'chunk-b', score: 0.4 },
          ],
          provider: 'openai',
          latencyMs: 812,
        },
      ],
    });
    const res = await t.app.inject({ url: `${BASE}/${seeded.conversationId}`, headers: acme.auth });
    const detail = expectData(res, 200, ZConversationDetail.strict());
    assert.equal(detail.id, seeded.conversationId);
    assert.equal(detail.status, 'claimed');
    assert.equal(detail.claimed_by_user_id, acme.user.id);
    assert.equal(detail.message_count, 3);
    assert.deepEqual(
      detail.messages.map((m) => [m.id, m.role, m.content, m.author_user_id]),
      [
        [seeded.messageIds[0], 'visitor', 'Do you ship to Portugal?', null],
        [seeded.messageIds[1], 'assistant', 'Yes [1].', null],
        [seeded.messageIds[2], 'operator', 'Hello, Ana here.', acme.user.id],
      ],
    );
    assert.deepEqual(detail.messages[1]?.citations, [
      { id: 1, url: 'https://shop.example.com/shipping', title: 'Shipping' },
    ]);
    assert.deepEqual(detail.messages[0]?.blocks, []);
    assert.equal(detail.messages[0]?.created_at, '2030-02-01T10:00:00.000Z');
    assert.equal(detail.answer_turns.length, 1);
    const turn = detail.answer_turns[0];
    assert.equal(turn?.question, 'Do you ship to Portugal?');
    assert.equal(turn?.outcome, 'answered');
    assert.equal(turn?.provider, 'openai');
    assert.equal(turn?.latency_ms, 812);
    assert.equal(turn?.question_message_id, seeded.messageIds[0]);
    assert.equal(turn?.answer_message_id, seeded.messageIds[1]);
    assert.deepEqual(turn?.retrieved, [
      { chunk_id: 'chunk-a', score: 0.91 },
      { chunk_id: 'chunk-b', score: 0.4 },
    ]);
    expectError(await t.app.inject({ url: `${BASE}/01NOPE`, headers: acme.auth }), 404, 'not_found');
  });
});
