import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ZAgent,
  ZWebhookCreated,
  ZWidgetAnswer,
  ZWidgetInitResponse,
  ZWidgetMessage,
} from '@service/contract';
import { z } from 'zod';
import { seedOperator } from './support/conversations.js';
import { expectData, expectError, expectValidation, UNAUTHENTICATED_BODY } from './support/http.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initRequest, initSession, newAnonId, widgetCall } from './support/widget.js';

// The widget's conversation actions past init: human request, events, typing, rating, clear,
// polling and erasure, each checked on the wire and in the stored rows.

const ZStatus = z.object({ status: z.enum(['open', 'waiting', 'claimed', 'closed']) });
const ZPoll = z.object({
  status: z.enum(['open', 'waiting', 'claimed', 'closed']),
  messages: z.array(ZWidgetMessage),
});
const ZRating = z.object({ rating: z.enum(['up', 'down']), comment: z.string().nullable() });
const ZCleared = z.object({ token: z.string(), expires_at: z.string(), conversation_id: z.string() });
const ZLead = z.object({ id: z.string(), created: z.boolean() });
/** The webhook endpoint is never called here: the guard only needs to accept its URL. */
const HOOK_ALLOW = '127.0.0.1:9';

describe('widget actions', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { SAFE_URL_ALLOW: HOOK_ALLOW } });
  });
  after(() => t.close());

  const conversation = (id: string) =>
    t.database.db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const eventsOf = (conversationId: string) =>
    t.database.db
      .selectFrom('widget_events')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .execute();
  const poll = (token: string, after?: string) =>
    widgetCall(
      t,
      'GET',
      `/v1/widget/conversation/messages${after ? `?after=${encodeURIComponent(after)}` : ''}`,
      token,
    );
  const ask = async (token: string, message: string) =>
    expectData(await widgetCall(t, 'POST', '/v1/widget/messages', token, { message }), 200, ZWidgetAnswer);

  test('request-human: open becomes waiting, idempotently, and polling shows it', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    assert.equal(s.conversation_status, 'open');
    const first = expectData(await widgetCall(t, 'POST', '/v1/widget/request-human', s.token), 200, ZStatus);
    assert.equal(first.status, 'waiting');
    const stored = await conversation(s.conversation_id);
    assert.equal(stored.status, 'waiting');
    assert.ok(stored.human_requested_at instanceof Date);
    const again = expectData(await widgetCall(t, 'POST', '/v1/widget/request-human', s.token), 200, ZStatus);
    assert.equal(again.status, 'waiting');
    const storedAgain = await conversation(s.conversation_id);
    assert.equal(
      storedAgain.human_requested_at?.getTime(),
      stored.human_requested_at?.getTime(),
      'the first request time stays',
    );
    assert.equal(expectData(await poll(s.token), 200, ZPoll).status, 'waiting');
  });

  test('events: a known kind is stored; an unknown kind or too many details is a 422 and stores nothing', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const ok = await widgetCall(t, 'POST', '/v1/widget/events', s.token, {
      kind: 'widget_opened',
      data: { page: '/shoes', n: 2 },
    });
    assert.deepEqual(expectData(ok, 202, z.object({ recorded: z.boolean() })), { recorded: true });
    const rows = await eventsOf(s.conversation_id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.kind, 'widget_opened');
    assert.equal(rows[0]?.agent_id, agentId);
    assert.deepEqual(rows[0]?.data, { page: '/shoes', n: 2 });

    expectValidation(await widgetCall(t, 'POST', '/v1/widget/events', s.token, { kind: 'hacked' }), ['kind']);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    expectError(
      await widgetCall(t, 'POST', '/v1/widget/events', s.token, { kind: 'page_view', data: many }),
      422,
    );
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    expectData(
      await widgetCall(t, 'POST', '/v1/widget/events', s.token, { kind: 'page_view', data: twenty }),
      202,
      z.unknown(),
    );
    assert.deepEqual((await eventsOf(s.conversation_id)).map((row) => row.kind).sort(), [
      'page_view',
      'widget_opened',
    ]);
  });

  test('typing sets and clears visitor_typing_at', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const stored = t.database.db.selectFrom('conversations').select('id').where('id', '=', s.conversation_id);
    assert.equal(await stored.executeTakeFirst(), undefined, 'init stores nothing; the first call does');
    const on = await widgetCall(t, 'POST', '/v1/widget/typing', s.token, { typing: true });
    assert.deepEqual(expectData(on, 202, z.object({ typing: z.boolean() })), { typing: true });
    assert.ok((await conversation(s.conversation_id)).visitor_typing_at instanceof Date);
    const off = await widgetCall(t, 'POST', '/v1/widget/typing', s.token, { typing: false });
    assert.deepEqual(expectData(off, 202, z.object({ typing: z.boolean() })), { typing: false });
    assert.equal((await conversation(s.conversation_id)).visitor_typing_at, null);
    expectValidation(await widgetCall(t, 'POST', '/v1/widget/typing', s.token, { typing: 'yes' }), [
      'typing',
    ]);
  });

  test('satisfaction: the first rating sticks, the comment can change; 404 when the feature is off', async () => {
    const { agentId, tenant } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const rate = (body: unknown) => widgetCall(t, 'POST', '/v1/widget/satisfaction', s.token, body);
    assert.deepEqual(expectData(await rate({ rating: 'up' }), 200, ZRating), { rating: 'up', comment: null });
    const firstAt = (await conversation(s.conversation_id)).satisfaction_at;
    assert.ok(firstAt instanceof Date);
    assert.deepEqual(expectData(await rate({ rating: 'down', comment: 'Slow' }), 200, ZRating), {
      rating: 'up',
      comment: 'Slow',
    });
    assert.deepEqual(expectData(await rate({ rating: 'down', comment: 'Fine after all' }), 200, ZRating), {
      rating: 'up',
      comment: 'Fine after all',
    });
    const stored = await conversation(s.conversation_id);
    assert.equal(stored.satisfaction_rating, 1);
    assert.equal(stored.satisfaction_comment, 'Fine after all');
    assert.equal(stored.satisfaction_at?.getTime(), firstAt.getTime());
    expectValidation(await rate({ rating: 'meh' }), ['rating']);

    const patched = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/agents/${agentId}`,
      { widget_features: { satisfaction: false } },
      tenant.auth,
    );
    const agent = expectData(patched, 200, ZAgent);
    assert.equal(agent.widget_features.satisfaction, false);
    assert.equal(agent.widget_features.leads, true, 'the other features stay on');
    const off = await initSession(t, agentId);
    assert.equal(off.agent.features.satisfaction, false);
    expectError(await widgetCall(t, 'POST', '/v1/widget/satisfaction', off.token, { rating: 'down' }), 404);
    assert.equal((await conversation(off.conversation_id)).satisfaction_rating, null);
  });

  test('conversation/clear: a new conversation and token; the old one is closed and stays apart', async () => {
    const { agentId } = await createWidgetAgent(t);
    const anonId = newAnonId();
    const s = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: anonId }),
      200,
      ZWidgetInitResponse,
    );
    const answer = await ask(s.token, 'What are your opening hours?');
    const cleared = expectData(
      await widgetCall(t, 'POST', '/v1/widget/conversation/clear', s.token),
      200,
      ZCleared,
    );
    assert.notEqual(cleared.token, s.token);
    assert.notEqual(cleared.conversation_id, s.conversation_id);
    const old = await conversation(s.conversation_id);
    assert.equal(old.status, 'closed');
    const fresh = await conversation(cleared.conversation_id);
    assert.equal(fresh.status, 'open');
    assert.equal(fresh.visitor_id, s.visitor_id);

    const viaNew = expectData(await poll(cleared.token), 200, ZPoll);
    assert.deepEqual(viaNew, { status: 'open', messages: [] });
    expectValidation(await poll(cleared.token, answer.message_id ?? ''), ['after']);
    // The cleared conversation's token is spent: no more reads or writes there.
    assert.equal((await poll(s.token)).statusCode, 401);
    const late = await widgetCall(t, 'POST', '/v1/widget/messages', s.token, { message: 'Still there?' });
    assert.equal(late.statusCode, 401);

    await ask(cleared.token, 'And on Sunday?');
    const resumed = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: anonId }),
      200,
      ZWidgetInitResponse,
    );
    assert.equal(resumed.conversation_id, cleared.conversation_id);
    assert.equal(resumed.visitor_id, s.visitor_id);
    assert.equal(resumed.messages[0]?.content, 'And on Sunday?');
    assert.ok(resumed.messages.every((message) => message.content !== 'What are your opening hours?'));
  });

  test('conversation/messages?after= returns operator replies after the anchor; an unknown anchor is a 422', async () => {
    const { agentId, tenant } = await createWidgetAgent(t);
    const operator = await seedOperator(t, tenant);
    const s = await initSession(t, agentId);
    const answer = await ask(s.token, 'Can I talk to someone?');
    expectData(await widgetCall(t, 'POST', '/v1/widget/request-human', s.token), 200, ZStatus);
    const base = `/api/v1/admin/conversations/${s.conversation_id}`;
    const claim = await t.app.inject({ method: 'POST', url: `${base}/claim`, headers: operator.auth });
    assert.equal(claim.statusCode, 200, claim.body);
    const reply = await injectJson(
      t.app,
      'POST',
      `${base}/messages`,
      { content: 'Hi, Ana here.' },
      operator.auth,
    );
    const sent = expectData(reply, 201, z.object({ id: z.string() }));

    const page = expectData(await poll(s.token, answer.message_id ?? ''), 200, ZPoll);
    assert.equal(page.status, 'claimed');
    assert.deepEqual(
      page.messages.map((message) => [message.id, message.role, message.content]),
      [[sent.id, 'operator', 'Hi, Ana here.']],
    );
    const all = expectData(await poll(s.token), 200, ZPoll);
    assert.deepEqual(
      all.messages.map((message) => message.role),
      ['visitor', 'assistant', 'operator'],
    );
    assert.deepEqual(expectData(await poll(s.token, sent.id), 200, ZPoll).messages, []);

    // While claimed the bot is silent; the visitor's message is stored and polled back.
    const held = await ask(s.token, 'Thanks!');
    assert.equal(held.message_id, null);
    const tail = expectData(await poll(s.token, sent.id), 200, ZPoll);
    assert.deepEqual(
      tail.messages.map((message) => [message.role, message.content]),
      [['visitor', 'Thanks!']],
    );

    expectValidation(await poll(s.token, '01NOSUCHMESSAGE0000000000'), ['after']);
    const other = await initSession(t, agentId);
    expectValidation(await poll(other.token, sent.id), ['after']);
  });

  test("DELETE /v1/widget/me erases the visitor's data only, and their token stops working", async () => {
    const { agentId, tenant } = await createWidgetAgent(t);
    const hook = await injectJson(
      t.app,
      'POST',
      '/api/v1/admin/webhooks',
      { url: `http://${HOOK_ALLOW}/hooks/leads`, events: ['lead.captured'] },
      tenant.auth,
    );
    expectData(hook, 201, ZWebhookCreated);

    /** A visitor with two conversations, messages and answer turns, events and a lead with its delivery. */
    const busyVisitor = async (email: string) => {
      const s = await initSession(t, agentId);
      await ask(s.token, 'Where is my parcel?');
      await widgetCall(t, 'POST', '/v1/widget/events', s.token, { kind: 'widget_opened' });
      const lead = expectData(
        await widgetCall(t, 'POST', '/v1/widget/leads', s.token, { email }),
        201,
        ZLead,
      );
      const cleared = expectData(
        await widgetCall(t, 'POST', '/v1/widget/conversation/clear', s.token),
        200,
        ZCleared,
      );
      await ask(cleared.token, 'Hello again');
      await widgetCall(t, 'POST', '/v1/widget/events', cleared.token, { kind: 'page_view' });
      return {
        ...s,
        leadId: lead.id,
        token: cleared.token,
        conversations: [s.conversation_id, cleared.conversation_id],
      };
    };
    const gone = await busyVisitor('gone@example.com');
    const kept = await busyVisitor('kept@example.com');

    const db = t.database.db;
    const counts = async (visitor: typeof gone) => {
      const ids = visitor.conversations;
      const n = async (query: Promise<{ n: string | number | bigint }>) => Number((await query).n);
      return {
        visitors: await n(
          db
            .selectFrom('visitors')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('id', '=', visitor.visitor_id)
            .executeTakeFirstOrThrow(),
        ),
        conversations: await n(
          db
            .selectFrom('conversations')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('visitor_id', '=', visitor.visitor_id)
            .executeTakeFirstOrThrow(),
        ),
        messages: await n(
          db
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('conversation_id', 'in', ids)
            .executeTakeFirstOrThrow(),
        ),
        answerTurns: await n(
          db
            .selectFrom('answer_turns')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('conversation_id', 'in', ids)
            .executeTakeFirstOrThrow(),
        ),
        events: await n(
          db
            .selectFrom('widget_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('conversation_id', 'in', ids)
            .executeTakeFirstOrThrow(),
        ),
        leads: await n(
          db
            .selectFrom('leads')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('id', '=', visitor.leadId)
            .executeTakeFirstOrThrow(),
        ),
        deliveries: await n(
          db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('subject_id', '=', visitor.leadId)
            .executeTakeFirstOrThrow(),
        ),
      };
    };
    const full = {
      visitors: 1,
      conversations: 2,
      messages: 4,
      answerTurns: 2,
      events: 2,
      leads: 1,
      deliveries: 1,
    };
    assert.deepEqual(await counts(gone), full);
    assert.deepEqual(await counts(kept), full);

    const erased = await widgetCall(t, 'DELETE', '/v1/widget/me', gone.token);
    assert.equal(erased.statusCode, 204, erased.body);
    assert.equal(erased.body, '');
    assert.deepEqual(await counts(gone), {
      visitors: 0,
      conversations: 0,
      messages: 0,
      answerTurns: 0,
      events: 0,
      leads: 0,
      deliveries: 0,
    });
    assert.deepEqual(await counts(kept), full, "another visitor's data is untouched");

    const after = await widgetCall(t, 'GET', '/v1/widget/conversation/messages', gone.token);
    assert.equal(after.statusCode, 401);
    assert.equal(after.body, UNAUTHENTICATED_BODY);
    assert.equal((await widgetCall(t, 'DELETE', '/v1/widget/me', gone.token)).statusCode, 401);
    expectData(await poll(kept.token), 200, ZPoll);
  });
});
