import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZLeadPage } from '@service/contract';
import { expectValidation } from './support/http.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, widgetCall } from './support/widget.js';

describe('admin API: leads', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('lists the workspace leads newest first, per agent, with keyset paging; other tenants see none', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const second = await createWidgetAgent(t, {}, tenant);
    const other = await createWidgetAgent(t);
    for (const [agent, email] of [
      [agentId, 'ann@example.com'],
      [agentId, 'bob@example.com'],
      [second.agentId, 'cy@example.com'],
      [other.agentId, 'dee@example.com'],
    ] as const) {
      const session = await initSession(t, agent);
      const res = await widgetCall(t, 'POST', '/v1/widget/leads', session.token, { email, name: 'N' });
      assert.equal(res.statusCode, 201, res.body);
    }
    const get = (query: string, auth = tenant.auth) =>
      t.app.inject({ method: 'GET', url: `/api/v1/admin/leads${query}`, headers: auth });
    const all = ZLeadPage.parse((await get('')).json()).data;
    assert.deepEqual(
      all.map((lead) => lead.email),
      ['cy@example.com', 'bob@example.com', 'ann@example.com'],
    );
    const one = ZLeadPage.parse((await get(`?agent_id=${agentId}&limit=1`)).json());
    assert.deepEqual(
      one.data.map((lead) => lead.email),
      ['bob@example.com'],
    );
    assert.ok(one.meta.next_cursor);
    const next = ZLeadPage.parse(
      (await get(`?agent_id=${agentId}&limit=1&cursor=${one.meta.next_cursor}`)).json(),
    );
    assert.deepEqual(
      next.data.map((lead) => lead.email),
      ['ann@example.com'],
    );
    assert.equal(next.meta.next_cursor, null);
    const theirs = ZLeadPage.parse((await get(`?agent_id=${other.agentId}`)).json());
    assert.deepEqual(theirs.data, [], "another workspace's agent shows nothing");
    expectValidation(await get('?limit=0'), ['limit']);
    expectValidation(await get('?limit=101'), ['limit']);
  });
});
