import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWorkspacePlan } from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { DATA_COMMANDS } from '../src/cli/commands.js';
import { createLogger } from '../src/logger.js';
import { expectData, expectError, expectValidation } from './support/http.js';
import { createAgent } from './support/site-sync.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { multipartBody } from './support/upload-files.js';

// Plan limits on agents, sources and upload storage, each at limit-1, limit and limit+1, checked
// in the transaction of the write (concurrent creates never overshoot); the operator's plan
// commands; and GET /api/v1/admin/plan. On PGlite, and on PostgreSQL with TEST_DATABASE_URL.

describe('plans: limits on agents, sources and uploads', () => {
  let t: TestApp;
  const run = (
    command: 'plan:set' | 'plan:assign' | 'plan:list' | 'usage',
    args: Record<string, unknown> = {},
  ) =>
    DATA_COMMANDS[command](
      { config: t.config, database: t.database, clock: t.clock, log: createLogger('silent') },
      args,
    );

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  /** A new workspace on a new plan with the given CLI limits. */
  async function tenantOnPlan(key: string, limits: Record<string, string>): Promise<Tenant> {
    const tenant = await seedTenant(t, `Plan ${key}`);
    await run('plan:set', { key, name: `Plan ${key}`, ...limits });
    await run('plan:assign', { workspace: tenant.workspace.id, plan: key });
    return tenant;
  }

  const newAgent = (tenant: Tenant, name: string) =>
    injectJson(t.app, 'POST', '/api/v1/admin/agents', { name }, tenant.auth);
  const newTextSource = (tenant: Tenant, agentId: string, name: string) =>
    injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agentId}/sources`,
      { type: 'text', name, text: `Some words about ${name}.` },
      tenant.auth,
    );
  const count = async (table: 'agents' | 'sources', workspaceId: string) => {
    const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}
      where workspace_id = ${workspaceId}`.execute(t.database.db);
    return Number(rows[0]?.n);
  };

  test('a new workspace is on the default plan: no limits, nothing at its limit', async () => {
    const tenant = await seedTenant(t, 'Fresh');
    const plan = expectData(
      await t.app.inject({ method: 'GET', url: '/api/v1/admin/plan', headers: tenant.auth }),
      200,
      ZWorkspacePlan,
    );
    assert.equal(plan.plan.key, 'default');
    assert.equal(plan.billing_status, 'none');
    assert.deepEqual(plan.limits, {
      agents: null,
      messages_per_month: null,
      sources: null,
      upload_bytes: null,
    });
    assert.deepEqual(plan.at_limit, []);
    assert.match(plan.period, /^\d{4}-\d{2}$/);
  });

  test('agents: limit-1 and limit are created, limit+1 is a 403 plan_limit_reached and changes nothing', async () => {
    const tenant = await tenantOnPlan('agents3', { agents: '3' });
    for (const name of ['one', 'two']) assert.equal((await newAgent(tenant, name)).statusCode, 201);
    // Two of three: one more fits.
    assert.equal((await newAgent(tenant, 'three')).statusCode, 201);
    const refused = expectError(await newAgent(tenant, 'four'), 403, 'plan_limit_reached');
    assert.match(refused.errors.agents?.[0] ?? '', /allows 3 agents; this workspace has 3/);
    assert.equal(await count('agents', tenant.workspace.id), 3);
    const plan = expectData(
      await t.app.inject({ method: 'GET', url: '/api/v1/admin/plan', headers: tenant.auth }),
      200,
      ZWorkspacePlan,
    );
    assert.equal(plan.usage.agents, 3);
    assert.deepEqual(plan.at_limit, ['agents']);
    // Deleting one makes room again.
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/admin/agents', headers: tenant.auth });
    const first = (JSON.parse(list.body) as { data: Array<{ id: string }> }).data[0];
    assert.ok(first);
    await t.app.inject({ method: 'DELETE', url: `/api/v1/admin/agents/${first.id}`, headers: tenant.auth });
    assert.equal((await newAgent(tenant, 'again')).statusCode, 201);
  });

  test('agents: ten concurrent creates on a limit of 4 make exactly 4', async () => {
    const tenant = await tenantOnPlan('agents4', { agents: '4' });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => newAgent(tenant, `racer ${i}`)));
    const statuses = answers.map((res: LightMyRequestResponse) => res.statusCode).sort();
    assert.deepEqual(statuses, [201, 201, 201, 201, 403, 403, 403, 403, 403, 403]);
    assert.equal(await count('agents', tenant.workspace.id), 4);
  });

  test('sources: limit-1, limit, limit+1; concurrent creates never overshoot', async () => {
    const tenant = await tenantOnPlan('sources2', { sources: '2' });
    const agentId = await createAgent(t, tenant, { name: 'Sourced' });
    // The agent's own knowledge-base source is the service's, not counted.
    assert.equal((await newTextSource(tenant, agentId, 'first')).statusCode, 201);
    assert.equal((await newTextSource(tenant, agentId, 'second')).statusCode, 201);
    const refused = expectError(await newTextSource(tenant, agentId, 'third'), 403, 'plan_limit_reached');
    assert.ok(refused.errors.sources);

    const racing = await tenantOnPlan('sources3', { sources: '3' });
    const racingAgent = await createAgent(t, racing, { name: 'Racing' });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => newTextSource(racing, racingAgent, `racer ${i}`)),
    );
    assert.equal(answers.filter((res) => res.statusCode === 201).length, 3);
    assert.equal(answers.filter((res) => res.statusCode === 403).length, 5);
  });

  test('upload storage: files up to the limit are taken, one byte over is refused with nothing stored', async () => {
    const tenant = await tenantOnPlan('uploads', {});
    // The CLI sets megabytes; bytes here, for an exact edge.
    await t.database.db
      .updateTable('plans')
      .set({ max_upload_bytes: 1000 })
      .where('key', '=', 'uploads')
      .execute();
    const agentId = await createAgent(t, tenant, { name: 'Uploads' });
    const upload = (name: string, size: number) => {
      const body = multipartBody([{ name, bytes: 'a'.repeat(size), contentType: 'text/plain' }]);
      return t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/agents/${agentId}/uploads`,
        headers: { ...body.headers, ...tenant.auth },
        payload: body.payload,
      });
    };
    assert.equal((await upload('a.txt', 600)).statusCode, 201, 'limit-400');
    assert.equal((await upload('b.txt', 399)).statusCode, 201, 'to limit-1');
    const over = expectError(await upload('c.txt', 2), 403, 'plan_limit_reached');
    assert.ok(over.errors.upload_bytes);
    assert.equal((await upload('d.txt', 1)).statusCode, 201, 'exactly the limit');
    const plan = expectData(
      await t.app.inject({ method: 'GET', url: '/api/v1/admin/plan', headers: tenant.auth }),
      200,
      ZWorkspacePlan,
    );
    assert.equal(plan.usage.upload_bytes, 1000);
    assert.ok(plan.at_limit.includes('upload_bytes'));
  });

  test('plan:set validates, refuses one price id on two plans, and `none` removes a limit', async () => {
    await assert.rejects(run('plan:set', { key: 'Bad Key' }), /plan key/);
    await assert.rejects(run('plan:set', { key: 'x', agents: '-1' }), /whole number/);
    await assert.rejects(run('plan:set', { key: 'x', bogus: '1' }), /bogus/);
    await run('plan:set', {
      key: 'pro',
      name: 'Pro',
      agents: '10',
      'stripe-prices': 'price_pro_m,price_pro_y',
    });
    await assert.rejects(run('plan:set', { key: 'team', 'stripe-prices': 'price_pro_m' }), /already mapped/);
    const changed = await run('plan:set', { key: 'pro', agents: 'none', 'upload-mb': '5' });
    assert.deepEqual(changed, {
      key: 'pro',
      name: 'Pro',
      limits: { agents: null, messages_per_month: null, sources: null, upload_bytes: 5 * 1024 * 1024 },
      stripe_price_ids: ['price_pro_m', 'price_pro_y'],
      paypal_plan_ids: [],
      paddle_price_ids: [],
    });
    const listed = (await run('plan:list')) as { plans: Array<{ key: string }> };
    assert.equal(listed.plans[0]?.key, 'default');
  });

  test('plan:assign refuses an unknown plan or workspace and audits a change', async () => {
    const tenant = await seedTenant(t, 'Assigned');
    await assert.rejects(run('plan:assign', { workspace: tenant.workspace.id, plan: 'nope' }), /No plan/);
    await assert.rejects(run('plan:assign', { workspace: 'ws_missing', plan: 'default' }), /No workspace/);
    await run('plan:set', { key: 'gold' });
    assert.deepEqual(await run('plan:assign', { workspace: tenant.workspace.id, plan: 'gold' }), {
      workspace_id: tenant.workspace.id,
      plan: 'gold',
      previous_plan: 'default',
    });
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .select(['action', 'actor_type', 'metadata'])
      .where('workspace_id', '=', tenant.workspace.id)
      .where('action', '=', 'plan.changed')
      .execute();
    assert.deepEqual(audit, [
      {
        action: 'plan.changed',
        actor_type: 'cli',
        metadata: { from: 'default', to: 'gold', by: 'operator' },
      },
    ]);
  });

  test('the plan route needs the admin credential and shows only the caller workspace', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/api/v1/admin/plan' }), 401);
    const a = await tenantOnPlan('seen', { agents: '1' });
    const b = await seedTenant(t, 'Unseen');
    const planB = expectData(
      await t.app.inject({ method: 'GET', url: '/api/v1/admin/plan', headers: b.auth }),
      200,
      ZWorkspacePlan,
    );
    assert.equal(planB.plan.key, 'default');
    const planA = expectData(
      await t.app.inject({ method: 'GET', url: '/api/v1/admin/plan', headers: a.auth }),
      200,
      ZWorkspacePlan,
    );
    assert.equal(planA.limits.agents, 1);
    // No query or body picks another workspace.
    expectValidation(
      await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/agents',
        { name: 'x', workspace_id: b.workspace.id },
        a.auth,
      ),
      ['workspace_id'],
    );
  });
});
