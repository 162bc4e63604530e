import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWidgetAnswer } from '@service/contract';
import { z } from 'zod';
import { expectData, expectError } from './support/http.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import {
  addText,
  createWidgetAgent,
  initSession,
  parseSse,
  widgetCall,
  ZDoneFrame,
} from './support/widget.js';

const SHIPPING =
  'Shipping policy\n\nWe ship every order within two business days from our warehouse in Lyon. ' +
  'Delivery inside Europe takes three to five working days.\n\nReturns are accepted for thirty days.';

describe('answering offline (no model configured)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('the stream sends start, tokens, done with a citation, in order, and stores the turn', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    await addText(t, tenant, agentId, 'Shipping', SHIPPING);
    const session = await initSession(t, agentId);
    const res = await widgetCall(t, 'POST', '/v1/widget/messages/stream', session.token, {
      message: 'How long does delivery in Europe take?',
    });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    assert.equal(res.headers['x-accel-buffering'], 'no');
    assert.match(String(res.headers['cache-control']), /no-cache/);
    assert.equal(res.headers['access-control-allow-origin'], 'https://shop.example.com');
    assert.equal(res.headers['content-security-policy'], undefined);
    const frames = parseSse(res.body);
    const kinds = frames.map((frame) => frame.event);
    assert.equal(kinds[0], 'start');
    assert.equal(kinds.at(-1), 'done');
    assert.ok(kinds.indexOf('token') > 0, 'tokens follow start');
    assert.ok(kinds.lastIndexOf('token') < kinds.indexOf('done'));
    const start = z.object({ conversation_id: z.string(), message_id: z.string() }).parse(frames[0]?.data);
    assert.equal(start.conversation_id, session.conversation_id);
    const done = ZDoneFrame.parse(frames.at(-1)?.data);
    const streamed = frames
      .filter((f) => f.event === 'token')
      .map((f) => String(f.data.t))
      .join('');
    assert.equal(streamed, done.text, 'the tokens add up to the final text');
    assert.match(done.text, /three to five working days/);
    assert.match(done.text, /\[1\]/);
    assert.deepEqual(
      done.citations.map((c) => [c.id, c.title]),
      [[1, 'Shipping']],
    );
    assert.equal(done.message_id, start.message_id);

    const db = t.database.db;
    const stored = await db
      .selectFrom('messages')
      .selectAll()
      .where('conversation_id', '=', session.conversation_id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      stored.map((m) => m.role),
      ['visitor', 'assistant'],
    );
    assert.equal(stored[1]?.id, done.message_id);
    assert.equal(stored[1]?.content, done.text);
    const turn = await db
      .selectFrom('answer_turns')
      .selectAll()
      .where('answer_message_id', '=', done.message_id)
      .executeTakeFirstOrThrow();
    assert.equal(turn.outcome, 'answered');
    assert.equal(turn.provider, 'offline');
    assert.equal(turn.question_message_id, stored[0]?.id);
    assert.ok(
      turn.retrieved.length >= 1 &&
        turn.retrieved.every((r) => typeof r.chunk_id === 'string' && r.score > 0),
    );
    assert.ok(turn.latency_ms >= 0);
  });

  test('nothing relevant → an honest "I don\'t know" with the escalation block, never an invented answer', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    await addText(t, tenant, agentId, 'Shipping', SHIPPING);
    const session = await initSession(t, agentId);
    const res = await widgetCall(t, 'POST', '/v1/widget/messages', session.token, {
      message: 'What is the airspeed of an unladen swallow?',
    });
    const answer = expectData(res, 200, ZWidgetAnswer);
    assert.match(answer.text, /don't know/);
    assert.deepEqual(answer.citations, []);
    assert.deepEqual(
      answer.blocks.map((b) => b.type),
      ['escalation'],
    );
    const turn = await t.database.db
      .selectFrom('answer_turns')
      .select('outcome')
      .where('conversation_id', '=', session.conversation_id)
      .executeTakeFirstOrThrow();
    assert.equal(turn.outcome, 'no_answer');
  });

  test('an agent with human takeover off does not offer a human', async () => {
    const { agentId } = await createWidgetAgent(t, { widget_features: { human: false } });
    const session = await initSession(t, agentId);
    const answer = expectData(
      await widgetCall(t, 'POST', '/v1/widget/messages', session.token, { message: 'Anything?' }),
      200,
      ZWidgetAnswer,
    );
    assert.doesNotMatch(answer.text, /human/);
    assert.deepEqual(answer.blocks, []);
  });

  test('while an operator holds the conversation the bot stays silent', async () => {
    const { agentId } = await createWidgetAgent(t);
    const session = await initSession(t, agentId);
    // Init stores nothing; the widget's first call (opening it) stores the conversation.
    const opened = await widgetCall(t, 'POST', '/v1/widget/events', session.token, { kind: 'widget_opened' });
    assert.equal(opened.statusCode, 202, opened.body);
    await t.database.db
      .updateTable('conversations')
      .set({ status: 'claimed' })
      .where('id', '=', session.conversation_id)
      .execute();
    const res = await widgetCall(t, 'POST', '/v1/widget/messages/stream', session.token, {
      message: 'Hello?',
    });
    const frames = parseSse(res.body);
    assert.deepEqual(frames, [
      { event: 'done', data: { message_id: null, text: '', citations: [], held_by_operator: true } },
    ]);
    const roles = await t.database.db
      .selectFrom('messages')
      .select('role')
      .where('conversation_id', '=', session.conversation_id)
      .execute();
    assert.deepEqual(
      roles.map((r) => r.role),
      ['visitor'],
      'the question is kept for the operator; no bot reply',
    );
  });

  test('bad bodies are 422 and store nothing', async () => {
    const { agentId } = await createWidgetAgent(t);
    const session = await initSession(t, agentId);
    for (const body of [
      {},
      { message: '' },
      { message: '   ' },
      { message: 'x'.repeat(4001) },
      { message: 'hi', extra: 1 },
    ]) {
      expectError(
        await widgetCall(t, 'POST', '/v1/widget/messages', session.token, body),
        422,
        'validation_failed',
      );
    }
    const rows = await t.database.db
      .selectFrom('messages')
      .select('id')
      .where('conversation_id', '=', session.conversation_id)
      .execute();
    assert.equal(rows.length, 0);
  });

  test('init resumes the conversation with the last 24 hours of messages', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    await addText(t, tenant, agentId, 'Shipping', SHIPPING);
    const anon = 'anon_resume_test_1';
    const first = await initSession(t, agentId, { anon_id: anon });
    await widgetCall(t, 'POST', '/v1/widget/messages', first.token, {
      message: 'How long does delivery take?',
    });
    await t.database.db
      .insertInto('messages')
      .values({
        id: '00000000000000000000000OLD',
        workspace_id: tenant.workspace.id,
        conversation_id: first.conversation_id,
        role: 'visitor',
        content: 'two days ago',
        created_at: new Date(Date.now() - 48 * 3600_000),
      })
      .execute();
    const again = await initSession(t, agentId, { anon_id: anon });
    assert.equal(again.conversation_id, first.conversation_id);
    assert.equal(again.visitor_id, first.visitor_id);
    assert.deepEqual(
      again.messages.map((m) => m.role),
      ['visitor', 'assistant'],
    );
    assert.ok(again.messages[1]?.citations.length);
  });
});
