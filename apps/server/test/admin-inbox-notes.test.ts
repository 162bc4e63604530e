import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CONVERSATION_NOTE_MAX,
  SAVED_REPLY_TITLE_MAX,
  ZConversationNote,
  ZConversationSummary,
  ZSavedReply,
  ZWidgetInitResponse,
} from '@service/contract';
import { z } from 'zod';
import { auditRows, expectData, expectError, expectValidation } from './support/http.js';
import { signedInMember } from './support/members.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import {
  askWidget,
  createWidgetAgent,
  initRequest,
  newAnonId,
  pollMessages,
  widgetCall,
  ZPoll,
} from './support/widget.js';

// Internal notes (the visitor never sees them, checked through every widget read) and the
// workspace's saved replies (used by whoever may reply, edited by whoever configures).

const BASE = '/api/v1/admin';
const SECRET = 'INTERNAL-NOTE-7f3a: refund approved by finance';

describe('admin API: notes and saved replies', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  let agentId: string;

  const noteCount = async () =>
    Number(
      (
        await t.database.db
          .selectFrom('conversation_notes')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const replies = async () =>
    t.database.db
      .selectFrom('saved_replies')
      .select(['workspace_id', 'title', 'body'])
      .orderBy('title')
      .execute();

  before(async () => {
    t = await createTestApp();
    ({ tenant: acme, agentId } = await createWidgetAgent(t));
    other = await seedTenant(t, 'Other Notes');
  });
  after(() => t.close());

  test('a note is stored with its author and audited; the visitor never sees it on any widget route', async () => {
    const anonId = newAnonId();
    const session = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: anonId }),
      200,
      ZWidgetInitResponse,
    );
    await askWidget(t, session.token, 'Where is my refund?');
    const id = session.conversation_id;
    expectData(
      await t.app.inject({ method: 'POST', url: `${BASE}/conversations/${id}/claim`, headers: acme.auth }),
      200,
      ZConversationSummary,
    );
    const reply = await injectJson(
      t.app,
      'POST',
      `${BASE}/conversations/${id}/messages`,
      { content: 'Looking now.' },
      acme.auth,
    );
    assert.equal(reply.statusCode, 201, reply.body);
    const note = expectData(
      await injectJson(
        t.app,
        'POST',
        `${BASE}/conversations/${id}/notes`,
        { body: `  ${SECRET}  ` },
        acme.auth,
      ),
      201,
      ZConversationNote.strict(),
    );
    assert.equal(note.body, SECRET);
    assert.equal(note.author_user_id, acme.user.id);
    const listed = expectData(
      await t.app.inject({ method: 'GET', url: `${BASE}/conversations/${id}/notes`, headers: acme.auth }),
      200,
      z.array(ZConversationNote),
    );
    assert.deepEqual(listed, [note]);
    const audit = (await auditRows(t, acme.workspace.id)).find(
      (row) => row.action === 'conversation.note_added',
    );
    assert.deepEqual(audit?.metadata, { note_id: note.id, length: SECRET.length });
    assert.ok(!JSON.stringify(audit).includes('finance'), 'the audit row keeps no note text');

    // Every widget read: the poll, a resumed init, and the visitor's own data.
    const poll = await pollMessages(t, session.token);
    const parsed = expectData(poll, 200, ZPoll);
    assert.deepEqual(
      parsed.messages.map((message) => message.content).filter((content) => content === 'Looking now.'),
      ['Looking now.'],
    );
    const resumed = await initRequest(t, { agent_id: agentId, anon_id: anonId });
    assert.equal(resumed.statusCode, 200);
    const me = await widgetCall(t, 'GET', '/v1/widget/me', session.token);
    for (const res of [poll, resumed, me]) {
      assert.ok(
        !res.body.includes('INTERNAL-NOTE'),
        `a widget answer leaked the note: ${res.body.slice(0, 200)}`,
      );
      assert.ok(!res.body.includes('finance'));
    }
    // Closing: the bot says nothing more there; the widget's next poll is refused (its token is
    // spent) and a new init starts a fresh conversation.
    const closed = await t.app.inject({
      method: 'POST',
      url: `${BASE}/conversations/${id}/close`,
      headers: acme.auth,
    });
    assert.equal(closed.statusCode, 200, closed.body);
    assert.equal((await pollMessages(t, session.token)).statusCode, 401);
    const late = await widgetCall(t, 'POST', '/v1/widget/messages', session.token, { message: 'Hello?' });
    assert.equal(late.statusCode, 401);
    const fresh = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: anonId }),
      200,
      ZWidgetInitResponse,
    );
    assert.notEqual(fresh.conversation_id, id);
  });

  test('notes: bad input is a 422, a viewer 403 on writing, another workspace 404; nothing stored', async () => {
    const session = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: newAnonId() }),
      200,
      ZWidgetInitResponse,
    );
    // The conversation is stored with its first message.
    await askWidget(t, session.token, 'Hello');
    const id = session.conversation_id;
    const before = await noteCount();
    const url = `${BASE}/conversations/${id}/notes`;
    for (const body of [
      { body: '   ' },
      { body: 'x'.repeat(CONVERSATION_NOTE_MAX + 1) },
      { body: 'a\u0000b' },
      {},
    ]) {
      expectValidation(await injectJson(t.app, 'POST', url, body, acme.auth), ['body']);
    }
    expectValidation(await injectJson(t.app, 'POST', url, { body: 'ok', extra: 1 }, acme.auth), []);
    const atEdge = await injectJson(
      t.app,
      'POST',
      url,
      { body: 'y'.repeat(CONVERSATION_NOTE_MAX) },
      acme.auth,
    );
    assert.equal(atEdge.statusCode, 201);
    const viewer = await signedInMember(t, acme, 'viewer');
    expectError(await injectJson(t.app, 'POST', url, { body: 'hi' }, viewer.headers), 403, 'forbidden');
    // A viewer may read the notes.
    const read = await t.app.inject({ method: 'GET', url, headers: viewer.headers });
    assert.equal(read.statusCode, 200);
    expectError(await injectJson(t.app, 'POST', url, { body: 'hi' }, other.auth), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url, headers: other.auth }), 404, 'not_found');
    assert.equal(await noteCount(), before + 1);
  });

  test('saved replies: create, list by title, edit, delete; audited; duplicate titles (any case) are a 422', async () => {
    const created = expectData(
      await injectJson(
        t.app,
        'POST',
        `${BASE}/saved-replies`,
        { title: ' Shipping times ', body: 'We ship in 2 days.' },
        acme.auth,
      ),
      201,
      ZSavedReply.strict(),
    );
    assert.equal(created.title, 'Shipping times');
    expectData(
      await injectJson(
        t.app,
        'POST',
        `${BASE}/saved-replies`,
        { title: 'Apology', body: 'Sorry about that.' },
        acme.auth,
      ),
      201,
      ZSavedReply,
    );
    expectValidation(
      await injectJson(
        t.app,
        'POST',
        `${BASE}/saved-replies`,
        { title: 'SHIPPING TIMES', body: 'Dup' },
        acme.auth,
      ),
      ['title'],
    );
    const listed = expectData(
      await t.app.inject({ method: 'GET', url: `${BASE}/saved-replies`, headers: acme.auth }),
      200,
      z.array(ZSavedReply),
    );
    assert.deepEqual(
      listed.map((r) => r.title),
      ['Apology', 'Shipping times'],
    );
    const edited = expectData(
      await injectJson(
        t.app,
        'PATCH',
        `${BASE}/saved-replies/${created.id}`,
        { body: 'We ship in 1 day.' },
        acme.auth,
      ),
      200,
      ZSavedReply,
    );
    assert.equal(edited.body, 'We ship in 1 day.');
    assert.equal(edited.title, 'Shipping times');
    expectValidation(
      await injectJson(
        t.app,
        'PATCH',
        `${BASE}/saved-replies/${created.id}`,
        { title: 'apology' },
        acme.auth,
      ),
      ['title'],
    );
    expectValidation(
      await injectJson(t.app, 'PATCH', `${BASE}/saved-replies/${created.id}`, {}, acme.auth),
      [],
    );
    const del = await t.app.inject({
      method: 'DELETE',
      url: `${BASE}/saved-replies/${created.id}`,
      headers: acme.auth,
    });
    assert.equal(del.statusCode, 204);
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `${BASE}/saved-replies/${created.id}`,
        headers: acme.auth,
      }),
      404,
      'not_found',
    );
    assert.deepEqual(
      (await replies()).map((r) => r.title),
      ['Apology'],
    );
    const actions = (await auditRows(t, acme.workspace.id))
      .filter((row) => row.target_type === 'saved_reply')
      .map((row) => row.action)
      .sort();
    assert.deepEqual(actions, [
      'saved_reply.created',
      'saved_reply.created',
      'saved_reply.deleted',
      'saved_reply.updated',
    ]);
  });

  test('saved replies: an editor uses them but cannot edit; a viewer cannot read them; tenants are apart', async () => {
    const editor = await signedInMember(t, acme, 'editor');
    const viewer = await signedInMember(t, acme, 'viewer');
    const before = await replies();
    const list = (headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: `${BASE}/saved-replies`, headers });
    assert.equal((await list(editor.headers)).statusCode, 200);
    expectError(await list(viewer.headers), 403, 'forbidden');
    expectError(
      await injectJson(t.app, 'POST', `${BASE}/saved-replies`, { title: 'E', body: 'E' }, editor.headers),
      403,
      'forbidden',
    );
    const mine = expectData(await list(acme.auth), 200, z.array(ZSavedReply));
    const id = mine[0]?.id ?? '';
    expectError(
      await injectJson(t.app, 'PATCH', `${BASE}/saved-replies/${id}`, { title: 'X' }, editor.headers),
      403,
      'forbidden',
    );
    expectError(
      await t.app.inject({ method: 'DELETE', url: `${BASE}/saved-replies/${id}`, headers: editor.headers }),
      403,
      'forbidden',
    );
    // Another workspace sees none of them and cannot touch them.
    assert.deepEqual(expectData(await list(other.auth), 200, z.array(ZSavedReply)), []);
    expectError(
      await injectJson(t.app, 'PATCH', `${BASE}/saved-replies/${id}`, { title: 'X' }, other.auth),
      404,
      'not_found',
    );
    expectError(
      await t.app.inject({ method: 'DELETE', url: `${BASE}/saved-replies/${id}`, headers: other.auth }),
      404,
      'not_found',
    );
    // Bad input.
    for (const body of [
      { title: '', body: 'x' },
      { title: 'x'.repeat(SAVED_REPLY_TITLE_MAX + 1), body: 'x' },
      { title: 'ok', body: '' },
      { title: 'a\u0000', body: 'x' },
    ]) {
      assert.equal(
        (await injectJson(t.app, 'POST', `${BASE}/saved-replies`, body, acme.auth)).statusCode,
        422,
      );
    }
    assert.deepEqual(await replies(), before);
  });
});
