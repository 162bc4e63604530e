import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ZWebhook, ZWebhookCreated, ZWebhookDelivery } from '@service/contract';
import { z } from 'zod';
import { deliverWebhookJob } from '../src/jobs/deliver-webhook.js';
import { createLogger } from '../src/logger.js';
import type { JobContext } from '../src/queue/job-queue.js';
import { DELIVER_WEBHOOK_RETRY_LIMIT } from '../src/queue/job-specs.js';
import { captureLead } from '../src/services/conversations/leads.js';
import { RESPONSE_EXCERPT_MAX } from '../src/services/ops/webhooks.js';
import { seedVisitor } from './support/fake-site.js';
import { expectData } from './support/http.js';
import { createSite, type Site } from './support/site-sync.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';

const HOOKS = '/api/v1/admin/webhooks';
const ZLog = z.object({
  data: z.array(ZWebhookDelivery.strict()),
  meta: z.object({ next_before: z.string().nullable() }),
});

describe(`webhooks: enable/disable, and the delivery log's request and answer (${TEST_ENGINE})`, () => {
  const answer = { status: 200, body: 'ok' };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(answer.body);
    });
  });
  let t: TestApp;
  let shop: Site;
  let other: Site;
  let hookId: string;
  let counter = 0;

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${port}` } });
    shop = await createSite(t);
    other = await createSite(t);
    const res = await injectJson(
      t.app,
      'POST',
      HOOKS,
      { url: `http://127.0.0.1:${port}/hook`, events: ['lead.captured'] },
      shop.tenant.auth,
    );
    hookId = expectData(res, 201, ZWebhookCreated).id;
  });
  after(async () => {
    await t.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const context = (attempt = 1): JobContext => ({
    db: t.database.db,
    clock: t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt,
    safeUrlAllow: t.config.safeUrlAllow,
    appKey: t.config.appKey,
    queue: t.queue,
  });
  const newDelivery = async () => {
    counter += 1;
    const visitor = await seedVisitor(t, shop);
    const lead = await captureLead({
      db: t.database.db,
      clock: t.clock,
      queue: t.queue,
      workspaceId: shop.tenant.workspace.id,
      agentId: shop.agentId,
      ...visitor,
      input: { email: `log${counter}@example.com`, name: 'Ada' },
    });
    const row = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subject_id', '=', lead.id)
      .executeTakeFirstOrThrow();
    return row.id;
  };
  const logOf = async () => {
    const res = await t.app.inject({ url: `${HOOKS}/${hookId}/deliveries`, headers: shop.tenant.auth });
    assert.equal(res.statusCode, 200, res.body);
    return ZLog.parse(res.json()).data;
  };
  const patch = (id: string, body: unknown, auth = shop.tenant.auth) =>
    injectJson(t.app, 'PATCH', `${HOOKS}/${id}`, body, auth);

  test("the log shows the request body and the start of the endpoint's answer", async () => {
    answer.status = 200;
    answer.body = 'thanks';
    const id = await newDelivery();
    const pending = (await logOf()).find((d) => d.id === id);
    assert.equal(pending?.last_response_excerpt, null);
    const body = JSON.parse(pending?.request_body ?? '{}');
    assert.deepEqual(Object.keys(body), ['id', 'event', 'created_at', 'data']);
    assert.equal(body.id, id);
    assert.equal(body.data.lead.email, `log${counter}@example.com`);
    await deliverWebhookJob.handle({ deliveryId: id }, context());
    const delivered = (await logOf()).find((d) => d.id === id);
    assert.deepEqual(
      [delivered?.status, delivered?.last_status_code, delivered?.last_response_excerpt],
      ['delivered', 200, 'thanks'],
    );
  });

  test('a long or NUL-holding answer is stored as a bounded, storable excerpt', async () => {
    answer.status = 500;
    answer.body = `a\u0000b${'é'.repeat(RESPONSE_EXCERPT_MAX * 2)}`;
    const id = await newDelivery();
    await assert.rejects(deliverWebhookJob.handle({ deliveryId: id }, context(1)));
    const row = (await logOf()).find((d) => d.id === id);
    assert.equal(row?.last_status_code, 500);
    assert.equal(row?.last_response_excerpt?.length, RESPONSE_EXCERPT_MAX);
    assert.ok(row?.last_response_excerpt?.startsWith('abé'));
    answer.status = 200;
    answer.body = 'ok';
  });

  test('disable: 200 with is_active false, audited; its queued deliveries fail; enable again', async () => {
    const disabled = expectData(await patch(hookId, { is_active: false }), 200, ZWebhook);
    assert.equal(disabled.is_active, false);
    const id = await newDelivery().catch(() => null);
    // A disabled webhook gets no new deliveries at capture.
    assert.equal(id, null);
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .select(['action', 'target_id'])
      .where('workspace_id', '=', shop.tenant.workspace.id)
      .where('action', 'in', ['webhook.disabled', 'webhook.enabled'])
      .execute();
    assert.deepEqual(audit, [{ action: 'webhook.disabled', target_id: hookId }]);
    const enabled = expectData(await patch(hookId, { is_active: true }), 200, ZWebhook);
    assert.equal(enabled.is_active, true);
    const fresh = await newDelivery();
    await deliverWebhookJob.handle({ deliveryId: fresh }, context(DELIVER_WEBHOOK_RETRY_LIMIT + 1));
    assert.equal((await logOf()).find((d) => d.id === fresh)?.status, 'delivered');
  });

  test('bad bodies are 422 and change nothing; another workspace is 404', async () => {
    for (const body of [
      {},
      { is_active: 'no' },
      { is_active: true, url: 'http://x.test' },
      { is_active: null },
    ]) {
      const res = await patch(hookId, body);
      assert.equal(res.statusCode, 422, JSON.stringify(body));
    }
    assert.equal((await patch(hookId, { is_active: false }, other.tenant.auth)).statusCode, 404);
    assert.equal((await patch('01ZZZZZZZZZZZZZZZZZZZZZZZZ', { is_active: false })).statusCode, 404);
    const listed = await t.app.inject({ url: HOOKS, headers: shop.tenant.auth });
    assert.equal(z.object({ data: z.array(ZWebhook) }).parse(listed.json()).data[0]?.is_active, true);
  });
});
