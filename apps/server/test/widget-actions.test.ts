import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgent } from '@service/contract';
import { z } from 'zod';
import { expectData, expectError, expectValidation } from './support/http.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import {
  conversationRow,
  createWidgetAgent,
  initSession,
  pollMessages,
  widgetCall,
  widgetEventsOf,
  ZPoll,
} from './support/widget.js';

// The widget's actions on the visitor's conversation: human request, events, typing and rating,
// each checked on the wire and in the stored rows.

const ZStatus = z.object({ status: z.enum(['open', 'waiting', 'claimed', 'closed']) });
const ZRating = z.object({ rating: z.enum(['up', 'down']), comment: z.string().nullable() });

describe('widget actions: human request, events, typing, rating', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('request-human: open becomes waiting, idempotently, and polling shows it', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    assert.equal(s.conversation_status, 'open');
    const first = expectData(await widgetCall(t, 'POST', '/v1/widget/request-human', s.token), 200, ZStatus);
    assert.equal(first.status, 'waiting');
    const stored = await conversationRow(t, s.conversation_id);
    assert.equal(stored.status, 'waiting');
    assert.ok(stored.human_requested_at instanceof Date);
    const again = expectData(await widgetCall(t, 'POST', '/v1/widget/request-human', s.token), 200, ZStatus);
    assert.equal(again.status, 'waiting');
    const storedAgain = await conversationRow(t, s.conversation_id);
    assert.equal(
      storedAgain.human_requested_at?.getTime(),
      stored.human_requested_at?.getTime(),
      'the first request time stays',
    );
    assert.equal(expectData(await pollMessages(t, s.token), 200, ZPoll).status, 'waiting');
  });

  test('events: a known kind is stored; an unknown kind or too many details is a 422 and stores nothing', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const ok = await widgetCall(t, 'POST', '/v1/widget/events', s.token, {
      kind: 'widget_opened',
      data: { page: '/shoes', n: 2 },
    });
    assert.deepEqual(expectData(ok, 202, z.object({ recorded: z.boolean() })), { recorded: true });
    const rows = await widgetEventsOf(t, s.conversation_id);
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
    assert.deepEqual((await widgetEventsOf(t, s.conversation_id)).map((row) => row.kind).sort(), [
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
    assert.ok((await conversationRow(t, s.conversation_id)).visitor_typing_at instanceof Date);
    const off = await widgetCall(t, 'POST', '/v1/widget/typing', s.token, { typing: false });
    assert.deepEqual(expectData(off, 202, z.object({ typing: z.boolean() })), { typing: false });
    assert.equal((await conversationRow(t, s.conversation_id)).visitor_typing_at, null);
    expectValidation(await widgetCall(t, 'POST', '/v1/widget/typing', s.token, { typing: 'yes' }), [
      'typing',
    ]);
  });

  test('satisfaction: the first rating sticks, the comment can change; 404 when the feature is off', async () => {
    const { agentId, tenant } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const rate = (body: unknown) => widgetCall(t, 'POST', '/v1/widget/satisfaction', s.token, body);
    assert.deepEqual(expectData(await rate({ rating: 'up' }), 200, ZRating), { rating: 'up', comment: null });
    const firstAt = (await conversationRow(t, s.conversation_id)).satisfaction_at;
    assert.ok(firstAt instanceof Date);
    assert.deepEqual(expectData(await rate({ rating: 'down', comment: 'Slow' }), 200, ZRating), {
      rating: 'up',
      comment: 'Slow',
    });
    assert.deepEqual(expectData(await rate({ rating: 'down', comment: 'Fine after all' }), 200, ZRating), {
      rating: 'up',
      comment: 'Fine after all',
    });
    const stored = await conversationRow(t, s.conversation_id);
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
    assert.equal((await conversationRow(t, off.conversation_id)).satisfaction_rating, null);
  });
});
