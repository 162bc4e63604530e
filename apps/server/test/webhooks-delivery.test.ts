import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ZLeadCapturedEvent, ZWebhookCreated, ZWebhookDelivery } from '@service/contract';
import { sql } from 'kysely';
import { z } from 'zod';
import { deliverWebhookJob } from '../src/jobs/deliver-webhook.js';
import { createLogger } from '../src/logger.js';
import type { JobContext, JobQueue } from '../src/queue/job-queue.js';
import { DELIVER_WEBHOOK_RETRY_LIMIT } from '../src/queue/job-specs.js';
import { createSecretKeyring } from '../src/security/secret-keyring.js';
import { captureLead } from '../src/services/conversations/leads.js';
import { openWebhookSecret } from '../src/services/ops/webhooks.js';
import { resealSecrets } from '../src/services/sealed-secrets.js';
import { seedVisitor, startWebhookReceiver, type WebhookReceiver } from './support/fake-site.js';
import { expectData, expectError } from './support/http.js';
import { createSite, type Site } from './support/site-sync.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';

const HOOKS = '/api/v1/admin/webhooks';

describe('webhook deliveries: signed, recorded, retried, redelivered', () => {
  let receiver: WebhookReceiver;
  let t: TestApp;
  let queue: JobQueue;
  let shop: Site;
  let other: Site;
  let hookId: string;
  let appKey: Buffer;
  let counter = 0;

  before(async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp({ env: { SAFE_URL_ALLOW: receiver.allowEntry } });
    queue = t.queue;
    appKey = t.config.appKey;
    shop = await createSite(t);
    other = await createSite(t);
    const res = await injectJson(
      t.app,
      'POST',
      HOOKS,
      { url: receiver.url, events: ['lead.captured'] },
      shop.tenant.auth,
    );
    const created = expectData(res, 201, ZWebhookCreated);
    hookId = created.id;
    receiver.secret = created.secret;
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const context = (attempt = 1, key = appKey): JobContext => ({
    db: t.database.db,
    clock: t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt,
    safeUrlAllow: t.config.safeUrlAllow,
    appKey: key,
    queue,
  });
  /** Captures a new lead in `site` and returns its one delivery's id. */
  const newDelivery = async (site: Site = shop) => {
    counter += 1;
    const visitor = await seedVisitor(t, site);
    const lead = await captureLead({
      db: t.database.db,
      clock: t.clock,
      queue,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      ...visitor,
      input: { email: `hook${counter}@example.com`, name: 'Ada' },
    });
    const row = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subject_id', '=', lead.id)
      .executeTakeFirstOrThrow();
    return { id: row.id, leadId: lead.id, conversationId: visitor.conversationId };
  };
  const deliveryRow = (id: string) =>
    t.database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('a delivery is signed per the documented scheme and names its event and delivery', async () => {
    const delivery = await newDelivery();
    const before = receiver.deliveries.length;
    await deliverWebhookJob.handle({ deliveryId: delivery.id }, context());
    const got = receiver.deliveries[before];
    assert.ok(got, 'the receiver got the delivery');
    assert.equal(got.signature, 'ok');
    // The scheme, by hand: t=<unix>,v1=hex(HMAC-SHA256(secret, "<t>.<raw body>")).
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got.headers['x-service-signature']));
    assert.ok(match);
    const expected = createHmac('sha256', receiver.secret).update(`${match[1]}.${got.raw}`).digest('hex');
    assert.equal(match[2], expected);
    assert.ok(Math.abs(Number(match[1]) - Date.now() / 1000) < 60);
    assert.equal(got.headers['x-service-event'], 'lead.captured');
    assert.equal(got.headers['x-service-delivery'], delivery.id);
    assert.match(String(got.headers['content-type']), /^application\/json/);
    const event = ZLeadCapturedEvent.parse(got.body);
    assert.deepEqual(Object.keys(z.record(z.string(), z.unknown()).parse(got.body)), [
      'id',
      'event',
      'created_at',
      'data',
    ]);
    assert.equal(event.id, delivery.id);
    assert.equal(event.data.lead.id, delivery.leadId);
    assert.equal(event.data.lead.email, `hook${counter}@example.com`);
    assert.equal(event.data.lead.conversation_id, delivery.conversationId);

    const row = await deliveryRow(delivery.id);
    assert.deepEqual(
      [row.status, row.attempts, row.last_status_code, row.last_error],
      ['delivered', 1, 200, null],
    );
    assert.ok(row.delivered_at);
    // Delivered is final: running the job again sends nothing.
    await deliverWebhookJob.handle({ deliveryId: delivery.id }, context());
    assert.equal(receiver.deliveries.length, before + 1);
  });

  test('a failing endpoint is recorded and retried; the last attempt marks it failed', async () => {
    const delivery = await newDelivery();
    receiver.status = 500;
    try {
      await assert.rejects(deliverWebhookJob.handle({ deliveryId: delivery.id }, context(1)), /HTTP 500/);
      const retrying = await deliveryRow(delivery.id);
      assert.deepEqual(
        [retrying.status, retrying.attempts, retrying.last_status_code, retrying.last_error],
        ['pending', 1, 500, 'the endpoint answered HTTP 500'],
      );
      await assert.rejects(
        deliverWebhookJob.handle({ deliveryId: delivery.id }, context(DELIVER_WEBHOOK_RETRY_LIMIT)),
      );
      assert.equal((await deliveryRow(delivery.id)).status, 'pending');
      await deliverWebhookJob.handle({ deliveryId: delivery.id }, context(DELIVER_WEBHOOK_RETRY_LIMIT + 1));
    } finally {
      receiver.status = 200;
    }
    const failed = await deliveryRow(delivery.id);
    // The queue runs those retries with exponential backoff.
    const policy = await sql<{ retry_limit: number; retry_backoff: boolean }>`
      select retry_limit, retry_backoff from pgboss.queue where name = 'deliver-webhook'`.execute(
      t.database.db,
    );
    assert.deepEqual(policy.rows, [{ retry_limit: DELIVER_WEBHOOK_RETRY_LIMIT, retry_backoff: true }]);
    assert.deepEqual([failed.status, failed.attempts, failed.delivered_at], ['failed', 3, null]);
  });

  test('redeliver: 202, pending again with a new job; the same delivery id arrives', async () => {
    const delivery = await newDelivery();
    receiver.status = 503;
    await deliverWebhookJob.handle({ deliveryId: delivery.id }, context(DELIVER_WEBHOOK_RETRY_LIMIT + 1));
    receiver.status = 200;
    assert.equal((await deliveryRow(delivery.id)).status, 'failed');

    const jobs = await queue.countJobs('deliver-webhook', 'created');
    const res = await injectJson(
      t.app,
      'POST',
      `${HOOKS}/deliveries/${delivery.id}/redeliver`,
      {},
      shop.tenant.auth,
    );
    const pending = expectData(res, 202, ZWebhookDelivery);
    assert.deepEqual([pending.id, pending.status, pending.attempts], [delivery.id, 'pending', 1]);
    assert.equal(await queue.countJobs('deliver-webhook', 'created'), jobs + 1);

    const before = receiver.deliveries.length;
    await deliverWebhookJob.handle({ deliveryId: delivery.id }, context(1));
    assert.equal(receiver.deliveries[before]?.headers['x-service-delivery'], delivery.id);
    assert.equal(receiver.deliveries[before]?.signature, 'ok');
    const row = await deliveryRow(delivery.id);
    assert.deepEqual([row.status, row.attempts, row.last_status_code], ['delivered', 2, 200]);
  });

  test("the delivery log lists newest first with paging; another workspace's delivery is 404", async () => {
    const res = await t.app.inject({
      url: `${HOOKS}/${hookId}/deliveries?limit=2`,
      headers: shop.tenant.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = z
      .object({ data: z.array(ZWebhookDelivery), meta: z.object({ next_before: z.string().nullable() }) })
      .parse(res.json());
    assert.equal(page.data.length, 2);
    assert.ok((page.data[0]?.id ?? '') > (page.data[1]?.id ?? ''));
    assert.equal(page.meta.next_before, page.data[1]?.id);

    const foreign = await newDelivery(shop);
    const jobs = await queue.countJobs('deliver-webhook', 'created');
    const redeliver = await injectJson(
      t.app,
      'POST',
      `${HOOKS}/deliveries/${foreign.id}/redeliver`,
      {},
      other.tenant.auth,
    );
    expectError(redeliver, 404, 'not_found');
    assert.equal(await queue.countJobs('deliver-webhook', 'created'), jobs);
    expectError(
      await t.app.inject({ url: `${HOOKS}/${hookId}/deliveries`, headers: other.tenant.auth }),
      404,
    );
  });

  test('the guard is checked again at delivery: a host no longer allowed is refused and nothing is sent', async () => {
    const delivery = await newDelivery();
    const before = receiver.deliveries.length;
    await assert.rejects(
      deliverWebhookJob.handle({ deliveryId: delivery.id }, { ...context(), safeUrlAllow: [] }),
      /refused/,
    );
    const row = await deliveryRow(delivery.id);
    assert.match(row.last_error ?? '', /^refused: 127\.0\.0\.1 is /);
    assert.equal(row.last_status_code, null);
    assert.equal(receiver.deliveries.length, before);
  });

  test('key rotation re-seals webhook secrets: same secret, new key, deliveries still verify', async () => {
    const newKey = Buffer.alloc(32, 0x5a);
    const counts = await resealSecrets({ db: t.database.db, from: createSecretKeyring(appKey), to: newKey });
    assert.ok(counts.resealed >= 1);
    const row = await t.database.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', hookId)
      .executeTakeFirstOrThrow();
    assert.equal(openWebhookSecret(row.secret_sealed, createSecretKeyring(newKey), hookId), receiver.secret);
    assert.throws(() => openWebhookSecret(row.secret_sealed, createSecretKeyring(appKey), hookId));
    // Mid-rollover (APP_KEY new, APP_KEY_PREVIOUS old) the job opens it too.
    const delivery = await newDelivery();
    const before = receiver.deliveries.length;
    await deliverWebhookJob.handle(
      { deliveryId: delivery.id },
      { ...context(1, newKey), appKeyPrevious: appKey },
    );
    assert.equal(receiver.deliveries[before]?.signature, 'ok');
    const again = await resealSecrets({ db: t.database.db, from: createSecretKeyring(newKey), to: newKey });
    assert.equal(again.resealed, 0);
  });
});
