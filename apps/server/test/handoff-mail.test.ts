import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { z } from 'zod';
import { HANDOFF_MAIL_KIND, handoffMailJob } from '../src/jobs/handoff-mail.js';
import { createLogger } from '../src/logger.js';
import type { JobContext } from '../src/queue/job-queue.js';
import { newId } from '../src/security/ids.js';
import { createSecretKeyring } from '../src/security/secret-keyring.js';
import { MAIL_BODY_PURPOSE } from '../src/services/mail/queue-mail.js';
import { addMember } from './support/members.js';
import { createTestApp, type Tenant, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, pollMessages, widgetCall } from './support/widget.js';

const BASE = 'https://chat.example.com';
const ZJobData = z.object({ conversationId: z.string(), requestedAt: z.string(), consoleUrl: z.string() });

describe('handoff mail: operators are mailed when nobody claims a handoff in time', () => {
  let t: TestApp;
  let tenant: Tenant;
  let agentId: string;
  let ownerEmail: string;
  const replying: string[] = [];
  let viewerEmail: string;

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE, HANDOFF_MAIL_AFTER_SECONDS: '90' } });
    ({ tenant, agentId } = await createWidgetAgent(t));
    const owner = await t.database.db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select('u.email')
      .where('m.workspace_id', '=', tenant.workspace.id)
      .executeTakeFirstOrThrow();
    ownerEmail = owner.email;
    for (const role of ['admin', 'editor'] as const) replying.push((await addMember(t, tenant, role)).email);
    viewerEmail = (await addMember(t, tenant, 'viewer')).email;
  });
  after(async () => {
    await t.close();
  });

  const context = (): JobContext => ({
    db: t.database.db,
    clock: t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt: 1,
    appKey: t.config.appKey,
    queue: t.queue,
  });
  /** A visitor with one message asks for a human; returns the conversation and its queued mail job. */
  const handoff = async (message: string) => {
    const session = await initSession(t, agentId);
    assert.equal((await pollMessages(t, session.token)).statusCode, 200);
    await t.database.db
      .insertInto('messages')
      .values({
        id: newId(),
        workspace_id: tenant.workspace.id,
        conversation_id: session.conversation_id,
        role: 'visitor',
        content: message,
        citations: '[]',
      })
      .execute();
    const res = await widgetCall(t, 'POST', '/v1/widget/request-human', session.token);
    assert.equal(res.statusCode, 200, res.body);
    return { conversationId: session.conversation_id, token: session.token };
  };
  const jobsOf = async (conversationId: string) => {
    const rows = await sql<{ data: unknown; start_after: Date; created_on: Date; singleton_key: string }>`
      select data, start_after, created_on, singleton_key from pgboss.job
      where name = 'handoff-mail' and data->>'conversationId' = ${conversationId}`.execute(t.database.db);
    return rows.rows;
  };
  const mailsTo = async (since: string) => {
    const rows = await t.database.db
      .selectFrom('mail_messages')
      .select(['id', 'to_address', 'subject', 'body_sealed'])
      .where('kind', '=', HANDOFF_MAIL_KIND)
      .where('id', '>', since)
      .orderBy('to_address')
      .execute();
    return rows;
  };
  const runJob = async (conversationId: string) => {
    const [job] = await jobsOf(conversationId);
    assert.ok(job, 'a handoff-mail job is queued');
    await handoffMailJob.handle(ZJobData.parse(job.data), context());
  };

  test('still waiting after the delay: every member who may reply gets one mail, escaped, with the link', async () => {
    const since = newId();
    const hostile = '<script>alert("x")</script> & <b>help</b>';
    const { conversationId, token } = await handoff(hostile);
    const jobs = await jobsOf(conversationId);
    assert.equal(jobs.length, 1);
    const job = jobs[0];
    assert.ok(job);
    const delay = (new Date(job.start_after).getTime() - new Date(job.created_on).getTime()) / 1000;
    assert.ok(delay >= 89 && delay <= 91, `due about 90 s later, got ${delay}`);
    const data = ZJobData.parse(job.data);
    assert.equal(data.consoleUrl, `${BASE}/admin/inbox/${conversationId}`);
    // A second request while waiting queues nothing more.
    await widgetCall(t, 'POST', '/v1/widget/request-human', token);
    assert.equal((await jobsOf(conversationId)).length, 1);

    await handoffMailJob.handle(data, context());
    const mails = await mailsTo(since);
    assert.deepEqual(mails.map((m) => m.to_address).sort(), [ownerEmail, ...replying].sort());
    assert.ok(!mails.some((m) => m.to_address === viewerEmail), 'a viewer may not reply: no mail');
    const keys = createSecretKeyring(t.config.appKey);
    for (const mail of mails) {
      assert.ok(mail.body_sealed);
      const body = z
        .object({ text: z.string(), html: z.string() })
        .parse(JSON.parse(keys.open(mail.body_sealed, MAIL_BODY_PURPOSE, mail.id)));
      assert.ok(body.text.includes(`> ${hostile}`), body.text);
      assert.ok(body.text.includes(data.consoleUrl));
      assert.ok(!body.html.includes('<script>'), 'visitor text is escaped in HTML');
      assert.ok(
        body.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;help&lt;/b&gt;'),
      );
      assert.ok(body.html.includes(`href="${data.consoleUrl}"`));
    }

    // Run again (a retry, a duplicate): nobody is mailed twice.
    await handoffMailJob.handle(data, context());
    assert.equal((await mailsTo(since)).length, mails.length);
  });

  test('claimed or closed meanwhile: no mail', async () => {
    const since = newId();
    const claimed = await handoff('anyone?');
    const claim = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${claimed.conversationId}/claim`,
      headers: tenant.auth,
    });
    assert.equal(claim.statusCode, 200, claim.body);
    await runJob(claimed.conversationId);

    const closed = await handoff('hello?');
    const close = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${closed.conversationId}/close`,
      headers: tenant.auth,
    });
    assert.ok(close.statusCode < 300, close.body);
    await runJob(closed.conversationId);
    assert.deepEqual(await mailsTo(since), []);
  });

  test('a stale job of an earlier request does not mail for a later one', async () => {
    const since = newId();
    const first = await handoff('first');
    const [job] = await jobsOf(first.conversationId);
    assert.ok(job);
    const stale = ZJobData.parse(job.data);
    await handoffMailJob.handle({ ...stale, requestedAt: new Date(0).toISOString() }, context());
    await handoffMailJob.handle({ ...stale, conversationId: newId() }, context());
    assert.deepEqual(await mailsTo(since), []);
  });
});
