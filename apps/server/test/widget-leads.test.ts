import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  ZAgent,
  ZLeadCapturedEvent,
  ZWebhookCreated,
} from '@service/contract';
import { z } from 'zod';
import { deliverWebhookJob } from '../src/jobs/deliver-webhook.js';
import { pushLeadJob } from '../src/jobs/push-lead.js';
import { createLogger } from '../src/logger.js';
import {
  connectSite,
  type FakeSite,
  startFakeSite,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/fake-site.js';
import { expectData, expectError, expectValidation } from './support/http.js';
import { jobsFor } from './support/sources.js';
import { createTestApp, injectJson, type Tenant, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, widgetCall } from './support/widget.js';

// POST /v1/widget/leads: capture and deduplication, validation, the feature flag, the
// lead.captured webhook (delivered to a loopback receiver) and the push into the agent's site.

const ZLead = z.object({ id: z.string(), created: z.boolean() });

describe('widget leads', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let site: FakeSite;
  before(async () => {
    receiver = await startWebhookReceiver();
    site = await startFakeSite({ secret: '' });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `${receiver.allowEntry},${site.allowEntry}` } });
  });
  after(async () => {
    await t.close();
    await receiver.close();
    await site.close();
  });

  const leadsOf = (agentId: string) =>
    t.database.db.selectFrom('leads').selectAll().where('agent_id', '=', agentId).orderBy('id').execute();
  const deliveriesOf = (leadId: string) =>
    t.database.db.selectFrom('webhook_deliveries').selectAll().where('subject_id', '=', leadId).execute();
  const context = () => ({
    db: t.database.db,
    clock: t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt: 1,
    safeUrlAllow: t.config.safeUrlAllow,
    appKey: t.config.appKey,
  });
  const registerWebhook = async (tenant: Tenant) => {
    const res = await injectJson(
      t.app,
      'POST',
      '/api/v1/admin/webhooks',
      { url: receiver.url, events: ['lead.captured'] },
      tenant.auth,
    );
    return expectData(res, 201, ZWebhookCreated);
  };

  test('a new email is a 201 created lead; the same email in another case or with spaces updates it', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const post = (body: unknown) => widgetCall(t, 'POST', '/v1/widget/leads', s.token, body);
    const first = expectData(await post({ email: 'Jane.Doe@Example.com', name: 'Jane' }), 201, ZLead);
    assert.equal(first.created, true);
    let rows = await leadsOf(agentId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.id, first.id);
    assert.equal(rows[0]?.email, 'Jane.Doe@Example.com');
    assert.equal(rows[0]?.email_normalized, 'jane.doe@example.com');
    assert.equal(rows[0]?.visitor_id, s.visitor_id);
    assert.equal(rows[0]?.conversation_id, s.conversation_id);
    assert.equal(rows[0]?.name, 'Jane');
    assert.equal(rows[0]?.phone, '');

    const cased = await post({ email: 'JANE.DOE@example.COM', name: 'Jane Doe', phone: '+49 (30) 123-45' });
    const repeat = expectData(cased, 201, ZLead);
    assert.deepEqual(repeat, { id: first.id, created: false });
    rows = await leadsOf(agentId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.email, 'Jane.Doe@Example.com', 'the first spelling is kept');
    assert.equal(rows[0]?.name, 'Jane Doe');
    assert.equal(rows[0]?.phone, '+49 (30) 123-45');

    // Empty name and phone change nothing.
    assert.deepEqual(expectData(await post({ email: 'jane.doe@example.com' }), 201, ZLead), {
      id: first.id,
      created: false,
    });
    assert.equal((await leadsOf(agentId))[0]?.name, 'Jane Doe');

    // Another visitor typing Jane's email rewrites nothing and pushes nothing.
    const stranger = await initSession(t, agentId);
    const hijack = await widgetCall(t, 'POST', '/v1/widget/leads', stranger.token, {
      email: 'jane.doe@example.com',
      name: 'Mallory',
      phone: '+1 555 0100',
    });
    assert.deepEqual(expectData(hijack, 201, ZLead), { id: first.id, created: false });
    const after = (await leadsOf(agentId))[0];
    assert.deepEqual(
      [after?.name, after?.phone, after?.visitor_id, after?.conversation_id],
      ['Jane Doe', '+49 (30) 123-45', s.visitor_id, s.conversation_id],
    );
  });

  test('an email with surrounding spaces is the same lead', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const post = (body: unknown) => widgetCall(t, 'POST', '/v1/widget/leads', s.token, body);
    const first = expectData(await post({ email: 'sam@example.com' }), 201, ZLead);
    const spaced = await post({ email: '  Sam@Example.com ', name: 'Sam' });
    assert.deepEqual(expectData(spaced, 201, ZLead), { id: first.id, created: false });
    const rows = await leadsOf(agentId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.name, 'Sam');
  });

  test('an invalid email or a phone with letters is a 422 and stores nothing', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const post = (body: unknown) => widgetCall(t, 'POST', '/v1/widget/leads', s.token, body);
    expectValidation(await post({ email: 'not-an-email' }), ['email']);
    expectValidation(await post({ email: 'a@b@example.com' }), ['email']);
    expectValidation(await post({}), ['email']);
    expectValidation(await post({ email: 'ok@example.com', phone: 'call me 555' }), ['phone']);
    expectValidation(await post({ email: 'ok@example.com', extra: 1 }), []);
    assert.deepEqual(await leadsOf(agentId), []);
  });

  test('404 when the agent has lead capture off', async () => {
    const { agentId, tenant } = await createWidgetAgent(t);
    const patched = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/agents/${agentId}`,
      { widget_features: { leads: false } },
      tenant.auth,
    );
    assert.equal(expectData(patched, 200, ZAgent).widget_features.leads, false);
    const s = await initSession(t, agentId);
    assert.equal(s.agent.features.leads, false);
    expectError(await widgetCall(t, 'POST', '/v1/widget/leads', s.token, { email: 'off@example.com' }), 404);
    assert.deepEqual(await leadsOf(agentId), []);
  });

  test('a registered webhook gets a signed lead.captured delivery, once per new lead', async () => {
    const { agentId, tenant } = await createWidgetAgent(t);
    const webhook = await registerWebhook(tenant);
    receiver.secret = webhook.secret;
    const s = await initSession(t, agentId);
    const lead = expectData(
      await widgetCall(t, 'POST', '/v1/widget/leads', s.token, { email: 'hook@example.com', name: 'Hook' }),
      201,
      ZLead,
    );
    const deliveries = await deliveriesOf(lead.id);
    assert.equal(deliveries.length, 1);
    const delivery = deliveries[0];
    assert.ok(delivery);
    assert.equal(delivery.webhook_id, webhook.id);
    assert.equal(delivery.event, 'lead.captured');
    assert.equal(delivery.status, 'pending');
    // A repeat with new details is no new capture: no second delivery.
    expectData(
      await widgetCall(t, 'POST', '/v1/widget/leads', s.token, { email: 'HOOK@example.com', name: 'Hooky' }),
      201,
      ZLead,
    );
    assert.equal((await deliveriesOf(lead.id)).length, 1);

    const before = receiver.deliveries.length;
    await deliverWebhookJob.handle({ deliveryId: delivery.id }, context());
    assert.equal(receiver.deliveries.length, before + 1);
    const received = receiver.deliveries.at(-1);
    assert.ok(received);
    assert.equal(received.signature, 'ok', 'signed with the webhook secret');
    assert.equal(received.headers[WEBHOOK_EVENT_HEADER], 'lead.captured');
    assert.equal(received.headers[WEBHOOK_DELIVERY_HEADER], delivery.id);
    const event = ZLeadCapturedEvent.parse(received.body);
    assert.equal(event.id, delivery.id);
    assert.equal(event.data.lead.id, lead.id);
    assert.equal(event.data.lead.email, 'hook@example.com');
    assert.equal(event.data.lead.agent_id, agentId);
    assert.equal(event.data.lead.conversation_id, s.conversation_id);
    const stored = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', delivery.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.status, 'delivered');
    assert.equal(stored.attempts, 1);
    assert.equal(stored.last_status_code, 200);
    assert.ok(stored.delivered_at instanceof Date);
  });

  test('another workspace’s webhook gets nothing', async () => {
    const other = await createWidgetAgent(t);
    await registerWebhook(other.tenant);
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const lead = expectData(
      await widgetCall(t, 'POST', '/v1/widget/leads', s.token, { email: 'solo@example.com' }),
      201,
      ZLead,
    );
    assert.deepEqual(await deliveriesOf(lead.id), []);
  });

  test('with a site, the lead is pushed signed to its /leads and site_user_id is stored', async () => {
    const connected = await connectSite(t, site);
    const patched = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/agents/${connected.agentId}`,
      { is_published: true, allowed_origins: ['https://shop.example.com'] },
      connected.tenant.auth,
    );
    expectData(patched, 200, ZAgent);
    const s = await initSession(t, connected.agentId);
    const lead = expectData(
      await widgetCall(t, 'POST', '/v1/widget/leads', s.token, {
        email: 'Buyer@Example.com',
        name: 'Buyer',
        phone: '555 0100',
      }),
      201,
      ZLead,
    );
    assert.equal(await jobsFor(t, 'push-lead', lead.id), 1, 'a push is queued for the new lead');
    const accepted = site.accepted.length;
    await pushLeadJob.handle({ leadId: lead.id }, context());
    assert.equal(site.accepted.length, accepted + 1, 'the site verified the signature and answered');
    const request = site.accepted.at(-1);
    assert.equal(request?.route, 'leads');
    assert.deepEqual(request?.body, {
      email: 'Buyer@Example.com',
      name: 'Buyer',
      phone: '555 0100',
      conversation_id: s.conversation_id,
      service_lead_id: lead.id,
    });
    const userId = site.users.get('buyer@example.com');
    assert.ok(userId !== undefined);
    const row = await t.database.db
      .selectFrom('leads')
      .selectAll()
      .where('id', '=', lead.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.site_user_id), userId);
    assert.ok(row.pushed_at instanceof Date);
    assert.equal(row.push_error, null);
  });

  test('without a site no push is queued', async () => {
    const { agentId } = await createWidgetAgent(t);
    const s = await initSession(t, agentId);
    const lead = expectData(
      await widgetCall(t, 'POST', '/v1/widget/leads', s.token, { email: 'nosite@example.com' }),
      201,
      ZLead,
    );
    assert.equal(await jobsFor(t, 'push-lead', lead.id), 0);
  });
});
