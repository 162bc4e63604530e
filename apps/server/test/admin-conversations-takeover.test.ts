import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZConversationMessage, ZConversationPage, ZConversationSummary } from '@service/contract';
import { listMessagesAfter } from '../src/services/conversations/conversation-inbox.js';
import { isBotSilenced } from '../src/services/conversations/operator.js';
import { seedAgent, seedConversation, seedOperator } from './support/conversations.js';
import { auditRows, bearer, expectData, expectError, expectValidation } from './support/http.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

const BASE = '/api/v1/admin/conversations';

describe('admin API: human takeover', () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;
  let ana: { userId: string; auth: Record<string, string> };

  // Claim and release take no body: sent bare, the way a client calls them.
  const post = (id: string, action: string, headers: Record<string, string>, body?: unknown) =>
    body === undefined
      ? t.app.inject({ method: 'POST', url: `${BASE}/${id}/${action}`, headers })
      : injectJson(t.app, 'POST', `${BASE}/${id}/${action}`, body, headers);
  const stored = (id: string) =>
    t.database.db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const auditOf = async (conversationId: string) =>
    (await auditRows(t, acme.workspace.id))
      .filter((row) => row.target_id === conversationId)
      .map((row) => ({ action: row.action, actor_id: row.actor_id, metadata: row.metadata }));
  const fresh = async (
    status: 'open' | 'waiting' | 'claimed' | 'closed' = 'open',
    claimedBy: string | null = null,
  ) =>
    (
      await seedConversation(t, {
        workspaceId: acme.workspace.id,
        agentId,
        status,
        claimedByUserId: claimedBy,
        messages: [
          { role: 'visitor', content: 'I need a human', createdAt: new Date('2020-01-01T00:00:00Z') },
        ],
      })
    ).conversationId;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Takeover');
    agentId = await seedAgent(t, acme.workspace.id);
    ana = await seedOperator(t, acme);
  });
  after(() => t.close());

  test('claim from open and from waiting sets the claim, silences the bot and is audited', async () => {
    for (const status of ['open', 'waiting'] as const) {
      const id = await fresh(status);
      const res = await post(id, 'claim', acme.auth);
      const summary = expectData(res, 200, ZConversationSummary);
      assert.equal(summary.status, 'claimed');
      assert.equal(summary.claimed_by_user_id, acme.user.id);
      assert.ok(summary.claimed_at);
      const row = await stored(id);
      assert.equal(row.status, 'claimed');
      assert.equal(row.claimed_by_user_id, acme.user.id);
      assert.ok(row.claimed_at instanceof Date);
      assert.equal(isBotSilenced(row), true);
      const audit = await auditOf(id);
      assert.equal(audit.length, 1);
      assert.equal(audit[0]?.action, 'conversation.claimed');
      assert.deepEqual(audit[0]?.metadata, { previous_status: status });
    }
  });

  test('claiming again as the same user is an idempotent 200; another user gets 409 and nothing changes', async () => {
    const id = await fresh();
    expectData(await post(id, 'claim', acme.auth), 200, ZConversationSummary);
    const first = await stored(id);
    const again = expectData(await post(id, 'claim', acme.auth), 200, ZConversationSummary);
    assert.equal(again.claimed_by_user_id, acme.user.id);
    assert.deepEqual(await stored(id), first);
    const conflict = expectError(await post(id, 'claim', ana.auth), 409, 'conflict');
    assert.equal(conflict.message, 'Another operator has already claimed this conversation.');
    assert.deepEqual(await stored(id), first);
    assert.deepEqual(
      (await auditOf(id)).map((a) => a.action),
      ['conversation.claimed'],
    );
  });

  test('a closed conversation cannot be claimed or released; a token acting for no user cannot claim', async () => {
    const closed = await fresh('closed');
    expectError(await post(closed, 'claim', acme.auth), 409, 'conflict');
    expectError(await post(closed, 'release', acme.auth), 409, 'conflict');
    assert.equal((await stored(closed)).status, 'closed');
    const userless = await issueToken(t, acme, ['admin']);
    const open = await fresh();
    const refused = expectError(await post(open, 'claim', bearer(userless.token)), 403, 'forbidden');
    assert.equal(refused.message, 'This token does not act for a user.');
    assert.equal((await stored(open)).status, 'open');
    assert.deepEqual(await auditOf(closed), []);
    assert.deepEqual(await auditOf(open), []);
  });

  test('only the claimer may reply: stored as operator with author, last_message_at moves, audited', async () => {
    const id = await fresh();
    const notClaimed = expectError(await post(id, 'messages', acme.auth, { content: 'Hi' }), 409, 'conflict');
    assert.equal(notClaimed.message, 'Claim this conversation before replying.');
    expectData(await post(id, 'claim', ana.auth), 200, ZConversationSummary);
    const otherUser = expectError(await post(id, 'messages', acme.auth, { content: 'Hi' }), 409, 'conflict');
    assert.match(otherUser.message, /Another operator holds this conversation/);
    const before = await stored(id);
    const res = await post(id, 'messages', ana.auth, { content: '  Hello, Ana here.  ' });
    const message = expectData(res, 201, ZConversationMessage.strict());
    assert.equal(message.role, 'operator');
    assert.equal(message.content, 'Hello, Ana here.');
    assert.equal(message.author_user_id, ana.userId);
    assert.deepEqual([message.citations, message.blocks], [[], []]);
    const row = await t.database.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', message.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.conversation_id, id);
    assert.equal(row.workspace_id, acme.workspace.id);
    assert.equal(row.author_user_id, ana.userId);
    const after = await stored(id);
    assert.equal(after.last_message_at?.toISOString(), message.created_at);
    assert.ok((after.last_message_at?.getTime() ?? 0) > (before.last_message_at?.getTime() ?? 0));
    const audit = await auditOf(id);
    assert.deepEqual(
      audit.map((a) => a.action),
      ['conversation.claimed', 'conversation.operator_replied'],
    );
    assert.deepEqual(audit[1]?.metadata, { message_id: message.id, length: 16 });
    const page = ZConversationPage.parse(
      (await t.app.inject({ url: `${BASE}?status=claimed`, headers: ana.auth })).json(),
    );
    const listed = page.data.find((c) => c.id === id);
    assert.equal(listed?.message_count, 2);
    assert.equal(listed?.last_message?.preview, 'Hello, Ana here.');
  });

  test('reply bodies are validated at their edges and refused ones store nothing', async () => {
    const id = await fresh();
    expectData(await post(id, 'claim', acme.auth), 200, ZConversationSummary);
    expectValidation(await post(id, 'messages', acme.auth, { content: '   ' }), ['content']);
    expectValidation(await post(id, 'messages', acme.auth, { content: 'x'.repeat(4001) }), ['content']);
    expectValidation(await post(id, 'messages', acme.auth, {}), ['content']);
    expectValidation(await post(id, 'messages', acme.auth, { content: 'ok', role: 'assistant' }), ['role']);
    const count = async () =>
      (await t.database.db.selectFrom('messages').select('id').where('conversation_id', '=', id).execute())
        .length;
    assert.equal(await count(), 1);
    const longest = expectData(
      await post(id, 'messages', acme.auth, { content: ` ${'x'.repeat(4000)} ` }),
      201,
      ZConversationMessage,
    );
    assert.equal(longest.content.length, 4000);
    assert.equal(await count(), 2);
  });

  test('release hands back to the bot: every admin may release, repeating is harmless, audited once', async () => {
    const id = await fresh();
    expectData(await post(id, 'claim', ana.auth), 200, ZConversationSummary);
    const released = expectData(await post(id, 'release', acme.auth), 200, ZConversationSummary);
    assert.deepEqual(
      [released.status, released.claimed_by_user_id, released.claimed_at],
      ['open', null, null],
    );
    const row = await stored(id);
    assert.deepEqual([row.status, row.claimed_by_user_id, row.claimed_at], ['open', null, null]);
    assert.equal(isBotSilenced(row), false);
    const again = expectData(await post(id, 'release', acme.auth), 200, ZConversationSummary);
    assert.equal(again.status, 'open');
    const audit = await auditOf(id);
    assert.deepEqual(
      audit.map((a) => [a.action, a.actor_id === null]),
      [
        ['conversation.claimed', false],
        ['conversation.released', false],
      ],
    );
    assert.deepEqual(audit[1]?.metadata, {
      previous_status: 'claimed',
      previous_claimed_by_user_id: ana.userId,
    });
    // The claim is gone: replying needs a new claim.
    expectError(await post(id, 'messages', ana.auth, { content: 'still here?' }), 409, 'conflict');
    const waiting = await fresh('waiting');
    const fromWaiting = expectData(await post(waiting, 'release', ana.auth), 200, ZConversationSummary);
    assert.equal(fromWaiting.status, 'open');
  });

  test('listMessagesAfter: ordered by (created_at, id), after an id, capped, unknown id is a 422', async () => {
    const stamp = new Date('2030-04-01T00:00:00Z');
    const later = new Date('2030-04-01T00:00:01Z');
    const seeded = await seedConversation(t, {
      workspaceId: acme.workspace.id,
      agentId,
      // Inserted out of time order; two share a timestamp (then the id decides).
      messages: [
        { role: 'visitor', content: 'second', createdAt: later },
        { role: 'visitor', content: 'first-a', createdAt: stamp },
        { role: 'assistant', content: 'first-b', createdAt: stamp },
        { role: 'operator', content: 'third', createdAt: new Date('2030-04-01T00:00:02Z') },
      ],
    });
    const scope = {
      db: t.database.db,
      workspaceId: acme.workspace.id,
      conversationId: seeded.conversationId,
    };
    const contents = async (afterMessageId: string | undefined, limit = 50) =>
      (await listMessagesAfter({ ...scope, afterMessageId, limit })).map((m) => m.content);
    assert.deepEqual(await contents(undefined), ['first-a', 'first-b', 'second', 'third']);
    assert.deepEqual(await contents(seeded.messageIds[1]), ['first-b', 'second', 'third']);
    assert.deepEqual(await contents(seeded.messageIds[2]), ['second', 'third']);
    assert.deepEqual(await contents(seeded.messageIds[3]), []);
    assert.deepEqual(await contents(undefined, 1), ['first-a']);
    assert.equal((await listMessagesAfter({ ...scope, limit: 100 })).length, 4);
    await assert.rejects(listMessagesAfter({ ...scope, limit: 101 }), { code: 'validation_failed' });
    await assert.rejects(listMessagesAfter({ ...scope, limit: 0 }), { code: 'validation_failed' });
    // An id from another conversation is unknown here, exactly like a made-up one.
    const elsewhere = await seedConversation(t, {
      workspaceId: acme.workspace.id,
      agentId,
      messages: [{ role: 'visitor', content: 'elsewhere' }],
    });
    for (const unknown of ['01NOPE', elsewhere.messageIds[0]]) {
      await assert.rejects(
        listMessagesAfter({ ...scope, afterMessageId: unknown, limit: 10 }),
        (error: unknown) => {
          assert.ok(error instanceof Error && 'code' in error && 'errors' in error);
          assert.equal(error.code, 'validation_failed');
          assert.deepEqual(Object.keys(Object(error.errors)), ['after']);
          return true;
        },
      );
    }
    const other = await seedTenant(t, 'Other Poller');
    await assert.rejects(listMessagesAfter({ ...scope, workspaceId: other.workspace.id, limit: 10 }), {
      code: 'not_found',
    });
  });

  test('visitor_typing against the database clock: a fresh signal is typing, an old one is not', async () => {
    const typingNow = await seedConversation(t, {
      workspaceId: acme.workspace.id,
      agentId,
      visitorTypingAt: new Date(),
    });
    const stale = await seedConversation(t, {
      workspaceId: acme.workspace.id,
      agentId,
      visitorTypingAt: new Date(Date.now() - 60_000),
    });
    const page = ZConversationPage.parse(
      (await t.app.inject({ url: `${BASE}?limit=100`, headers: acme.auth })).json(),
    );
    const flag = (id: string) => page.data.find((c) => c.id === id)?.visitor_typing;
    assert.equal(flag(typingNow.conversationId), true);
    assert.equal(flag(stale.conversationId), false);
  });
});
