import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  INBOX_SEARCH_MAX,
  ZConversationDetail,
  ZConversationSummary,
  ZInboxConversation,
  ZInboxCounts,
} from '@service/contract';
import { newId } from '../src/security/ids.js';
import { seedAgent, seedConversation, seedOperator } from './support/conversations.js';
import { auditRows, expectData, expectError, expectPage, expectValidation } from './support/http.js';
import { signedInMember } from './support/members.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

// The inbox: filters, search, unread counts and read marks, closing, and the conversation's
// context (language, leads, timeline). Notes and saved replies are in admin-inbox-notes.test.ts.

const BASE = '/api/v1/admin/conversations';

describe('admin API: the inbox', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  let agentId: string;
  let secondAgent: string;
  let ana: { userId: string; auth: Record<string, string> };
  const ids: Record<string, string> = {};

  const list = (query: string, headers = acme.auth) =>
    t.app.inject({ method: 'GET', url: `${BASE}?${query}`, headers });
  const listIds = async (query: string, headers = acme.auth) =>
    expectPage(await list(query, headers), 200, ZInboxConversation).map((row) => row.id);
  const counts = async (headers = acme.auth, query = '') =>
    expectData(
      await t.app.inject({ method: 'GET', url: `${BASE}/counts${query}`, headers }),
      200,
      ZInboxCounts,
    );
  const post = (id: string, action: string, headers = acme.auth) =>
    t.app.inject({ method: 'POST', url: `${BASE}/${id}/${action}`, headers });

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Inbox');
    other = await seedTenant(t, 'Other Inbox');
    agentId = await seedAgent(t, acme.workspace.id);
    secondAgent = await seedAgent(t, acme.workspace.id, 'Sales bot');
    ana = await seedOperator(t, acme);
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute));
    const seed = async (
      name: string,
      status: 'open' | 'waiting' | 'claimed' | 'closed',
      content: string,
      minute: number,
      extra: { claimedBy?: string; agent?: string } = {},
    ) => {
      ids[name] = (
        await seedConversation(t, {
          workspaceId: acme.workspace.id,
          agentId: extra.agent ?? agentId,
          status,
          claimedByUserId: extra.claimedBy ?? null,
          createdAt: at(minute),
          messages: [
            { role: 'visitor', content, createdAt: at(minute) },
            { role: 'assistant', content: 'Bot answer about shipping', createdAt: at(minute + 1) },
          ],
        })
      ).conversationId;
    };
    await seed('open', 'open', 'Where is my parcel? 100% late_order', 1);
    await seed('waiting', 'waiting', 'I want a human please', 3);
    await seed('mine', 'claimed', 'Refund for order 42', 5, { claimedBy: acme.user.id });
    await seed('anas', 'claimed', 'Refund for order 43', 7, { claimedBy: ana.userId });
    await seed('closed', 'closed', 'Thanks, solved. back\\slash', 9);
    await seed('sales', 'open', 'Price of the enterprise plan', 11, { agent: secondAgent });
    // Another workspace's conversation says the same words: it never shows.
    const otherAgent = await seedAgent(t, other.workspace.id);
    await seedConversation(t, {
      workspaceId: other.workspace.id,
      agentId: otherAgent,
      messages: [{ role: 'visitor', content: 'Refund for order 42' }],
    });
  });
  after(() => t.close());

  test('filters: waiting, open (not closed), mine (claimed by the caller), closed, all; per agent', async () => {
    assert.deepEqual(await listIds('filter=waiting'), [ids.waiting]);
    assert.deepEqual(await listIds('filter=open'), [ids.sales, ids.anas, ids.mine, ids.waiting, ids.open]);
    assert.deepEqual(await listIds('filter=mine'), [ids.mine]);
    assert.deepEqual(await listIds('filter=mine', ana.auth), [ids.anas]);
    assert.deepEqual(await listIds('filter=closed'), [ids.closed]);
    assert.equal((await listIds('filter=all')).length, 6);
    assert.deepEqual(await listIds(`filter=open&agent_id=${secondAgent}`), [ids.sales]);
    // Keyset paging holds under a filter.
    const first = JSON.parse((await list('filter=open&limit=2')).body);
    assert.equal(first.data.length, 2);
    const rest = await listIds(`filter=open&limit=10&cursor=${first.meta.next_cursor}`);
    assert.deepEqual(rest, [ids.mine, ids.waiting, ids.open]);
    expectValidation(await list('filter=everything'), ['filter']);
  });

  test('search: words or a part of one over visitor messages only; LIKE wildcards are literal; hostile text is safe', async () => {
    assert.deepEqual(await listIds('q=refund'), [ids.anas, ids.mine]);
    assert.deepEqual(await listIds('q=order%2042'), [ids.mine]);
    assert.deepEqual(await listIds('q=parc'), [ids.open]);
    assert.deepEqual(await listIds('q=REFUND&filter=mine'), [ids.mine]);
    // Only visitor messages are searched: the bot's words match nothing.
    assert.deepEqual(await listIds('q=shipping'), []);
    // % and _ and \ are taken literally, not as wildcards.
    assert.deepEqual(await listIds('q=100%25'), [ids.open]);
    assert.deepEqual(await listIds('q=late_order'), [ids.open]);
    assert.deepEqual(await listIds('q=%25'), [ids.open]);
    assert.deepEqual(await listIds('q=_'), [ids.open]);
    assert.deepEqual(await listIds('q=%5C'), [ids.closed]);
    for (const hostile of [
      "'; drop table messages; --",
      '!!&|:*',
      '<script>alert(1)</script>',
      '\u202e\u200b',
    ]) {
      assert.deepEqual(await listIds(`q=${encodeURIComponent(hostile)}`), [], hostile);
    }
    // Blank is no search; over the bound or with NUL is a 422.
    assert.equal((await listIds('q=%20%20')).length, 6);
    assert.equal((await listIds(`q=${'a'.repeat(INBOX_SEARCH_MAX)}`)).length, 0);
    expectValidation(await list(`q=${'a'.repeat(INBOX_SEARCH_MAX + 1)}`), ['q']);
    expectValidation(await list('q=a%00b'), ['q']);
    const stillThere = await t.database.db.selectFrom('messages').select('id').execute();
    assert.ok(stillThere.length > 0);
  });

  test('unread: per user, cleared by a read mark up to the newest message, back on a new visitor message', async () => {
    const before = await counts();
    assert.deepEqual(before.waiting, { total: 1, unread: 1 });
    assert.deepEqual(before.mine, { total: 1, unread: 1 });
    assert.deepEqual(before.closed, { total: 1, unread: 1 });
    assert.deepEqual(before.all, { total: 6, unread: 6 });
    assert.deepEqual((await counts(acme.auth, `?agent_id=${secondAgent}`)).all, { total: 1, unread: 1 });

    assert.equal((await post(ids.waiting ?? '', 'read')).statusCode, 204);
    const afterRead = await counts();
    assert.deepEqual(afterRead.waiting, { total: 1, unread: 0 });
    assert.deepEqual(afterRead.all, { total: 6, unread: 5 });
    const row = (await list('filter=waiting')).json().data[0];
    assert.equal(row.unread, false);
    // Ana's marks are her own.
    assert.deepEqual((await counts(ana.auth)).waiting, { total: 1, unread: 1 });
    // Reading again is harmless; a new visitor message makes it unread again.
    assert.equal((await post(ids.waiting ?? '', 'read')).statusCode, 204);
    await t.database.db
      .insertInto('messages')
      .values({
        id: newId(),
        workspace_id: acme.workspace.id,
        conversation_id: ids.waiting ?? '',
        role: 'visitor',
        content: 'Hello?',
        created_at: new Date(Date.UTC(2026, 0, 1, 12)),
      })
      .execute();
    assert.deepEqual((await counts()).waiting, { total: 1, unread: 1 });
    // An operator's or the bot's message does not make it unread.
    assert.equal((await post(ids.waiting ?? '', 'read')).statusCode, 204);
    await t.database.db
      .insertInto('messages')
      .values({
        id: newId(),
        workspace_id: acme.workspace.id,
        conversation_id: ids.waiting ?? '',
        role: 'assistant',
        content: 'Someone will be with you.',
        created_at: new Date(Date.UTC(2026, 0, 1, 13)),
      })
      .execute();
    assert.deepEqual((await counts()).waiting, { total: 1, unread: 0 });
  });

  test("read marks and counts are tenant-scoped: another workspace's conversation is a 404", async () => {
    expectError(await post(ids.open ?? '', 'read', other.auth), 404, 'not_found');
    expectError(await post('no-such-id', 'read'), 404, 'not_found');
    assert.deepEqual((await counts(other.auth)).all, { total: 1, unread: 1 });
    const stored = await t.database.db
      .selectFrom('conversation_reads')
      .select('workspace_id')
      .where('workspace_id', '=', other.workspace.id)
      .execute();
    assert.deepEqual(stored, []);
  });

  test('close: every status but closed becomes closed, the claim is cleared, audited once; a viewer is refused', async () => {
    const viewer = await signedInMember(t, acme, 'viewer');
    const claimed = ids.anas ?? '';
    expectError(await post(claimed, 'close', viewer.headers), 403, 'forbidden');
    expectError(await post(claimed, 'close', other.auth), 404, 'not_found');
    assert.equal(
      (
        await t.database.db
          .selectFrom('conversations')
          .select('status')
          .where('id', '=', claimed)
          .executeTakeFirstOrThrow()
      ).status,
      'claimed',
    );
    const closed = expectData(await post(claimed, 'close'), 200, ZConversationSummary);
    assert.equal(closed.status, 'closed');
    assert.equal(closed.claimed_by_user_id, null);
    const again = expectData(await post(claimed, 'close'), 200, ZConversationSummary);
    assert.equal(again.status, 'closed');
    const audit = (await auditRows(t, acme.workspace.id)).filter((row) => row.target_id === claimed);
    assert.deepEqual(
      audit.map((row) => [row.action, row.metadata]),
      [['conversation.closed', { previous_status: 'claimed', previous_claimed_by_user_id: ana.userId }]],
    );
    // A closed conversation cannot be claimed again.
    expectError(await post(claimed, 'claim'), 409, 'conflict');
  });

  test('detail: the visitor language, leads, operators, notes and a timeline derived from stored rows', async () => {
    const seeded = await seedConversation(t, {
      workspaceId: acme.workspace.id,
      agentId,
      status: 'waiting',
      humanRequestedAt: new Date(Date.UTC(2026, 0, 2, 9, 1)),
      createdAt: new Date(Date.UTC(2026, 0, 2, 9)),
      messages: [
        {
          role: 'assistant',
          content: 'See [1].',
          citations: [{ id: 1, url: 'https://docs.example.com/ship', title: 'Shipping' }],
        },
      ],
    });
    const id = seeded.conversationId;
    await t.database.db
      .updateTable('visitors')
      .set({ locale: 'de-DE' })
      .where('id', '=', seeded.visitorId)
      .execute();
    await t.database.db
      .insertInto('leads')
      .values({
        id: newId(),
        workspace_id: acme.workspace.id,
        agent_id: agentId,
        visitor_id: seeded.visitorId,
        conversation_id: id,
        email: 'lead@example.com',
        email_normalized: 'lead@example.com',
        name: 'Lea',
      })
      .execute();
    expectData(await post(id, 'claim'), 200, ZConversationSummary);
    expectData(
      await injectJson(t.app, 'POST', `${BASE}/${id}/messages`, { content: 'Hi, Acme here.' }, acme.auth),
      201,
      ZConversationSummary.pick({}).passthrough(),
    );
    expectData(
      await injectJson(t.app, 'POST', `${BASE}/${id}/notes`, { body: 'VIP customer' }, acme.auth),
      201,
      ZConversationSummary.pick({}).passthrough(),
    );
    expectData(await post(id, 'release'), 200, ZConversationSummary);
    expectData(await post(id, 'close'), 200, ZConversationSummary);

    const detail = expectData(
      await t.app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: acme.auth }),
      200,
      ZConversationDetail.strict(),
    );
    assert.equal(detail.visitor_locale, 'de-DE');
    assert.deepEqual(
      detail.leads.map((lead) => [lead.email, lead.name]),
      [['lead@example.com', 'Lea']],
    );
    assert.equal(detail.messages[0]?.citations[0]?.url, 'https://docs.example.com/ship');
    const operatorName = detail.operators[acme.user.id];
    assert.ok(operatorName);
    assert.deepEqual(
      detail.notes.map((note) => [note.body, note.author_user_id, note.author_name]),
      [['VIP customer', acme.user.id, operatorName]],
    );
    assert.deepEqual(
      detail.timeline.map((entry) => entry.kind),
      ['created', 'handoff_requested', 'claimed', 'note', 'released', 'closed'],
    );
    const claimedEntry = detail.timeline.find((entry) => entry.kind === 'claimed');
    assert.equal(claimedEntry?.user_id, acme.user.id);
    assert.equal(claimedEntry?.user_name, operatorName);
    expectError(
      await t.app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: other.auth }),
      404,
      'not_found',
    );
  });
});
