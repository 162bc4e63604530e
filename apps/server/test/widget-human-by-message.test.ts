// A visitor who asks for a person in words gets what the request-human button gives: the
// conversation waits for an operator. Small talk gets a short reply offline, with no quote.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { expectData } from './support/http.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { addText, askWidget, createWidgetAgent, initSession, widgetCall } from './support/widget.js';

describe('asking for a person in a message (offline)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });

  const statusOf = async (conversationId: string) =>
    (
      await t.database.db
        .selectFrom('conversations')
        .select('status')
        .where('id', '=', conversationId)
        .executeTakeFirstOrThrow()
    ).status;

  test('"I want to talk to a human" sets the conversation waiting, as the button does, and says so', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    await addText(t, tenant, agentId, 'FAQ', 'Our team answers chats from 9:00 to 17:00.');
    const session = await initSession(t, agentId, { locale: 'de' });
    const answer = await askWidget(t, session.token, 'I want to talk to a human');
    assert.match(answer.text, /^I've asked a member of our team to join this conversation\./);
    assert.deepEqual(answer.citations, []);
    assert.ok(!answer.blocks.some((block) => block.type === 'escalation'), 'no button: it is done');
    assert.equal(await statusOf(session.conversation_id), 'waiting');
    // The button afterwards changes nothing: the same request.
    const button = expectData(
      await widgetCall(t, 'POST', '/v1/widget/request-human', session.token),
      200,
      z.object({ status: z.enum(['open', 'waiting', 'claimed', 'closed']) }),
    );
    assert.equal(button.status, 'waiting');
  });

  test('with human takeover off nothing changes and the reply says no one can join', async () => {
    const { agentId } = await createWidgetAgent(t, { widget_features: { human: false } });
    const session = await initSession(t, agentId);
    const answer = await askWidget(t, session.token, 'Can I speak to a real person please?');
    assert.match(answer.text, /no one from the team can join this chat/);
    assert.equal(await statusOf(session.conversation_id), 'open');
  });

  test('small talk gets a short reply in its language; a greeting with a question is a question', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    await addText(t, tenant, agentId, 'Shipping', 'Shipping to Canada takes seven to ten working days.');
    const session = await initSession(t, agentId, { locale: 'en' });
    const hello = await askWidget(t, session.token, 'Bonjour !');
    assert.equal(hello.text, 'Bonjour ! Comment puis-je vous aider ?');
    assert.deepEqual(hello.citations, []);
    const question = await askWidget(t, session.token, 'Hi, how long does shipping to Canada take?');
    assert.match(question.text, /“Shipping to Canada takes seven to ten working days\.” \[1\]/);
    assert.equal(await statusOf(session.conversation_id), 'open');
  });
});
