import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZLeadCapturedEvent } from '@service/contract';
import { AppError } from '../src/errors/app-error.js';
import type { JobQueue } from '../src/queue/job-queue.js';
import type { Actor } from '../src/services/context.js';
import {
  captureLead,
  eraseVisitorLeads,
  listLeads,
  normalizeEmail,
} from '../src/services/conversations/leads.js';
import { createWebhook } from '../src/services/ops/webhooks.js';
import {
  type ConnectedSite,
  connectSite,
  type FakeSite,
  seedVisitor,
  startFakeSite,
} from './support/fake-site.js';
import { createSite, type Site } from './support/site-sync.js';
import { completeJobs, jobsFor } from './support/sources.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const CLI: Actor = { type: 'cli', id: null };

describe('leads: capture, deduplication, webhook fan-out, erasure', () => {
  let fake: FakeSite;
  let t: TestApp;
  let queue: JobQueue;
  let shop: ConnectedSite;
  let other: Site;
  const hookIds: string[] = [];

  before(async () => {
    fake = await startFakeSite({ secret: '' });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: fake.allowEntry } });
    queue = t.queue;
    shop = await connectSite(t, fake);
    other = await createSite(t);
    const make = async (site: Site) => {
      const scope = {
        db: t.database.db,
        clock: t.clock,
        workspaceId: site.tenant.workspace.id,
        actor: CLI,
        appKey: t.config.appKey,
        safeUrlAllow: t.config.safeUrlAllow,
      };
      const hook = await createWebhook(scope, { url: `${fake.siteUrl}/hook`, events: ['lead.captured'] });
      return hook.id;
    };
    hookIds.push(await make(shop), await make(shop), await make(shop));
    // One disabled webhook of the shop, one webhook of another workspace: neither gets deliveries.
    await t.database.db
      .updateTable('webhooks')
      .set({ is_active: false })
      .where('id', '=', hookIds[2] ?? '')
      .execute();
    await make(other);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const capture = async (
    site: Site,
    visitor: { visitorId: string; conversationId: string },
    input: { email: string; name?: string; phone?: string },
  ) =>
    captureLead({
      db: t.database.db,
      clock: t.clock,
      queue,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      ...visitor,
      input,
    });
  const deliveriesOf = (leadId: string) =>
    t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subject_id', '=', leadId)
      .orderBy('webhook_id')
      .execute();

  test('email normalisation: trimmed and lower-cased as a whole', () => {
    assert.equal(normalizeEmail('  Ada.Lovelace+Shop@Example.COM \n'), 'ada.lovelace+shop@example.com');
  });

  test('a new lead: one delivery row and job per active subscribed webhook, and a site push', async () => {
    const visitor = await seedVisitor(t, shop);
    const jobsBefore = await queue.countJobs('deliver-webhook', 'created');
    const lead = await capture(shop, visitor, { email: ' Ada@Example.com ', name: 'Ada', phone: '' });
    assert.deepEqual({ created: lead.created, changed: lead.changed }, { created: true, changed: true });

    const row = await t.database.db
      .selectFrom('leads')
      .selectAll()
      .where('id', '=', lead.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [row.email, row.email_normalized, row.name, row.phone, row.visitor_id, row.conversation_id],
      ['Ada@Example.com', 'ada@example.com', 'Ada', '', visitor.visitorId, visitor.conversationId],
    );
    const deliveries = await deliveriesOf(lead.id);
    assert.deepEqual(
      deliveries.map((d) => d.webhook_id),
      [hookIds[0], hookIds[1]],
    );
    for (const delivery of deliveries) {
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.attempts, 0);
      const event = ZLeadCapturedEvent.parse(delivery.payload);
      assert.equal(event.id, delivery.id);
      assert.deepEqual(event.data.lead, {
        id: lead.id,
        email: 'Ada@Example.com',
        name: 'Ada',
        phone: '',
        agent_id: shop.agentId,
        conversation_id: visitor.conversationId,
        created_at: row.created_at.toISOString(),
      });
    }
    assert.equal(await queue.countJobs('deliver-webhook', 'created'), jobsBefore + 2);
    assert.equal(await jobsFor(t, 'push-lead', lead.id), 1);
  });

  test('a repeat keeps the lead: name and phone change only when given, no new webhook', async () => {
    const visitor = await seedVisitor(t, shop);
    const first = await capture(shop, visitor, {
      email: 'grace@example.com',
      name: 'Grace',
      phone: '+1 555',
    });
    await completeJobs(t, 'push-lead', first.id);
    const deliveryJobs = await queue.countJobs('deliver-webhook', 'created');

    const same = await capture(shop, visitor, { email: 'GRACE@example.com  ', name: '', phone: '' });
    assert.deepEqual(same, { id: first.id, created: false, changed: false });
    assert.equal(await jobsFor(t, 'push-lead', first.id), 1, 'nothing changed: no new push');

    const renamed = await capture(shop, visitor, { email: 'grace@EXAMPLE.com', name: 'Grace Hopper' });
    assert.deepEqual(renamed, { id: first.id, created: false, changed: true });
    const row = await t.database.db
      .selectFrom('leads')
      .selectAll()
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.email, row.name, row.phone], ['grace@example.com', 'Grace Hopper', '+1 555']);
    const unchanged = async () =>
      await t.database.db
        .selectFrom('leads')
        .select(['name', 'phone'])
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow();
    assert.equal(await jobsFor(t, 'push-lead', first.id), 2, 'a change is pushed to the site again');

    const stranger = await seedVisitor(t, shop);
    const hijack = await capture(shop, stranger, {
      email: 'grace@example.com',
      name: 'Mallory',
      phone: '+1 666',
    });
    assert.deepEqual(hijack, { id: first.id, created: false, changed: false }, "another visitor's repeat");
    assert.equal(await jobsFor(t, 'push-lead', first.id), 2, 'and nothing is pushed to the site');
    assert.deepEqual(await unchanged(), { name: 'Grace Hopper', phone: '+1 555' });
    assert.equal((await deliveriesOf(first.id)).length, 2, 'webhooks fire once per lead');
    assert.equal(await queue.countJobs('deliver-webhook', 'created'), deliveryJobs);
    const leads = await t.database.db
      .selectFrom('leads')
      .select('id')
      .where('email_normalized', '=', 'grace@example.com')
      .execute();
    assert.equal(leads.length, 1);
  });

  test('no site, no push; the same email for another agent is another lead', async () => {
    const visitor = await seedVisitor(t, other);
    const lead = await capture(other, visitor, { email: 'ada@example.com' });
    assert.equal(lead.created, true);
    assert.equal(await jobsFor(t, 'push-lead', lead.id), 0);
    assert.equal((await deliveriesOf(lead.id)).length, 1, "the other workspace's own webhook");
  });

  test('bad input is 422 and another workspace’s agent is 404; nothing is stored', async () => {
    const visitor = await seedVisitor(t, shop);
    const count = async () => (await t.database.db.selectFrom('leads').select('id').execute()).length;
    const before = await count();
    await assert.rejects(capture(shop, visitor, { email: 'not an email' }), (error: unknown) => {
      return (
        error instanceof AppError && error.code === 'validation_failed' && error.errors.email !== undefined
      );
    });
    await assert.rejects(capture(shop, visitor, { email: 'a@b.example', name: 'x'.repeat(201) }), AppError);
    await assert.rejects(
      captureLead({
        db: t.database.db,
        clock: t.clock,
        queue,
        workspaceId: other.tenant.workspace.id,
        agentId: shop.agentId,
        ...visitor,
        input: { email: 'a@b.example' },
      }),
      (error: unknown) => error instanceof AppError && error.code === 'not_found',
    );
    assert.equal(await count(), before);
  });

  test('listLeads: newest first, keyset pages, agent filter, workspace scope', async () => {
    const visitor = await seedVisitor(t, shop);
    for (const n of [1, 2, 3]) await capture(shop, visitor, { email: `page${n}@example.com` });
    const workspaceId = shop.tenant.workspace.id;
    const all = await listLeads({ db: t.database.db, workspaceId, limit: 100 });
    const first = await listLeads({ db: t.database.db, workspaceId, limit: 2 });
    assert.equal(first.items.length, 2);
    assert.ok(first.nextCursor);
    const second = await listLeads({ db: t.database.db, workspaceId, limit: 100, cursor: first.nextCursor });
    assert.deepEqual(
      [...first.items, ...second.items].map((lead) => lead.id),
      all.items.map((lead) => lead.id),
    );
    assert.equal(second.nextCursor, null);
    assert.equal(all.items[0]?.email, 'page3@example.com');
    assert.ok(all.items.every((lead) => lead.agent_id === shop.agentId));
    const none = await listLeads({ db: t.database.db, workspaceId, agentId: other.agentId, limit: 10 });
    assert.deepEqual(none.items, []);
  });

  test("erasure removes the visitor's leads and their deliveries, and nothing else", async () => {
    const gone = await seedVisitor(t, shop);
    const kept = await seedVisitor(t, shop);
    const a = await capture(shop, gone, { email: 'erase-a@example.com' });
    const b = await capture(shop, gone, { email: 'erase-b@example.com' });
    const c = await capture(shop, kept, { email: 'keep@example.com' });
    // Another workspace cannot erase this workspace's visitor.
    const foreign = await eraseVisitorLeads({
      db: t.database.db,
      workspaceId: other.tenant.workspace.id,
      visitorId: gone.visitorId,
    });
    assert.deepEqual(foreign, { leads: 0, deliveries: 0 });

    const erased = await eraseVisitorLeads({
      db: t.database.db,
      workspaceId: shop.tenant.workspace.id,
      visitorId: gone.visitorId,
    });
    assert.deepEqual(erased, { leads: 2, deliveries: 4 });
    const left = await t.database.db
      .selectFrom('leads')
      .select('id')
      .where('id', 'in', [a.id, b.id, c.id])
      .execute();
    assert.deepEqual(
      left.map((row) => row.id),
      [c.id],
    );
    assert.equal((await deliveriesOf(a.id)).length + (await deliveriesOf(b.id)).length, 0);
    assert.equal((await deliveriesOf(c.id)).length, 2);
  });
});
