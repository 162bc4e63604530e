import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgentAnalytics } from '@service/contract';
import { getAgentAnalyticsByFullScan } from '../src/services/analytics/agent-analytics.js';
import { expectData } from './support/http.js';
import type { Tenant, TestApp } from './support/test-app.js';
import { createTestApp } from './support/test-app.js';
import {
  addText,
  askWidget,
  conversationRow,
  createWidgetAgent,
  initSession,
  widgetCall,
} from './support/widget.js';

// The roll-ups through the real widget API: the chat's own writes (messages, answer turns,
// recorded questions, a handoff, a rating) mark their days, and a read counts them.

const FAQ =
  'Delivery takes two to three working days within the country. Returns are free for thirty days ' +
  'after delivery. We ship with tracked parcels.';

describe('analytics from widget traffic', () => {
  let t: TestApp;
  let tenant: Tenant;
  let agentId: string;

  before(async () => {
    t = await createTestApp();
    ({ tenant, agentId } = await createWidgetAgent(t));
    await addText(t, tenant, agentId, 'FAQ', FAQ);
  });
  after(() => t.close());

  test('visitor messages, an unanswered question, a handoff and ratings are counted', async () => {
    const first = await initSession(t, agentId);
    const answered = await askWidget(t, first.token, 'Are returns free?');
    assert.ok(answered.citations.length > 0);
    await askWidget(t, first.token, 'zebra quantum teleport');
    const up = await widgetCall(t, 'POST', '/v1/widget/satisfaction', first.token, {
      rating: 'up',
      message_id: answered.message_id,
    });
    assert.equal(up.statusCode, 200, up.body);

    const second = await initSession(t, agentId);
    const delivery = await askWidget(t, second.token, 'How long does delivery take?');
    const human = await widgetCall(t, 'POST', '/v1/widget/request-human', second.token);
    assert.equal(human.statusCode, 200, human.body);
    const down = await widgetCall(t, 'POST', '/v1/widget/satisfaction', second.token, {
      rating: 'down',
      message_id: delivery.message_id,
    });
    assert.equal(down.statusCode, 200, down.body);

    const row = await conversationRow(t, answered.conversation_id);
    const day = row.created_at.toISOString().slice(0, 10);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/agents/${agentId}/analytics?from=${day}&to=${day}`,
      headers: tenant.auth,
    });
    const got = expectData(res, 200, ZAgentAnalytics);
    assert.equal(got.totals.conversations, 2);
    assert.equal(got.totals.visitor_messages, 3);
    assert.equal(got.totals.questions, 3);
    assert.equal(got.totals.unanswered, 1);
    assert.equal(got.totals.bot_only, 1);
    assert.equal(got.totals.handed_off, 1);
    assert.equal(got.totals.rated_up, 1);
    assert.equal(got.totals.rated_down, 1);
    assert.equal(got.top_sources[0]?.title, 'FAQ');
    assert.equal(got.top_sources[0]?.cited, 2);
    assert.equal(got.top_sources[0]?.rated_up, 1);
    assert.equal(got.top_sources[0]?.rated_down, 1);
    const scan = await getAgentAnalyticsByFullScan(
      {
        db: t.database.db,
        clock: t.clock,
        workspaceId: tenant.workspace.id,
        actor: { type: 'cli', id: null },
        agentId,
      },
      { from: day, to: day },
    );
    assert.deepEqual(got, scan);
  });
});
