import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ZWidgetAnswer } from '@service/contract';
import { z } from 'zod';
import { signShopperToken } from '../src/security/shopper-token.js';
import { expectData, signingSecretOf, UNAUTHENTICATED_BODY } from './support/http.js';
import { PLUGIN_VERSION, samplePost, wpPost } from './support/site-sync.js';
import { createTestApp, issueToken, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initRequest, initSession, newAnonId, widgetCall } from './support/widget.js';

// Lazy conversations: init for a visitor without an open conversation writes nothing; the
// token's first call stores the visitor and the conversation from its signed claims.

const EMAIL_HASH = createHash('sha256').update('jo@example.com').digest('hex');
const ZCleared = z.object({ token: z.string(), conversation_id: z.string() });

describe('widget init: conversations are stored at the first call', () => {
  let t: TestApp;
  let agentId = '';
  let shopperSecret = '';

  before(async () => {
    t = await createTestApp();
    const created = await createWidgetAgent(t);
    agentId = created.agentId;
    const issued = await issueToken(t, created.tenant, ['wp:integration']);
    shopperSecret = await signingSecretOf(t, issued.token);
    const sync = await wpPost(t, 'posts/sync', issued.token, {
      agent_id: agentId,
      site_url: 'https://shop.example.com',
      plugin_version: PLUGIN_VERSION,
      posts: [samplePost(1)],
    });
    assert.equal(sync.statusCode, 200, sync.body);
  });
  after(() => t.close());

  const rowsOf = async (anonId: string) => {
    const db = t.database.db;
    const visitors = await db
      .selectFrom('visitors')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('anon_id', '=', anonId)
      .execute();
    const ids = visitors.map((visitor) => visitor.id);
    const conversations =
      ids.length === 0
        ? []
        : await db.selectFrom('conversations').selectAll().where('visitor_id', 'in', ids).execute();
    return { visitors, conversations };
  };
  const ask = async (token: string, message: string) =>
    expectData(await widgetCall(t, 'POST', '/v1/widget/messages', token, { message }), 200, ZWidgetAnswer);
  const expect401 = async (token: string) => {
    const res = await widgetCall(t, 'POST', '/v1/widget/typing', token, { typing: true });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.body, UNAUTHENTICATED_BODY);
  };

  test('init for a new visitor answers as before and writes no row', async () => {
    const anonId = newAnonId();
    const s = await initSession(t, agentId, { anon_id: anonId, page_url: 'https://shop.example.com/a' });
    assert.equal(s.conversation_status, 'open');
    assert.deepEqual(s.messages, []);
    assert.ok(s.conversation_id && s.visitor_id);
    assert.deepEqual(await rowsOf(anonId), { visitors: [], conversations: [] });
  });

  test('the first message stores the visitor and the conversation with the page and the verified shopper', async () => {
    const anonId = newAnonId();
    const shopperToken = await signShopperToken(shopperSecret, {
      wp_user_id: 42,
      email_hash: EMAIL_HASH,
      iat: Math.floor(Date.now() / 1000),
    });
    const longUrl = `https://shop.example.com/shoes?${'q'.repeat(1500)}`;
    const s = await initSession(t, agentId, {
      anon_id: anonId,
      locale: 'de-CH',
      page_url: longUrl,
      page_title: 'Shoes',
      referrer: 'https://search.example/',
      shopper_token: shopperToken,
    });
    assert.equal(s.shopper_verified, true);
    assert.deepEqual(await rowsOf(anonId), { visitors: [], conversations: [] });

    const answer = await ask(s.token, 'Do you ship to Norway?');
    assert.equal(answer.conversation_id, s.conversation_id);
    const { visitors, conversations } = await rowsOf(anonId);
    assert.equal(visitors.length, 1);
    assert.equal(visitors[0]?.id, s.visitor_id);
    assert.equal(visitors[0]?.locale, 'de-ch');
    assert.equal(conversations.length, 1);
    const stored = conversations[0];
    assert.ok(stored);
    assert.equal(stored.id, s.conversation_id);
    assert.equal(stored.status, 'open');
    assert.equal(stored.page_url, longUrl.slice(0, 1024), 'cut to 1024 characters');
    assert.equal(stored.page_title, 'Shoes');
    assert.equal(stored.referrer, 'https://search.example/');
    assert.equal(String(stored.shopper_wp_user_id), '42');
    assert.equal(stored.shopper_email_hash, EMAIL_HASH);
    assert.ok(stored.shopper_verified_at instanceof Date);
    assert.ok(stored.last_message_at instanceof Date, 'the message is stored in it');

    const again = await ask(s.token, 'And to Sweden?');
    assert.equal(again.conversation_id, s.conversation_id);
    assert.equal((await rowsOf(anonId)).conversations.length, 1, 'stored once');
  });

  test('a re-init after a message resumes that conversation with its history', async () => {
    const anonId = newAnonId();
    const first = await initSession(t, agentId, { anon_id: anonId });
    await ask(first.token, 'Where is my parcel?');
    const second = await initSession(t, agentId, { anon_id: anonId, page_url: 'https://shop.example.com/b' });
    assert.equal(second.conversation_id, first.conversation_id);
    assert.equal(second.visitor_id, first.visitor_id);
    assert.deepEqual(second.messages.map((message) => [message.role, message.content]).slice(0, 1), [
      ['visitor', 'Where is my parcel?'],
    ]);
    assert.ok(second.messages.length >= 2, 'the answer too');
    const { conversations } = await rowsOf(anonId);
    assert.equal(conversations[0]?.page_url, 'https://shop.example.com/b', 'resuming records the page');
  });

  test('a returning visitor without an open conversation keeps their visitor id, and still nothing is written', async () => {
    const anonId = newAnonId();
    const first = await initSession(t, agentId, { anon_id: anonId });
    await ask(first.token, 'Hello');
    const cleared = expectData(
      await widgetCall(t, 'POST', '/v1/widget/conversation/clear', first.token),
      200,
      ZCleared,
    );
    // The cleared conversation is open but empty; closing it leaves the visitor with none open.
    await t.database.db
      .updateTable('conversations')
      .set({ status: 'closed' })
      .where('id', '=', cleared.conversation_id)
      .execute();
    const before = await rowsOf(anonId);
    const next = await initSession(t, agentId, { anon_id: anonId });
    assert.equal(next.visitor_id, first.visitor_id);
    assert.notEqual(next.conversation_id, first.conversation_id);
    assert.deepEqual(next.messages, []);
    assert.deepEqual(await rowsOf(anonId), before);
    assert.equal(
      (await widgetCall(t, 'POST', '/v1/widget/events', next.token, { kind: 'page_view' })).statusCode,
      202,
    );
    assert.equal((await rowsOf(anonId)).conversations.length, 3);
  });

  test('a "not stored" token whose conversation was stored and then closed is 401, and is not re-created', async () => {
    const anonId = newAnonId();
    const s = await initSession(t, agentId, { anon_id: anonId });
    assert.equal(
      (await widgetCall(t, 'POST', '/v1/widget/typing', s.token, { typing: true })).statusCode,
      202,
    );
    const cleared = expectData(
      await widgetCall(t, 'POST', '/v1/widget/conversation/clear', s.token),
      200,
      ZCleared,
    );
    await expect401(s.token);
    const { conversations } = await rowsOf(anonId);
    const old = conversations.find((row) => row.id === s.conversation_id);
    assert.equal(old?.status, 'closed', 'still closed, not re-opened');
    assert.equal(conversations.length, 2);
    assert.equal(
      (await widgetCall(t, 'POST', '/v1/widget/typing', cleared.token, { typing: true })).statusCode,
      202,
    );
  });

  test('clear works on a conversation that was never stored', async () => {
    const anonId = newAnonId();
    const s = await initSession(t, agentId, { anon_id: anonId });
    const cleared = expectData(
      await widgetCall(t, 'POST', '/v1/widget/conversation/clear', s.token),
      200,
      ZCleared,
    );
    assert.notEqual(cleared.conversation_id, s.conversation_id);
    await expect401(s.token);
    const poll = await widgetCall(t, 'GET', '/v1/widget/conversation/messages', cleared.token);
    assert.equal(poll.statusCode, 200, poll.body);
  });

  test('the claims are signed: changing any of them (anon_id, page, shopper) is a 401 and stores nothing', async () => {
    const anonId = newAnonId();
    const s = await initSession(t, agentId, { anon_id: anonId, page_url: 'https://shop.example.com/a' });
    const [header, payload, signature] = s.token.split('.');
    const claims = z
      .object({ pending: z.record(z.string(), z.unknown()) })
      .passthrough()
      .parse(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()));
    assert.equal(claims.pending.anon_id, anonId);
    const victim = newAnonId();
    const tampered = [
      { ...claims, pending: { ...claims.pending, anon_id: victim } },
      { ...claims, pending: { ...claims.pending, page_url: 'https://evil.example/' } },
      {
        ...claims,
        pending: { ...claims.pending, shopper: { wp_user_id: 7, email_hash: EMAIL_HASH, verified_at: 1 } },
      },
    ];
    for (const forged of tampered) {
      const body = Buffer.from(JSON.stringify(forged)).toString('base64url');
      await expect401(`${header}.${body}.${signature}`);
    }
    assert.deepEqual(await rowsOf(anonId), { visitors: [], conversations: [] });
    assert.deepEqual(await rowsOf(victim), { visitors: [], conversations: [] });
  });

  test('an unpublished agent: the pending token is 401 and stores nothing', async () => {
    const { tenant, agentId: other } = await createWidgetAgent(t);
    const anonId = newAnonId();
    const s = await initSession(t, other, { anon_id: anonId });
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/agents/${other}`,
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: { is_published: false },
    });
    await expect401(s.token);
    const visitors = await t.database.db
      .selectFrom('visitors')
      .select('id')
      .where('agent_id', '=', other)
      .execute();
    assert.deepEqual(visitors, []);
  });

  test('a pending token from an Origin the agent refuses is 403 and stores nothing', async () => {
    const anonId = newAnonId();
    const s = await initSession(t, agentId, { anon_id: anonId });
    for (const origin of ['https://evil.example.com', null]) {
      const res = await widgetCall(
        t,
        'POST',
        '/v1/widget/messages',
        s.token,
        { message: 'hello' },
        { origin },
      );
      assert.equal(res.statusCode, 403, String(origin));
    }
    assert.deepEqual(await rowsOf(anonId), { visitors: [], conversations: [] });
    await ask(s.token, 'hello');
    assert.equal((await rowsOf(anonId)).conversations.length, 1, 'the allowed Origin stores it');
  });

  test("init's agent cache: unpublishing through the admin API is seen by the very next init", async () => {
    const { tenant, agentId: other } = await createWidgetAgent(t);
    await initSession(t, other);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/agents/${other}`,
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: { is_published: false },
    });
    assert.equal(patch.statusCode, 200, patch.body);
    const res = await initRequest(t, { agent_id: other, anon_id: newAnonId() });
    assert.equal(res.statusCode, 404, res.body);
  });

  test('two tabs of one new visitor: one visitor, two conversations, each token reaches only its own', async () => {
    const anonId = newAnonId();
    const [one, two] = await Promise.all([
      initSession(t, agentId, { anon_id: anonId }),
      initSession(t, agentId, { anon_id: anonId }),
    ]);
    assert.notEqual(one.conversation_id, two.conversation_id);
    await ask(one.token, 'From tab one');
    await ask(two.token, 'From tab two');
    const { visitors, conversations } = await rowsOf(anonId);
    assert.equal(visitors.length, 1);
    assert.deepEqual(
      conversations.map((row) => row.id).sort(),
      [one.conversation_id, two.conversation_id].sort(),
    );
    const poll = expectData(
      await widgetCall(t, 'GET', '/v1/widget/conversation/messages', two.token),
      200,
      z.object({ messages: z.array(z.object({ content: z.string() })) }),
    );
    assert.equal(poll.messages[0]?.content, 'From tab two');
  });

  test('forget-me on a visitor that was never stored: 204, and nothing is left', async () => {
    const anonId = newAnonId();
    const s = await initSession(t, agentId, { anon_id: anonId });
    const erased = await widgetCall(t, 'DELETE', '/v1/widget/me', s.token);
    assert.equal(erased.statusCode, 204, erased.body);
    assert.deepEqual(await rowsOf(anonId), { visitors: [], conversations: [] });
  });

  test('forget-me with a pending token also erases what the visitor stored before', async () => {
    const anonId = newAnonId();
    const first = await initSession(t, agentId, { anon_id: anonId });
    await ask(first.token, 'Hello');
    await t.database.db
      .updateTable('conversations')
      .set({ status: 'closed' })
      .where('id', '=', first.conversation_id)
      .execute();
    const next = await initSession(t, agentId, { anon_id: anonId });
    assert.equal((await rowsOf(anonId)).conversations.length, 1);
    const erased = await widgetCall(t, 'DELETE', '/v1/widget/me', next.token);
    assert.equal(erased.statusCode, 204, erased.body);
    assert.deepEqual(await rowsOf(anonId), { visitors: [], conversations: [] });
  });
});
