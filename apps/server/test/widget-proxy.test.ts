import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initRequest, newAnonId } from './support/widget.js';

// Behind a reverse proxy every visitor arrives from the proxy's address: with TRUST_PROXY the
// per-IP limits count the client named in X-Forwarded-For instead, and only when the proxy is trusted.
describe('widget limits behind a trusted proxy', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: '127.0.0.1' } });
  });
  after(() => t.close());

  const init = (agentId: string, forwardedFor: string, remoteAddress: string) =>
    initRequest(
      t,
      { agent_id: agentId, anon_id: newAnonId() },
      { headers: { 'x-forwarded-for': forwardedFor }, remoteAddress },
    );

  test('init counts per forwarded client: the 61st from one client is 429, another client passes', async () => {
    const { agentId } = await createWidgetAgent(t);
    for (let i = 0; i < 60; i++)
      assert.equal((await init(agentId, '203.0.113.7', '127.0.0.1')).statusCode, 200);
    const over = await init(agentId, '203.0.113.7', '127.0.0.1');
    assert.equal(over.statusCode, 429);
    assert.ok(Number(over.headers['retry-after']) >= 1);
    assert.equal((await init(agentId, '203.0.113.8', '127.0.0.1')).statusCode, 200);
  });

  test('an untrusted peer cannot pick its key with X-Forwarded-For', async () => {
    const { agentId } = await createWidgetAgent(t);
    for (let i = 0; i < 60; i++) {
      assert.equal((await init(agentId, `198.51.100.${i}`, '192.0.2.50')).statusCode, 200);
    }
    assert.equal((await init(agentId, '198.51.100.200', '192.0.2.50')).statusCode, 429);
  });
});
