import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWebhookCreated } from '@service/contract';
import { deliverWebhookJob } from '../src/jobs/deliver-webhook.js';
import { pushLeadJob } from '../src/jobs/push-lead.js';
import { createLogger } from '../src/logger.js';
import type { JobContext, JobQueue } from '../src/queue/job-queue.js';
import { captureLead } from '../src/services/conversations/leads.js';
import { seedVisitor, startWebhookReceiver, type WebhookReceiver } from './support/fake-site.js';
import { expectData } from './support/http.js';
import { createSite, type Site } from './support/site-sync.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';

/**
 * A webhook delivery or a lead push whose last attempt ran out of time or was interrupted never
 * reached the end of its handler: its give-up records why, once, and leaves finished ones alone.
 */
describe('webhook deliveries and lead pushes that fail for good say why', () => {
  let receiver: WebhookReceiver;
  let t: TestApp;
  let queue: JobQueue;
  let shop: Site;
  let counter = 0;

  before(async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp({ env: { SAFE_URL_ALLOW: receiver.allowEntry } });
    assert.ok(t.queue);
    queue = t.queue;
    shop = await createSite(t);
    const hook = await injectJson(
      t.app,
      'POST',
      '/api/v1/admin/webhooks',
      { url: receiver.url, events: ['lead.captured'] },
      shop.tenant.auth,
    );
    expectData(hook, 201, ZWebhookCreated);
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
    attempt: 7,
    queue,
    appKey: t.config.appKey,
  });
  /** Captures a lead; returns it with its one webhook delivery's id. */
  const newLead = async () => {
    counter += 1;
    const lead = await captureLead({
      db: t.database.db,
      clock: t.clock,
      queue,
      workspaceId: shop.tenant.workspace.id,
      agentId: shop.agentId,
      ...(await seedVisitor(t, shop)),
      input: { email: `gone${counter}@example.com`, name: 'Ada' },
    });
    const delivery = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subject_id', '=', lead.id)
      .executeTakeFirstOrThrow();
    return { leadId: lead.id, deliveryId: delivery.id };
  };
  const delivery = (id: string) =>
    t.database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const lead = (id: string) =>
    t.database.db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('a pending delivery is failed with the reason; a second give-up and a delivered one change nothing', async () => {
    const { deliveryId } = await newLead();
    const giveUp = deliverWebhookJob.giveUp;
    assert.ok(giveUp);
    assert.equal(await giveUp({ deliveryId }, context(), 'ran out of time'), true);
    const failed = await delivery(deliveryId);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.last_error, 'the delivery ran out of time');
    assert.equal(await giveUp({ deliveryId }, context(), 'failed on every attempt'), false);
    assert.equal((await delivery(deliveryId)).last_error, 'the delivery ran out of time');

    const other = await newLead();
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ status: 'delivered', last_error: null })
      .where('id', '=', other.deliveryId)
      .execute();
    assert.equal(await giveUp({ deliveryId: other.deliveryId }, context(), 'ran out of time'), false);
    assert.equal((await delivery(other.deliveryId)).status, 'delivered');
  });

  test('a lead not pushed gets the reason in push_error; a pushed one is left alone', async () => {
    const giveUp = pushLeadJob.giveUp;
    assert.ok(giveUp);
    const { leadId } = await newLead();
    const reason = 'was interrupted by a restart of the service on its last attempt';
    assert.equal(await giveUp({ leadId }, context(), reason), true);
    assert.equal((await lead(leadId)).push_error, `the push ${reason}`);

    const pushed = await newLead();
    const pushedAt = new Date('2026-01-02T03:04:05Z');
    await t.database.db
      .updateTable('leads')
      .set({ pushed_at: pushedAt, push_error: null })
      .where('id', '=', pushed.leadId)
      .execute();
    assert.equal(await giveUp({ leadId: pushed.leadId }, context(), reason), false);
    const row = await lead(pushed.leadId);
    assert.equal(row.push_error, null);
    assert.equal(row.pushed_at?.toISOString(), pushedAt.toISOString());
  });
});
