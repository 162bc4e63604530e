import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWebhookCreated, ZWidgetInitResponse } from '@service/contract';
import { z } from 'zod';
import { seedOperator } from './support/conversations.js';
import { expectData, expectValidation, UNAUTHENTICATED_BODY } from './support/http.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import {
  askWidget,
  conversationRow,
  createWidgetAgent,
  initRequest,
  initSession,
  newAnonId,
  pollMessages,
  widgetCall,
  ZPoll,
} from './support/widget.js';

// A widget conversation's lifecycle past init: clearing it, polling for replies, and erasing the
// visitor's data, each checked on the wire and in the stored rows.

const ZStatus = z.object({ status: z.enum(['open', 'waiting', 'claimed', 'closed']) });
const ZCleared = z.object({ token: z.string(), expires_at: z.string(), conversation_id: z.string() });
const ZLead = z.object({ id: z.string(), created: z.boolean() });
/** The webhook endpoint is never called here: the guard only needs to accept its URL. */
const HOOK_ALLOW = '127.0.0.1:9';

describe('widget conversation: clear, poll and erase', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { SAFE_URL_ALLOW: HOOK_ALLOW } });
  });
  after(() => t.close());

  test('conversation/clear: a new conversation and token; the old one is closed and stays apart', async () => {
    const { agentId } = await createWidgetAgent(t);
    const anonId = newAnonId();
    const s = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: anonId }),
      200,
      ZWidgetInitResponse,
    );
    const answer = await askWidget(t, s.token, 'What are your opening hours?');
    const cleared = expectData(
      await widgetCall(t, 'POST', '/v1/widget/conversation/clear', s.token),
      200,
      ZCleared,
    );
    assert.notEqual(cleared.token, s.token);
    assert.notEqual(cleared.conversation_id, s.conversation_id);
    const old = await conversationRow(t, s.conversation_id);
    assert.equal(old.status, 'closed');
    const fresh = await conversationRow(t, cleared.conversation_id);
    assert.equal(fresh.status, 'open');
    assert.equal(fresh.visitor_id, s.visitor_id);

    const viaNew = expectData(await pollMessages(t, cleared.token), 200, ZPoll);
    assert.deepEqual(viaNew, { status: 'open', messages: [] });
    expectValidation(await pollMessages(t, cleared.token, answer.message_id ?? ''), ['after']);
    // The cleared conversation's token is spent: no more reads or writes there.
    assert.equal((await pollMessages(t, s.token)).statusCode, 401);
    const late = await widgetCall(t, 'POST', '/v1/widget/messages', s.token, { message: 'Still there?' });
    assert.equal(late.statusCode, 401);

    await askWidget(t, cleared.token, 'And on Sunday?');
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
    const answer = await askWidget(t, s.token, 'Can I talk to someone?');
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

    const page = expectData(await pollMessages(t, s.token, answer.message_id ?? ''), 200, ZPoll);
    assert.equal(page.status, 'claimed');
    assert.deepEqual(
      page.messages.map((message) => [message.id, message.role, message.content]),
      [[sent.id, 'operator', 'Hi, Ana here.']],
    );
    const all = expectData(await pollMessages(t, s.token), 200, ZPoll);
    assert.deepEqual(
      all.messages.map((message) => message.role),
      ['visitor', 'assistant', 'operator'],
    );
    assert.deepEqual(expectData(await pollMessages(t, s.token, sent.id), 200, ZPoll).messages, []);

    // While claimed the bot is silent; the visitor's message is stored and polled back.
    const held = await askWidget(t, s.token, 'Thanks!');
    assert.equal(held.message_id, null);
    const tail = expectData(await pollMessages(t, s.token, sent.id), 200, ZPoll);
    assert.deepEqual(
      tail.messages.map((message) => [message.role, message.content]),
      [['visitor', 'Thanks!']],
    );

    expectValidation(await pollMessages(t, s.token, '01NOSUCHMESSAGE0000000000'), ['after']);
    const other = await initSession(t, agentId);
    expectValidation(await pollMessages(t, other.token, sent.id), ['after']);
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
      await askWidget(t, s.token, 'Where is my parcel?');
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
      await askWidget(t, cleared.token, 'Hello again');
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
    expectData(await pollMessages(t, kept.token), 200, ZPoll);
  });

  test("a visitor message sets its conversation's newest visitor time, never back (the inbox's unread)", async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: newAnonId() }),
      200,
      ZWidgetInitResponse,
    );
    await askWidget(t, s.token, 'What are your opening hours?');
    const asked = await t.database.db
      .selectFrom('messages')
      .select('created_at')
      .where('conversation_id', '=', s.conversation_id)
      .where('role', '=', 'visitor')
      .executeTakeFirstOrThrow();
    assert.deepEqual((await conversationRow(t, s.conversation_id)).last_visitor_message_at, asked.created_at);
    // Another instance whose clock runs ahead wrote a later one: this instance's message does
    // not move the time back.
    const ahead = new Date(Date.now() + 3_600_000);
    await t.database.db
      .updateTable('conversations')
      .set({ last_visitor_message_at: ahead })
      .where('id', '=', s.conversation_id)
      .execute();
    await askWidget(t, s.token, 'And on Sunday?');
    assert.deepEqual((await conversationRow(t, s.conversation_id)).last_visitor_message_at, ahead);
  });
});
