import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWorkspacePlan } from '@service/contract';
import { sql } from 'kysely';
import { z } from 'zod';
import { DATA_COMMANDS } from '../src/cli/commands.js';
import { createLogger } from '../src/logger.js';
import { expectData } from './support/http.js';
import { parseSseFrames } from './support/sse.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';
import { askWidget, createWidgetAgent, initSession, widgetCall } from './support/widget.js';

// The monthly visitor-message limit: counted in the statement that stores the message, so
// limit-1 and limit are answered, limit+1 gets a polite answer (never an error, nothing stored),
// concurrent messages never overshoot, a new month starts again, and the console sees it.

describe('plans: visitor messages a month', () => {
  let t: TestApp;
  const clock = createTestClock(Date.parse('2026-03-31T23:50:00Z'));

  before(async () => {
    // The widget's per-token rate limit (30 a minute) is not what this file tests.
    t = await createTestApp({ clock, env: { WIDGET_RATE_LIMIT_SCALE: '100' } });
  });
  after(() => t.close());

  const run = (command: 'plan:set' | 'plan:assign', args: Record<string, unknown>) =>
    DATA_COMMANDS[command](
      { config: t.config, database: t.database, clock: t.clock, log: createLogger('silent') },
      args,
    );

  async function tenantWithLimit(
    key: string,
    messages: number,
  ): Promise<{ tenant: Tenant; agentId: string }> {
    const tenant = await seedTenant(t, `Messages ${key}`);
    await run('plan:set', { key, messages: String(messages) });
    await run('plan:assign', { workspace: tenant.workspace.id, plan: key });
    return createWidgetAgent(t, {}, tenant);
  }

  const visitorMessages = async (workspaceId: string) => {
    const { rows } = await sql<{ n: string }>`select count(*) as n from messages
      where workspace_id = ${workspaceId} and role = 'visitor'`.execute(t.database.db);
    return Number(rows[0]?.n);
  };
  const plan = async (tenant: Tenant) =>
    expectData(
      await t.app.inject({ method: 'GET', url: '/api/v1/admin/plan', headers: tenant.auth }),
      200,
      ZWorkspacePlan,
    );

  test('limit-1 and limit answered; limit+1 a polite 200 with nothing stored; the console sees it', async () => {
    const { tenant, agentId } = await tenantWithLimit('three', 3);
    const session = await initSession(t, agentId);
    for (const n of [1, 2]) {
      const answer = await askWidget(t, session.token, `question ${n}`);
      assert.notEqual(answer.message_id, null);
      assert.equal(answer.limit_reached, undefined);
    }
    assert.deepEqual((await plan(tenant)).at_limit, [], 'two of three: not at the limit');
    const third = await askWidget(t, session.token, 'question 3');
    assert.notEqual(third.message_id, null, 'the limit-th message is answered');
    assert.deepEqual((await plan(tenant)).at_limit, ['messages_per_month']);

    const fourth = await askWidget(t, session.token, 'question 4');
    assert.equal(fourth.limit_reached, true);
    assert.equal(fourth.message_id, null);
    assert.match(fourth.text, /can't take more questions this month/);
    assert.equal(await visitorMessages(tenant.workspace.id), 3, 'the refused message is not stored');

    // The stream route: the same polite answer as a done frame, never an error frame.
    const res = await widgetCall(t, 'POST', '/v1/widget/messages/stream', session.token, { message: 'five' });
    assert.equal(res.statusCode, 200);
    const frames = parseSseFrames(res.body);
    assert.deepEqual(
      frames.map((frame) => frame.event),
      ['done'],
    );
    const done = z.object({ limit_reached: z.literal(true), message_id: z.null() }).parse(frames[0]?.data);
    assert.equal(done.limit_reached, true);

    const seen = await plan(tenant);
    assert.equal(seen.usage.messages_this_month, 3);
    assert.equal(seen.usage.refused_messages_this_month, 2);
  });

  test('the visitor language picks the polite answer', async () => {
    const { agentId } = await tenantWithLimit('zero', 0);
    const session = await initSession(t, agentId, { locale: 'de-DE' });
    const answer = await askWidget(t, session.token, 'Hallo?');
    assert.equal(answer.limit_reached, true);
    assert.match(answer.text, /keine weiteren Fragen/);
  });

  test('twelve concurrent messages on a limit of 5 store exactly 5', async () => {
    const { tenant, agentId } = await tenantWithLimit('five', 5);
    const sessions = await Promise.all(Array.from({ length: 4 }, () => initSession(t, agentId)));
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => askWidget(t, sessions[i % 4]?.token ?? '', `racing ${i}`)),
    );
    assert.equal(answers.filter((a) => a.limit_reached === true).length, 7);
    assert.equal(answers.filter((a) => a.message_id !== null).length, 5);
    assert.equal(await visitorMessages(tenant.workspace.id), 5);
    assert.equal((await plan(tenant)).usage.messages_this_month, 5);
  });

  test('a new month (UTC) starts a new count', async () => {
    const { tenant, agentId } = await tenantWithLimit('one', 1);
    const session = await initSession(t, agentId);
    assert.notEqual((await askWidget(t, session.token, 'March')).message_id, null);
    assert.equal((await askWidget(t, session.token, 'March again')).limit_reached, true);
    clock.set(Date.parse('2026-04-01T00:00:01Z'));
    const fresh = await initSession(t, agentId);
    assert.notEqual((await askWidget(t, fresh.token, 'April')).message_id, null);
    const april = await plan(tenant);
    assert.equal(april.period, '2026-04');
    assert.equal(april.usage.messages_this_month, 1);
    assert.equal(april.usage.refused_messages_this_month, 0);
  });

  test('without a limit nothing is refused and the month is still counted', async () => {
    const tenant = await seedTenant(t, 'Unlimited');
    const { agentId } = await createWidgetAgent(t, {}, tenant);
    const session = await initSession(t, agentId);
    for (let i = 0; i < 3; i += 1)
      assert.notEqual((await askWidget(t, session.token, `q${i}`)).message_id, null);
    assert.equal((await plan(tenant)).usage.messages_this_month, 3);
  });
});
