import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZHandoffRequestedEvent, ZWebhook, ZWebhookCreated, ZWebhookDelivery } from '@service/contract';
import { sql } from 'kysely';
import { z } from 'zod';
import { deliverWebhookJob } from '../src/jobs/deliver-webhook.js';
import { createLogger } from '../src/logger.js';
import type { JobContext } from '../src/queue/job-queue.js';
import { newId } from '../src/security/ids.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/fake-site.js';
import { expectData, expectError } from './support/http.js';
import { createTestApp, injectJson, type Tenant, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, pollMessages, widgetCall } from './support/widget.js';

const HOOKS = '/api/v1/admin/webhooks';
const BASE = 'https://chat.example.com';
const ZSlackBody = z.strictObject({
  text: z.string(),
  blocks: z.array(
    z.object({
      type: z.literal('section'),
      text: z.object({ type: z.literal('mrkdwn'), text: z.string() }),
      accessory: z.object({ type: z.literal('button'), url: z.string() }).optional(),
    }),
  ),
});

describe('handoff webhook: conversation.handoff_requested, json and slack formats', () => {
  let receiver: WebhookReceiver;
  let t: TestApp;
  let tenant: Tenant;
  let agentId: string;
  let jsonHook: string;
  let slackHook: string;
  let secret: string;

  before(async () => {
    receiver = await startWebhookReceiver('/hooks/handoff');
    t = await createTestApp({
      env: { SAFE_URL_ALLOW: receiver.allowEntry, PUBLIC_BASE_URL: BASE, HANDOFF_MAIL_AFTER_SECONDS: '0' },
    });
    ({ tenant, agentId } = await createWidgetAgent(t));
    // One webhook of each format; both get the same signing check (the receiver's one secret
    // is switched per delivery below).
    const json = expectData(
      await injectJson(
        t.app,
        'POST',
        HOOKS,
        { url: receiver.url, events: ['conversation.handoff_requested'] },
        tenant.auth,
      ),
      201,
      ZWebhookCreated,
    );
    assert.equal(json.format, 'json');
    jsonHook = json.id;
    secret = json.secret;
    const slack = expectData(
      await injectJson(
        t.app,
        'POST',
        HOOKS,
        { url: receiver.url, events: ['conversation.handoff_requested', 'lead.captured'], format: 'slack' },
        tenant.auth,
      ),
      201,
      ZWebhookCreated,
    );
    assert.equal(slack.format, 'slack');
    slackHook = slack.id;
    receiver.secret = secret;
    (receiver as { slackSecret?: string }).slackSecret = slack.secret;
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const context = (): JobContext => ({
    db: t.database.db,
    clock: t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt: 1,
    safeUrlAllow: t.config.safeUrlAllow,
    appKey: t.config.appKey,
    queue: t.queue,
  });
  /** A visitor with one message asks for a human; returns the conversation and its deliveries. */
  const handoff = async (message: string) => {
    const session = await initSession(t, agentId, { page_url: 'https://shop.example.com/pricing' });
    // The conversation is stored at the token's first use.
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
    const rows = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subject_id', '=', session.conversation_id)
      .orderBy('webhook_id')
      .execute();
    return { conversationId: session.conversation_id, token: session.token, rows };
  };
  const deliver = async (deliveryId: string, key: string) => {
    receiver.secret = key;
    const before = receiver.deliveries.length;
    await deliverWebhookJob.handle({ deliveryId }, context());
    const got = receiver.deliveries[before];
    assert.ok(got, 'the receiver got the delivery');
    return got;
  };

  test('json: a signed delivery with the conversation, the last message and the console link', async () => {
    const { conversationId, token, rows } = await handoff('Where is my order #42?');
    assert.deepEqual(rows.map((row) => row.webhook_id).sort(), [jsonHook, slackHook].sort());
    const row = rows.find((r) => r.webhook_id === jsonHook);
    assert.ok(row);
    assert.equal(row.event, 'conversation.handoff_requested');
    const got = await deliver(row.id, secret);
    assert.equal(got.signature, 'ok');
    assert.equal(got.headers['x-service-event'], 'conversation.handoff_requested');
    assert.equal(got.headers['x-service-delivery'], row.id);
    const event = ZHandoffRequestedEvent.parse(got.body);
    assert.equal(event.id, row.id);
    assert.deepEqual(
      { ...event.data, requested_at: undefined },
      {
        conversation_id: conversationId,
        agent_id: agentId,
        agent_name: event.data.agent_name,
        last_visitor_message: 'Where is my order #42?',
        page_url: 'https://shop.example.com/pricing',
        requested_at: undefined,
        operators_online: 0,
        console_url: `${BASE}/admin/inbox/${conversationId}`,
      },
    );
    assert.ok(event.data.agent_name.length > 0);
    const conversation = await t.database.db
      .selectFrom('conversations')
      .select('human_requested_at')
      .where('id', '=', conversationId)
      .executeTakeFirstOrThrow();
    assert.equal(event.data.requested_at, conversation.human_requested_at?.toISOString());
    const stored = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.status, 'delivered');

    // HANDOFF_MAIL_AFTER_SECONDS=0: no delayed mail is queued.
    const mailJobs = await sql<{ n: string }>`select count(*) as n from pgboss.job
      where name = 'handoff-mail'`.execute(t.database.db);
    assert.equal(Number(mailJobs.rows[0]?.n), 0);

    // Asking again while waiting fires nothing more.
    await widgetCall(t, 'POST', '/v1/widget/request-human', token);
    const again = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subject_id', '=', conversationId)
      .execute();
    assert.equal(again.length, 2);
  });

  test('slack: {text, blocks} with a button to the console; visitor text escaped', async () => {
    const hostile = '<!channel> & <https://evil.example|click> *bold*\n> quoted';
    const { conversationId, rows } = await handoff(hostile);
    const row = rows.find((r) => r.webhook_id === slackHook);
    assert.ok(row);
    const got = await deliver(row.id, (receiver as { slackSecret?: string }).slackSecret ?? '');
    assert.equal(got.signature, 'ok', 'still signed with the same header');
    const body = ZSlackBody.parse(got.body);
    const section = body.blocks[0];
    assert.ok(section);
    assert.equal(section.accessory?.url, `${BASE}/admin/inbox/${conversationId}`);
    const text = section.text.text;
    assert.ok(text.includes('&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;'), text);
    assert.ok(!text.includes('<!channel>'));
    assert.ok(!body.text.includes('<!channel>') && !/<https:\/\/evil/.test(JSON.stringify(body)));
    // Each line of the visitor's message is quoted, and their own `>` is escaped.
    assert.ok(text.includes('\n>&gt; quoted'), text);
    assert.ok(body.text.includes(`${BASE}/admin/inbox/${conversationId}`));

    // The delivery log shows the body this webhook sends (the Slack one).
    const log = await t.app.inject({
      method: 'GET',
      url: `${HOOKS}/${slackHook}/deliveries`,
      headers: tenant.auth,
    });
    assert.equal(log.statusCode, 200, log.body);
    const listed = z.array(ZWebhookDelivery).parse(log.json().data);
    const entry = listed.find((d) => d.id === row.id);
    assert.ok(entry);
    assert.equal(entry.request_body, got.raw);
  });

  test('format: PATCH changes it (audited); an unknown format is 422 and changes nothing', async () => {
    const patch = (body: unknown) => injectJson(t.app, 'PATCH', `${HOOKS}/${jsonHook}`, body, tenant.auth);
    const before = await t.database.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', jsonHook)
      .executeTakeFirstOrThrow();
    for (const bad of [
      { format: 'xml' },
      { format: 'SLACK' },
      { format: null },
      {},
      { format: 'slack', url: 'x' },
    ]) {
      expectError(await patch(bad), 422, 'validation_failed');
    }
    expectError(
      await injectJson(
        t.app,
        'POST',
        HOOKS,
        { url: receiver.url, events: ['lead.captured'], format: 'teams' },
        tenant.auth,
      ),
      422,
      'validation_failed',
    );
    const unchanged = await t.database.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', jsonHook)
      .executeTakeFirstOrThrow();
    assert.deepEqual(unchanged, before);
    const count = await t.database.db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', tenant.workspace.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 2);

    const changed = expectData(await patch({ format: 'slack' }), 200, ZWebhook);
    assert.deepEqual([changed.format, changed.is_active], ['slack', true]);
    const both = expectData(await patch({ format: 'json', is_active: false }), 200, ZWebhook);
    assert.deepEqual([both.format, both.is_active], ['json', false]);
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .select(['action', 'metadata'])
      .where('target_id', '=', jsonHook)
      .where('action', '=', 'webhook.format_changed')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audit.map((a) => a.metadata),
      [
        { url: receiver.url, from: 'json', to: 'slack' },
        { url: receiver.url, from: 'slack', to: 'json' },
      ],
    );
    const listed = await t.app.inject({ method: 'GET', url: HOOKS, headers: tenant.auth });
    const hooks = z.array(ZWebhook).parse(listed.json().data);
    assert.deepEqual(
      hooks.map((h) => [h.id, h.format]).sort(),
      [
        [jsonHook, 'json'],
        [slackHook, 'slack'],
      ].sort(),
    );
  });
});
