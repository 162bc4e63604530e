import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ZEvaluationRun, ZQualityRegressedEvent, ZSource, ZWebhookCreated } from '@service/contract';
import { sql } from 'kysely';
import { deliverWebhookJob } from '../src/jobs/deliver-webhook.js';
import { onSourcesIndexed } from '../src/services/knowledge/evaluation-trigger.js';
import { addGolden, readRun, runEvaluation, type ShopSite, startShop } from './support/evaluations.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/fake-site.js';
import { expectData } from './support/http.js';
import { createAgent } from './support/site-sync.js';
import { indexSource, runFetchJob } from './support/sources.js';
import {
  createTestApp,
  injectJson,
  seedTenant,
  type Tenant,
  type TestApp,
  workerContext,
} from './support/test-app.js';

// The quality loop end to end: a golden set over a loopback shop, a manual run (recall 1.0),
// then the shop loses a page, the source is re-indexed, the transition to `indexed` queues a
// `reindex` run by itself, and that run lists the lost page's question as a regression and
// fires a signed `agent.quality_regressed` webhook.

describe('evaluations: a re-index that loses a page is a regression and fires the webhook', () => {
  let shop: ShopSite;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;
  let sourceId: string;
  const golden: Record<string, string> = {};
  let firstRunId = '';

  before(async () => {
    shop = await startShop();
    receiver = await startWebhookReceiver('/hooks/quality');
    const allow = [new URL(shop.origin).host, receiver.allowEntry].join(',');
    t = await createTestApp({ env: { SAFE_URL_ALLOW: allow, CRAWL_DELAY_MS: '0' } });
    acme = await seedTenant(t, 'Acme lanterns');
    agentId = await createAgent(t, acme, { name: 'Lantern helper', language_default: 'en' });
    const res = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agentId}/sources`,
      { type: 'sitemap', url: `${shop.origin}/sitemap.xml`, max_pages: 10 },
      acme.auth,
    );
    sourceId = expectData(res, 201, ZSource).id;
    await runFetchJob(t, sourceId);
    assert.equal(await indexSource(t, sourceId), 3);
    const hook = await injectJson(
      t.app,
      'POST',
      '/api/v1/admin/webhooks',
      { url: receiver.url, events: ['agent.quality_regressed'] },
      acme.auth,
    );
    receiver.secret = expectData(hook, 201, ZWebhookCreated).secret;
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
    await shop?.close();
  });

  const runsOf = () =>
    t.database.db
      .selectFrom('evaluation_runs')
      .selectAll()
      .where('agent_id', '=', agentId)
      .orderBy('id')
      .execute();

  test('the source is indexed before any golden item exists: no run is queued', async () => {
    const source = await t.database.db
      .selectFrom('sources')
      .select('status')
      .where('id', '=', sourceId)
      .executeTakeFirstOrThrow();
    assert.equal(source.status, 'indexed');
    assert.equal((await runsOf()).length, 0);
  });

  test('a manual run over the golden set: 202 queued, then done with recall 1.0', async () => {
    golden.returns = (
      await addGolden(t, acme.auth, agentId, {
        question: 'How long do I have to send a parcel back for a refund?',
        expected_urls: [`${shop.origin}/returns`],
      })
    ).id;
    golden.shipping = (
      await addGolden(t, acme.auth, agentId, {
        question: 'When do orders leave the warehouse?',
        expected_urls: [`${shop.origin}/shipping/`],
      })
    ).id;
    golden.warranty = (
      await addGolden(t, acme.auth, agentId, {
        question: 'What does the lantern warranty cover?',
        expected_urls: [`${shop.origin}/warranty`],
        note: 'the warranty page',
      })
    ).id;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/agents/${agentId}/evaluations`,
      headers: acme.auth,
    });
    const queued = expectData(res, 202, ZEvaluationRun);
    assert.equal(queued.status, 'queued');
    assert.equal(queued.trigger, 'manual');
    assert.equal(queued.metrics, null);
    firstRunId = queued.id;

    await runEvaluation(t, firstRunId);
    const done = await readRun(t, acme.auth, agentId, firstRunId);
    assert.equal(done.status, 'done', done.error ?? '');
    assert.deepEqual(done.metrics, { questions: 3, recall_at_1: 1, recall_at_5: 1, mrr: 1 });
    assert.deepEqual(
      done.results.map((result) => [result.golden_id, result.rank]).sort(),
      Object.values(golden)
        .map((id) => [id, 1])
        .sort(),
    );
    assert.deepEqual(done.misses, []);
    assert.deepEqual(done.regressions, []);
    assert.equal(done.previous_run_id, null);
    assert.ok(done.started_at && done.finished_at);

    // Run twice, the job leaves the same state (the run is settled).
    await runEvaluation(t, firstRunId);
    assert.deepEqual(await readRun(t, acme.auth, agentId, firstRunId), done);
  });

  test('the shop drops the warranty page; the re-index queues a reindex run by itself', async () => {
    shop.removed.add('/warranty');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/sources/${sourceId}/reindex`,
      headers: acme.auth,
    });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal((await runsOf()).length, 1, 'nothing queued before the source is indexed again');
    await runFetchJob(t, sourceId);
    await indexSource(t, sourceId);

    const source = await t.database.db
      .selectFrom('sources')
      .select('status')
      .where('id', '=', sourceId)
      .executeTakeFirstOrThrow();
    assert.equal(source.status, 'indexed');
    const runs = await runsOf();
    assert.equal(runs.length, 2);
    const reindex = runs[1];
    assert.ok(reindex);
    assert.deepEqual([reindex.trigger, reindex.status], ['reindex', 'queued']);
    const jobs = await sql<{ n: string }>`select count(*) as n from pgboss.job
      where name = 'evaluate-agent' and singleton_key = ${reindex.id}`.execute(t.database.db);
    assert.equal(Number(jobs.rows[0]?.n), 1, 'its job is queued');

    // Debounced per agent: another source settling while that run waits queues nothing more.
    const again = await onSourcesIndexed(t.database.db, t.queue, t.clock, [
      { id: sourceId, agent_id: agentId },
    ]);
    assert.deepEqual(again, []);
    assert.equal((await runsOf()).length, 2);
  });

  test('the reindex run lists the lost question as a regression and fires a signed webhook', async () => {
    const reindex = (await runsOf())[1];
    assert.ok(reindex);
    await runEvaluation(t, reindex.id);
    const run = await readRun(t, acme.auth, agentId, reindex.id);
    assert.equal(run.status, 'done', run.error ?? '');
    assert.equal(run.previous_run_id, firstRunId);
    assert.equal(run.metrics?.questions, 3);
    assert.equal(run.metrics?.recall_at_5, 0.6667);
    assert.deepEqual(
      run.regressions.map((item) => [item.golden_id, item.previous_rank, item.rank]),
      [[golden.warranty, 1, null]],
    );
    assert.deepEqual(
      run.misses.map((miss) => miss.golden_id),
      [golden.warranty],
    );

    const deliveries = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subject_id', '=', run.id)
      .execute();
    assert.equal(deliveries.length, 1);
    const delivery = deliveries[0];
    assert.ok(delivery);
    assert.equal(delivery.event, 'agent.quality_regressed');
    await deliverWebhookJob.handle({ deliveryId: delivery.id }, workerContext(t));

    const got = receiver.deliveries.at(-1);
    assert.ok(got, 'the receiver got the delivery');
    assert.equal(got.signature, 'ok');
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got.headers['x-service-signature']));
    assert.ok(match);
    const expected = createHmac('sha256', receiver.secret).update(`${match[1]}.${got.raw}`).digest('hex');
    assert.equal(match[2], expected);
    assert.equal(got.headers['x-service-event'], 'agent.quality_regressed');
    assert.equal(got.headers['x-service-delivery'], delivery.id);
    const event = ZQualityRegressedEvent.parse(got.body);
    assert.equal(event.id, delivery.id);
    assert.equal(event.data.agent_id, agentId);
    assert.equal(event.data.run_id, run.id);
    assert.equal(event.data.previous_run_id, firstRunId);
    assert.equal(event.data.trigger, 'reindex');
    assert.deepEqual(event.data.before, { questions: 3, recall_at_1: 1, recall_at_5: 1, mrr: 1 });
    assert.deepEqual(event.data.after, run.metrics);
    assert.deepEqual(event.data.regressions, run.regressions);
    assert.equal(event.data.regressions[0]?.question, 'What does the lantern warranty cover?');
    const stored = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('id', '=', delivery.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.status, 'delivered');
  });

  test('a run with no new failures lists no regression and fires nothing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/agents/${agentId}/evaluations`,
      headers: acme.auth,
    });
    const queued = expectData(res, 202, ZEvaluationRun);
    await runEvaluation(t, queued.id);
    const run = await readRun(t, acme.auth, agentId, queued.id);
    assert.equal(run.status, 'done');
    assert.deepEqual(run.regressions, [], 'the warranty question already failed in the previous run');
    assert.equal(run.misses.length, 1);
    const deliveries = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subject_id', '=', run.id)
      .execute();
    assert.equal(deliveries.length, 0);
  });
});
