import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { type FakeLlm, startFakeLlm } from './support/fake-llm.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { addText, createWidgetAgent, initSession, parseSse, widgetCall } from './support/widget.js';

/**
 * How many statements one widget answer sends to the store (issue 15: time to first token with
 * answers in flight). Every statement of an answer waits its turn on the embedded store's one
 * backend, so the count is what ten answers in flight queue behind each other. Counted at the
 * driver (pg's Client.query), the job queue's own statements left out.
 */
describe('widget answer: statements sent to the store', () => {
  let t: TestApp;
  let llm: FakeLlm;

  before(async () => {
    llm = await startFakeLlm();
    t = await createTestApp({
      env: { LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.openAiBaseUrl, LLM_API_KEY: 'server-key' },
    });
  });
  after(async () => {
    await t.close();
    await llm.close();
  });

  test('an answer with a model in a stored conversation sends 6 statements: the caller, the question, retrieval (3), the turn', async () => {
    const { tenant, agentId } = await createWidgetAgent(t, { site_type: 'ecommerce' });
    await addText(t, tenant, agentId, 'FAQ', 'Delivery takes two to three working days. Returns are free.');
    const session = await initSession(t, agentId);
    // The session's first call stores its conversation (lazy conversations); the next ones do not.
    const first = await widgetCall(t, 'POST', '/v1/widget/messages/stream', session.token, {
      message: 'Hello',
    });
    assert.equal(first.statusCode, 200);
    const sent: string[] = [];
    const original = pg.Client.prototype.query;
    const counting = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0];
      const text = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '');
      if (!/pgboss/i.test(text)) sent.push(text);
      return Reflect.apply(original, this, args);
    };
    pg.Client.prototype.query = counting as typeof original;
    let body: string;
    try {
      const res = await widgetCall(t, 'POST', '/v1/widget/messages/stream', session.token, {
        message: 'How long does delivery take?',
      });
      assert.equal(res.statusCode, 200);
      body = res.body;
    } finally {
      pg.Client.prototype.query = original;
    }
    const frames = parseSse(body);
    assert.deepEqual(
      frames
        .filter((frame) => frame.event !== 'token' && frame.event !== 'block')
        .map((frame) => frame.event),
      ['start', 'done'],
    );
    assert.ok(
      frames.some((frame) => frame.event === 'token'),
      'the answer streamed',
    );
    // Retrieval: the query's statistics, the ranking (feedback's words and re-ranking are part of
    // it) and the hits. The offline embedder's vectors are not searched (an embeddings server's
    // would add the vector list, one statement more).
    assert.equal(sent.length, 6, `statements sent:\n${sent.map((text) => text.slice(0, 90)).join('\n')}`);
    assert.equal(sent.filter((text) => /^\s*(begin|commit)\b/i.test(text)).length, 0, 'no transaction');
  });
});
