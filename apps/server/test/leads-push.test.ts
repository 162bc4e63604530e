import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pushLeadJob } from '../src/jobs/push-lead.js';
import { createLogger } from '../src/logger.js';
import type { JobContext, JobQueue } from '../src/queue/job-queue.js';
import { PUSH_LEAD_RETRY_LIMIT } from '../src/queue/job-specs.js';
import { captureLead } from '../src/services/conversations/leads.js';
import {
  type ConnectedSite,
  connectSite,
  type FakeSite,
  seedVisitor,
  startFakeSite,
} from './support/fake-site.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('push-lead: leads reach the site through its signed leads route', () => {
  let fake: FakeSite;
  let t: TestApp;
  let queue: JobQueue;
  let shop: ConnectedSite;
  let counter = 0;

  before(async () => {
    fake = await startFakeSite({ secret: '' });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: fake.allowEntry } });
    queue = t.queue;
    shop = await connectSite(t, fake);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  /** The context the worker would give the handler (SAFE_URL_ALLOW from config unless told). */
  const context = (attempt = 1, safeUrlAllow = t.config.safeUrlAllow): JobContext => ({
    db: t.database.db,
    clock: t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt,
    safeUrlAllow,
    queue,
    appKey: t.config.appKey,
  });
  const newLead = async (name = 'Ada') => {
    counter += 1;
    const visitor = await seedVisitor(t, shop);
    const lead = await captureLead({
      db: t.database.db,
      clock: t.clock,
      queue,
      workspaceId: shop.tenant.workspace.id,
      agentId: shop.agentId,
      ...visitor,
      input: { email: `Lead${counter}@Example.com`, name, phone: '+44 20 7946 0000' },
    });
    return { ...lead, ...visitor, email: `Lead${counter}@Example.com` };
  };
  const leadRow = (id: string) =>
    t.database.db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('success stores site_user_id and pushed_at; a second run leaves the same state', async () => {
    const lead = await newLead();
    await pushLeadJob.handle({ leadId: lead.id }, context());
    const row = await leadRow(lead.id);
    const userId = fake.users.get(lead.email.toLowerCase());
    assert.ok(userId);
    assert.equal(Number(row.site_user_id), userId);
    assert.ok(row.pushed_at);
    assert.equal(row.push_error, null);
    const sent = fake.accepted.at(-1);
    assert.equal(sent?.route, 'leads');
    assert.deepEqual(sent?.body, {
      email: lead.email,
      name: 'Ada',
      phone: '+44 20 7946 0000',
      conversation_id: lead.conversationId,
      service_lead_id: lead.id,
    });

    await pushLeadJob.handle({ leadId: lead.id }, context());
    const again = await leadRow(lead.id);
    assert.equal(Number(again.site_user_id), userId);
    assert.equal(again.push_error, null);
    assert.deepEqual(fake.accepted.at(-1)?.body, sent?.body);
  });

  test('a 4xx plugin error is final: stored, no retry', async () => {
    const lead = await newLead();
    fake.canned.set('leads', {
      status: 400,
      body: JSON.stringify({ error: { code: 'rest_invalid_param', message: 'Invalid email.' } }),
    });
    try {
      await pushLeadJob.handle({ leadId: lead.id }, context());
    } finally {
      fake.canned.delete('leads');
    }
    const row = await leadRow(lead.id);
    assert.equal(row.push_error, 'plugin_error 400 rest_invalid_param: Invalid email.');
    assert.equal(row.site_user_id, null);
    assert.equal(row.pushed_at, null);
  });

  test('a 5xx is retried until the last attempt; a later success clears push_error', async () => {
    const lead = await newLead();
    fake.canned.set('leads', { status: 503, body: '<html>busy</html>' });
    try {
      await assert.rejects(pushLeadJob.handle({ leadId: lead.id }, context(1)), /not pushed/);
      await assert.rejects(
        pushLeadJob.handle({ leadId: lead.id }, context(PUSH_LEAD_RETRY_LIMIT)),
        /not pushed/,
      );
      // attempt = retryLimit + 1 is the last one the queue runs: it records and gives up.
      await pushLeadJob.handle({ leadId: lead.id }, context(PUSH_LEAD_RETRY_LIMIT + 1));
    } finally {
      fake.canned.delete('leads');
    }
    assert.equal(
      (await leadRow(lead.id)).push_error,
      'bad_response 503: the site answered HTTP 503 to leads',
    );
    await pushLeadJob.handle({ leadId: lead.id }, context(2));
    const row = await leadRow(lead.id);
    assert.equal(row.push_error, null);
    assert.ok(row.site_user_id);
  });

  test('a connection the site drops without answering is retried', async () => {
    const lead = await newLead();
    fake.hang.add('leads');
    try {
      const server = fake.received();
      const pending = pushLeadJob.handle({ leadId: lead.id }, context(1));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(fake.received(), server + 1);
      fake.hang.delete('leads');
      fake.dropConnections();
      await assert.rejects(pending, /not pushed/);
    } finally {
      fake.hang.delete('leads');
    }
    assert.match((await leadRow(lead.id)).push_error ?? '', /^failed: /);
  });

  test('a site the guard refuses is final, with the verbatim reason; nothing is sent', async () => {
    const lead = await newLead();
    const received = fake.received();
    await pushLeadJob.handle({ leadId: lead.id }, context(1, []));
    assert.match((await leadRow(lead.id)).push_error ?? '', /^refused: 127\.0\.0\.1 is /);
    assert.equal(fake.received(), received);
  });

  test('an erased lead is skipped', async () => {
    const lead = await newLead();
    await t.database.db.deleteFrom('leads').where('id', '=', lead.id).execute();
    const received = fake.received();
    await pushLeadJob.handle({ leadId: lead.id }, context());
    assert.equal(fake.received(), received);
  });
});
