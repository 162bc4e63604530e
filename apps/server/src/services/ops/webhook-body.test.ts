import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { slackEscape, webhookRequestBody } from './webhook-body.js';

const lead = {
  id: 'L1',
  email: 'ada@example.com',
  name: '<@U123> & <https://evil.example|x>',
  phone: '',
  agent_id: 'A1',
  conversation_id: null,
  created_at: '2026-11-01T10:00:00.000Z',
};
const delivery = {
  id: 'D1',
  event: 'lead.captured',
  payload: { created_at: '2026-11-01T10:00:00.000Z', data: { lead } },
};

describe('webhook bodies', () => {
  test('json: {id, event, created_at, data} in this order', () => {
    const body = JSON.parse(webhookRequestBody(delivery, 'json'));
    assert.deepEqual(Object.keys(body), ['id', 'event', 'created_at', 'data']);
    assert.deepEqual(body.data, { lead });
  });

  test('slack: lead.captured is one escaped line, as text and as a mrkdwn section', () => {
    const body = JSON.parse(webhookRequestBody(delivery, 'slack'));
    const line = 'New lead captured: ada@example.com, &lt;@U123&gt; &amp; &lt;https://evil.example|x&gt;';
    assert.deepEqual(body, {
      text: line,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: line } }],
    });
  });

  test('slack: an event whose data does not fit its schema still gets a harmless line', () => {
    const body = JSON.parse(
      webhookRequestBody(
        { id: 'D2', event: 'lead.captured', payload: { created_at: 'x', data: {} } },
        'slack',
      ),
    );
    assert.equal(body.text, 'Event lead.captured');
  });

  test('slackEscape escapes only &, < and >', () => {
    assert.equal(slackEscape('a & b <c> *d* _e_'), 'a &amp; b &lt;c&gt; *d* _e_');
    assert.equal(slackEscape('&amp;'), '&amp;amp;');
  });
});
