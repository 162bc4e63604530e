import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAdminEvent } from '@service/contract';
import { sql } from 'kysely';
import { newId } from '../src/security/ids.js';
import { eventRow, publishEvent } from '../src/services/events/admin-events.js';
import { failRun, recordRunProgress, startRun } from '../src/services/knowledge/source-run.js';
import { listenOnce, type OpenStream, openStream } from './support/admin-stream.js';
import { seedAgent, seedConversation } from './support/conversations.js';
import { expectError } from './support/http.js';
import { signedInMember } from './support/members.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { askWidget, createWidgetAgent, initSession, widgetCall } from './support/widget.js';

const STREAM = '/api/v1/admin/stream';

describe('admin event stream', () => {
  let t: TestApp;
  let base: string;
  let acme: Tenant;
  let globex: Tenant;
  let agentId: string;
  const open: OpenStream[] = [];
  const stream = async (headers: Record<string, string>, query = '') => {
    const s = await openStream(base, headers, query);
    open.push(s);
    return s;
  };
  const conversation = async () =>
    (await seedConversation(t, { workspaceId: acme.workspace.id, agentId, status: 'waiting' }))
      .conversationId;
  const storedEvents = (workspaceId: string) =>
    t.database.db.selectFrom('admin_events').selectAll().where('workspace_id', '=', workspaceId).execute();

  before(async () => {
    t = await createTestApp();
    base = await listenOnce(t.app);
    acme = await seedTenant(t, 'Acme Stream');
    globex = await seedTenant(t, 'Globex Stream');
    agentId = await seedAgent(t, acme.workspace.id);
  });
  after(async () => {
    for (const s of open) s.close();
    await t.close();
  });

  test('401 without credentials, 422 for a malformed Last-Event-ID, in the envelope', async () => {
    expectError(await t.app.inject({ method: 'GET', url: STREAM }), 401, 'unauthenticated');
    const bad = await t.app.inject({
      method: 'GET',
      url: STREAM,
      headers: { ...acme.auth, 'last-event-id': '12; drop table x' },
    });
    expectError(bad, 422, 'validation_failed');
    const badQuery = await t.app.inject({
      method: 'GET',
      url: `${STREAM}?last_event_id=-1`,
      headers: acme.auth,
    });
    expectError(badQuery, 422, 'validation_failed');
  });

  test('stream.ready first, then a claim as conversation.updated with an id; every frame fits the contract', async () => {
    const s = await stream(acme.auth);
    assert.equal(s.status, 200);
    const ready = await s.waitFor((f) => f.event === 'stream.ready');
    assert.equal(s.frames[0], ready);
    assert.equal((ready.data as { operators_online: number }).operators_online, 0);
    const id = await conversation();
    const claim = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${id}/claim`,
      headers: acme.auth,
    });
    assert.equal(claim.statusCode, 200, claim.body);
    const updated = await s.waitFor(
      (f) =>
        f.event === 'conversation.updated' && (f.data as { conversation_id: string }).conversation_id === id,
    );
    const event = ZAdminEvent.parse(updated.data);
    assert.equal(event.type, 'conversation.updated');
    assert.ok(event.type === 'conversation.updated' && event.status === 'claimed');
    assert.ok(updated.id && /^\d+$/.test(updated.id));
    assert.equal(event.id, updated.id);
    for (const frame of s.frames) ZAdminEvent.parse(frame.data);
  });

  test("tenant isolation: another workspace's stream never sees the event", async () => {
    const other = await stream(globex.auth);
    const mine = await stream(acme.auth);
    await other.waitFor((f) => f.event === 'stream.ready');
    await mine.waitFor((f) => f.event === 'stream.ready');
    const id = await conversation();
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${id}/claim`,
      headers: acme.auth,
    });
    await mine.waitFor((f) => (f.data as { conversation_id?: string }).conversation_id === id);
    const seen = await other.settle(300);
    assert.deepEqual(
      seen.map((f) => f.event),
      ['stream.ready'],
    );
  });

  test('resume with Last-Event-ID and with ?last_event_id= replays what came after, in order', async () => {
    const first = await conversation();
    const s = await stream(acme.auth);
    await s.waitFor((f) => f.event === 'stream.ready');
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${first}/claim`,
      headers: acme.auth,
    });
    const mark = await s.waitFor((f) => (f.data as { conversation_id?: string }).conversation_id === first);
    s.close();
    const second = await conversation();
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${second}/claim`,
      headers: acme.auth,
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${second}/release`,
      headers: acme.auth,
    });
    for (const resume of [
      await stream({ ...acme.auth, 'last-event-id': String(mark.id) }),
      await stream(acme.auth, `?last_event_id=${mark.id}`),
    ]) {
      await resume.waitFor(
        (f) => f.event === 'conversation.updated' && (f.data as { status: string }).status === 'open',
      );
      const replayed = resume.frames.filter((f) => f.id !== undefined && BigInt(f.id) > BigInt(mark.id ?? 0));
      // Before them, only late-commit candidates may come again (stored just before the mark), never the mark.
      assert.equal(resume.frames.filter((f) => f.id === mark.id).length, 0);
      assert.deepEqual(
        replayed.map((f) => [
          (f.data as { conversation_id: string }).conversation_id,
          (f.data as { status: string }).status,
        ]),
        [
          [second, 'claimed'],
          [second, 'open'],
        ],
      );
      assert.equal(resume.frames[0]?.event, 'stream.ready');
    }
  });

  test('a lower id committed after a higher one still reaches the stream, live and on resume', async () => {
    // Ids come from a sequence at insert: a transaction that inserted first may commit last.
    const reserve = async () =>
      String(
        (await sql<{ id: string }>`select nextval('admin_events_id_seq')::text as id`.execute(t.database.db))
          .rows[0]?.id,
      );
    const lateLive = await reserve();
    const lateResumed = await reserve();
    const commitLate = async (id: string, conversationId: string) => {
      const row = eventRow(acme.workspace.id, {
        type: 'conversation.updated',
        at: new Date().toISOString(),
        conversation_id: conversationId,
        agent_id: agentId,
        status: 'closed',
        claimed_by_user_id: null,
      });
      await sql`insert into admin_events (id, workspace_id, type, payload, created_at)
        values (${id}::bigint, ${row.workspace_id}, ${row.type}, ${row.payload}::jsonb, ${row.created_at}::timestamptz)`.execute(
        t.database.db,
      );
    };
    const s = await stream(acme.auth);
    await s.waitFor((f) => f.event === 'stream.ready');
    const claimed = await conversation();
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${claimed}/claim`,
      headers: acme.auth,
    });
    const high = await s.waitFor((f) => (f.data as { conversation_id?: string }).conversation_id === claimed);
    assert.ok(BigInt(high.id ?? 0) > BigInt(lateResumed));

    await commitLate(lateLive, 'late-live');
    await s.waitFor((f) => f.id === lateLive);
    s.close();
    await commitLate(lateResumed, 'late-resumed');
    const resumed = await stream(acme.auth, `?last_event_id=${high.id}`);
    await resumed.waitFor((f) => f.id === lateResumed);
    assert.equal(
      resumed.frames.filter((f) => f.id === high.id).length,
      0,
      'the id resumed from is not sent again',
    );
    assert.equal(resumed.frames.filter((f) => f.id === lateResumed).length, 1);
  });

  test('an id older than what is kept gets stream.reset, not a partial replay', async () => {
    const id = await conversation();
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${id}/claim`,
      headers: acme.auth,
    });
    const [oldest] = await storedEvents(acme.workspace.id);
    assert.ok(oldest);
    // What the maintenance job does after 24 h: the oldest events are pruned.
    await t.database.db
      .deleteFrom('admin_events')
      .where('id', '<=', oldest.id as never)
      .execute();
    const s = await stream({ ...acme.auth, 'last-event-id': String(BigInt(oldest.id) - 1n) });
    await s.waitFor((f) => f.event === 'stream.reset');
    assert.deepEqual(
      s.frames.slice(0, 2).map((f) => f.event),
      ['stream.ready', 'stream.reset'],
    );
  });

  test('a rolled-back change sends and stores nothing', async () => {
    const s = await stream(acme.auth);
    await s.waitFor((f) => f.event === 'stream.ready');
    const before = (await storedEvents(acme.workspace.id)).length;
    await assert.rejects(
      t.database.db.transaction().execute(async (trx) => {
        await publishEvent(trx, acme.workspace.id, {
          type: 'conversation.created',
          at: new Date(0).toISOString(),
          conversation_id: 'rolled-back',
          agent_id: agentId,
        });
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    const frames = await s.settle(300);
    assert.deepEqual(
      frames.map((f) => f.event),
      ['stream.ready'],
    );
    assert.equal((await storedEvents(acme.workspace.id)).length, before);
  });

  test('widget: a new conversation, the visitor typing (not stored) and request-human reach the stream', async () => {
    const { tenant, agentId: widgetAgent } = await createWidgetAgent(t);
    const s = await stream(tenant.auth);
    await s.waitFor((f) => f.event === 'stream.ready');
    const session = await initSession(t, widgetAgent);
    const typing = await widgetCall(t, 'POST', '/v1/widget/typing', session.token, { typing: true });
    assert.equal(typing.statusCode, 202, typing.body);
    const frame = await s.waitFor((f) => f.event === 'typing');
    assert.equal(frame.id, undefined);
    assert.deepEqual(
      { ...(frame.data as object), at: undefined },
      {
        type: 'typing',
        id: null,
        at: undefined,
        conversation_id: session.conversation_id,
        agent_id: widgetAgent,
        who: 'visitor',
        user_id: null,
        typing: true,
      },
    );
    const human = await widgetCall(t, 'POST', '/v1/widget/request-human', session.token, {});
    assert.ok(human.statusCode < 300, human.body);
    await s.waitFor((f) => f.event === 'conversation.handoff_requested');
    await s.waitFor((f) => f.event === 'conversation.created');
    const stored = await storedEvents(tenant.workspace.id);
    assert.ok(stored.every((row) => row.type !== 'typing'));
    assert.deepEqual(stored.map((row) => row.type).sort(), [
      'conversation.created',
      'conversation.handoff_requested',
      'conversation.updated',
    ]);
  });

  test('a visitor message, the stored answer and a lead each reach the stream as their event', async () => {
    const { tenant, agentId: widgetAgent } = await createWidgetAgent(t);
    const s = await stream(tenant.auth);
    await s.waitFor((f) => f.event === 'stream.ready');
    const session = await initSession(t, widgetAgent);
    const answer = await askWidget(t, session.token, 'Where is my parcel?');
    const visitor = await s.waitFor(
      (f) => f.event === 'message.created' && (f.data as { role: string }).role === 'visitor',
    );
    assert.equal((visitor.data as { preview: string }).preview, 'Where is my parcel?');
    const bot = await s.waitFor(
      (f) => f.event === 'message.created' && (f.data as { role: string }).role === 'assistant',
    );
    assert.equal((bot.data as { message_id: string }).message_id, answer.message_id);
    const lead = await widgetCall(t, 'POST', '/v1/widget/leads', session.token, { email: 'ada@example.com' });
    assert.equal(lead.statusCode, 201, lead.body);
    const frame = await s.waitFor((f) => f.event === 'lead.created');
    assert.equal((frame.data as { conversation_id: string }).conversation_id, session.conversation_id);
  });

  test('presence: operators online counts signed-in members who may reply and hold a stream', async () => {
    const tenant = await seedTenant(t, 'Presence');
    const editor = await signedInMember(t, tenant, 'editor');
    const viewer = await signedInMember(t, tenant, 'viewer');
    const viewerStream = await stream(viewer.headers);
    await viewerStream.waitFor((f) => f.event === 'stream.ready');
    const tokenStream = await stream(tenant.auth);
    const first = await tokenStream.waitFor((f) => f.event === 'stream.ready');
    assert.equal((first.data as { operators_online: number }).operators_online, 0);
    const editorStream = await stream(editor.headers);
    await editorStream.waitFor((f) => f.event === 'stream.ready');
    const again = await stream(tenant.auth);
    const ready = await again.waitFor((f) => f.event === 'stream.ready');
    assert.equal((ready.data as { operators_online: number }).operators_online, 1);
    editorStream.close();
    await poll(async () => {
      const later = await stream(tenant.auth);
      const r = await later.waitFor((f) => f.event === 'stream.ready');
      later.close();
      return (r.data as { operators_online: number }).operators_online === 0;
    });
  });

  test('source.progress: every status change, run counts at most once a second', async () => {
    const sourceId = newId();
    await t.database.db
      .insertInto('sources')
      .values({
        id: sourceId,
        workspace_id: acme.workspace.id,
        agent_id: agentId,
        type: 'website',
        config: '{}',
      } as never)
      .execute();
    const s = await stream(acme.auth);
    await s.waitFor((f) => f.event === 'stream.ready');
    const at = new Date('2030-01-01T00:00:00Z');
    const clock = { now: () => at };
    const counts = { found: 3, fetched: 1, failed: 0, skipped: 0 };
    await startRun(t.database.db, clock, sourceId);
    await recordRunProgress(t.database.db, clock, sourceId, counts, []);
    await recordRunProgress(t.database.db, clock, sourceId, counts, []);
    await failRun(t.database.db, clock, sourceId, 'the site is down');
    await s.waitFor(
      (f) => f.event === 'source.progress' && (f.data as { status: string }).status === 'failed',
    );
    const progress = s.frames
      .filter((f) => f.event === 'source.progress')
      .map((f) => f.data as { status: string });
    assert.deepEqual(
      progress.map((p) => p.status),
      ['fetching', 'failed'],
    );
  });

  test('at most 8 streams per credential; the next is a 429 in the envelope', async () => {
    const tenant = await seedTenant(t, 'Many streams');
    const streams = [];
    for (let i = 0; i < 8; i += 1) streams.push(await stream(tenant.auth));
    for (const s of streams) await s.waitFor((f) => f.event === 'stream.ready');
    const ninth = await stream(tenant.auth);
    assert.equal(ninth.status, 429);
    assert.equal((ninth.frames[0]?.data as { code?: string } | undefined)?.code, 'rate_limited');
    streams[0]?.close();
    await poll(async () => {
      const s = await stream(tenant.auth);
      s.close();
      return s.status === 200;
    });
  });
});

/** Retries `check` until it holds (a stream's end reaches the server asynchronously). */
async function poll(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
