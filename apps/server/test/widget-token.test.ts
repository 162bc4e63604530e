import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { WIDGET_TOKEN_ISSUER } from '@service/contract';
import { SignJWT, UnsecuredJWT } from 'jose';
import { issueWidgetToken, verifyWidgetToken, widgetTokenKey } from '../src/security/widget-token.js';
import { UNAUTHENTICATED_BODY } from './support/http.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, widgetCall } from './support/widget.js';

const SECRET = 'widget-token-secret-for-tests';

describe('widget tokens', () => {
  let t: TestApp;
  let clock = new Date('2026-11-21T10:00:00Z');
  // WIDGET_TOKEN_SECRET wins over APP_KEY: the app (with its own random APP_KEY) must agree with this key.
  const key = widgetTokenKey({ widgetTokenSecret: SECRET, appKey: randomBytes(32) });

  before(async () => {
    t = await createTestApp({ env: { WIDGET_TOKEN_SECRET: SECRET }, clock: { now: () => clock } });
  });
  after(() => t.close());

  async function expect401(token: string) {
    const res = await widgetCall(t, 'POST', '/v1/widget/typing', token, { typing: true });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.body, UNAUTHENTICATED_BODY, '401s carry no detail');
  }

  test('the key is SHA-256 of WIDGET_TOKEN_SECRET, the token HS256 with the fixed issuer and 60 minutes', async () => {
    assert.deepEqual(Buffer.from(key), createHash('sha256').update(SECRET).digest());
    const claims = { agent_id: 'a', visitor_id: 'v', conversation_id: 'c' };
    const issued = await issueWidgetToken(key, claims, clock);
    assert.equal(issued.expiresAt.getTime() - clock.getTime(), 3_600_000);
    const [header] = issued.token.split('.');
    assert.deepEqual(JSON.parse(Buffer.from(header ?? '', 'base64url').toString()), {
      alg: 'HS256',
      typ: 'JWT',
    });
    assert.deepEqual(await verifyWidgetToken(key, issued.token, clock), claims);
  });

  test('a valid token works; expired (at 60 min), tampered, wrong issuer, alg none, other key → 401', async () => {
    const { agentId } = await createWidgetAgent(t);
    const session = await initSession(t, agentId);
    assert.equal(
      (await widgetCall(t, 'POST', '/v1/widget/typing', session.token, { typing: true })).statusCode,
      202,
    );

    const [h, p, s] = session.token.split('.');
    const payload = JSON.parse(Buffer.from(p ?? '', 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, conversation_id: 'X' })).toString('base64url');
    await expect401(`${h}.${forged}.${s}`);
    await expect401(`${h}.${p}.${(s ?? '').slice(0, -2)}AA`);
    await expect401(new UnsecuredJWT(payload).encode());
    const wrongIssuer = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('someone-else')
      .sign(key);
    await expect401(wrongIssuer);
    const otherKey = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(WIDGET_TOKEN_ISSUER)
      .sign(new Uint8Array(createHash('sha256').update('another secret').digest()));
    await expect401(otherKey);
    const hs512 = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS512' })
      .setIssuer(WIDGET_TOKEN_ISSUER)
      .sign(key);
    await expect401(hs512);
    await expect401('not-a-token');

    const saved = clock;
    clock = new Date(saved.getTime() + 3_599_000);
    assert.equal(
      (await widgetCall(t, 'POST', '/v1/widget/typing', session.token, { typing: true })).statusCode,
      202,
      'valid until exp',
    );
    // RFC 7519 §4.1.4: at exp the token is no longer accepted.
    clock = new Date(saved.getTime() + 3_600_000);
    await expect401(session.token);
    clock = saved;
  });

  test('no token or a non-bearer scheme → 401', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/typing',
      headers: { origin: 'https://shop.example.com' },
      payload: { typing: true },
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, UNAUTHENTICATED_BODY);
    assert.equal(
      res.headers['access-control-allow-origin'],
      'https://shop.example.com',
      'the widget can see a 401 and re-init',
    );
  });

  test("a correctly signed token naming another visitor's conversation, or another agent, → 401", async () => {
    const { agentId } = await createWidgetAgent(t);
    const mine = await initSession(t, agentId);
    const theirs = await initSession(t, agentId);
    const other = await createWidgetAgent(t);
    const elsewhere = await initSession(t, other.agentId);
    const crossVisitor = await issueWidgetToken(
      key,
      { agent_id: agentId, visitor_id: mine.visitor_id, conversation_id: theirs.conversation_id },
      clock,
    );
    await expect401(crossVisitor.token);
    const crossAgent = await issueWidgetToken(
      key,
      { agent_id: agentId, visitor_id: elsewhere.visitor_id, conversation_id: elsewhere.conversation_id },
      clock,
    );
    await expect401(crossAgent.token);
    const poll = await widgetCall(t, 'GET', '/v1/widget/conversation/messages', mine.token);
    assert.equal(poll.statusCode, 200, poll.body);
  });

  test('unpublishing the agent ends its tokens', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const session = await initSession(t, agentId);
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/agents/${agentId}`,
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: { is_published: false },
    });
    await expect401(session.token);
  });
});
