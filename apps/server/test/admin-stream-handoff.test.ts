import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPostgresDatabase } from '../src/db/database.js';
import { isBotSilenced } from '../src/services/conversations/operator.js';
import { listenOnce, type OpenStream, openStream } from './support/admin-stream.js';
import { expectError } from './support/http.js';
import { signedInMember } from './support/members.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';
import { conversationRow, createWidgetAgent, initSession, widgetCall } from './support/widget.js';

describe('handoff: operators online, operator typing, two instances', () => {
  let t: TestApp;
  let base: string;
  const open: OpenStream[] = [];
  before(async () => {
    t = await createTestApp();
    base = await listenOnce(t.app);
  });
  after(async () => {
    for (const s of open) s.close();
    await t.close();
  });

  test('request-human says honestly whether an operator is online', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const alone = await initSession(t, agentId);
    const nobody = await widgetCall(t, 'POST', '/v1/widget/request-human', alone.token);
    assert.equal(nobody.statusCode, 200, nobody.body);
    assert.deepEqual(nobody.json().data, { status: 'waiting', operators_online: false });

    const editor = await signedInMember(t, tenant, 'editor');
    const s = await openStream(base, editor.headers);
    open.push(s);
    await s.waitFor((f) => f.event === 'stream.ready');
    const helped = await initSession(t, agentId);
    const someone = await widgetCall(t, 'POST', '/v1/widget/request-human', helped.token);
    assert.deepEqual(someone.json().data, { status: 'waiting', operators_online: true });
    await s.waitFor(
      (f) =>
        f.event === 'conversation.handoff_requested' &&
        (f.data as { conversation_id: string }).conversation_id === helped.conversation_id,
    );
  });

  test('operator typing: only the claimer; the poll shows it and the stream gets it', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const editor = await signedInMember(t, tenant, 'editor');
    const viewer = await signedInMember(t, tenant, 'viewer');
    const session = await initSession(t, agentId);
    await widgetCall(t, 'POST', '/v1/widget/request-human', session.token);
    const url = `/api/v1/admin/conversations/${session.conversation_id}/typing`;
    const typing = (headers: Record<string, string>, body: unknown) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    expectError(await typing(editor.headers, { typing: true }), 409, 'conflict');
    expectError(await typing(viewer.headers, { typing: true }), 403, 'forbidden');
    expectError(await typing(editor.headers, { typing: 'yes' }), 422, 'validation_failed');
    const claim = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${session.conversation_id}/claim`,
      headers: editor.headers,
    });
    assert.equal(claim.statusCode, 200, claim.body);
    const s = await openStream(base, tenant.auth);
    open.push(s);
    await s.waitFor((f) => f.event === 'stream.ready');
    const res = await typing(editor.headers, { typing: true });
    assert.equal(res.statusCode, 202, res.body);
    const frame = await s.waitFor((f) => f.event === 'typing');
    assert.equal((frame.data as { who: string }).who, 'operator');
    assert.equal((frame.data as { user_id: string }).user_id, editor.userId);
    const poll = await widgetCall(t, 'GET', '/v1/widget/conversation/messages', session.token);
    assert.equal(poll.json().data.operator_typing, true);
    await typing(editor.headers, { typing: false });
    const after = await widgetCall(t, 'GET', '/v1/widget/conversation/messages', session.token);
    assert.equal(after.json().data.operator_typing, false);
    const other = await createWidgetAgent(t);
    const foreign = await initSession(t, other.agentId);
    const res404 = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${foreign.conversation_id}/typing`,
      headers: { ...editor.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ typing: true }),
    });
    expectError(res404, 404, 'not_found');
    assert.equal(
      (await t.database.db.selectFrom('admin_events').select('type').where('type', '=', 'typing').execute())
        .length,
      0,
    );
  });

  test('two instances on one PostgreSQL database: an event written through one reaches a stream on the other; a claim on one silences the bot on the other', {
    skip: TEST_ENGINE !== 'postgres' && 'needs TEST_DATABASE_URL',
  }, async () => {
    const url = String((t.database.pool.options as { connectionString?: string }).connectionString);
    const database = await openPostgresDatabase({ url, poolSize: 2, log: { info() {}, warn() {} } });
    const second = await createTestApp({ database });
    try {
      const secondBase = await listenOnce(second.app);
      const { tenant, agentId } = await createWidgetAgent(t);
      const s = await openStream(secondBase, tenant.auth);
      open.push(s);
      await s.waitFor((f) => f.event === 'stream.ready');
      const session = await initSession(t, agentId);
      await widgetCall(t, 'POST', '/v1/widget/request-human', session.token);
      const handoff = await s.waitFor((f) => f.event === 'conversation.handoff_requested');
      const claim = await second.app.inject({
        method: 'POST',
        url: `/api/v1/admin/conversations/${session.conversation_id}/claim`,
        headers: (await signedInMember(second, tenant, 'editor')).headers,
      });
      assert.equal(claim.statusCode, 200, claim.body);
      // The first instance sees the claim: its widget answer path keeps the bot silent.
      assert.equal(isBotSilenced(await conversationRow(t, session.conversation_id)), true);
      const poll = await widgetCall(t, 'GET', '/v1/widget/conversation/messages', session.token);
      assert.equal(poll.json().data.status, 'claimed');
      const firstStream = await openStream(base, tenant.auth, `?last_event_id=${handoff.id}`);
      open.push(firstStream);
      await firstStream.waitFor(
        (f) => f.event === 'conversation.updated' && (f.data as { status: string }).status === 'claimed',
      );
    } finally {
      await second.close();
      await database.close();
    }
  });
});
