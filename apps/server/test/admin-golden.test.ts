import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GOLDEN_ITEMS_PER_AGENT_MAX, listPage, ZEvaluationRunSummary, ZGoldenItem } from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import type { z } from 'zod';
import { newId } from '../src/security/ids.js';
import { addGolden, runEvaluation } from './support/evaluations.js';
import {
  auditRows,
  bearer,
  expectData,
  expectError,
  expectValidation,
  UNAUTHENTICATED_BODY,
} from './support/http.js';
import { createAgent } from './support/site-sync.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

const NO_ID = '01NOSUCHRECORD';

/** The rows of a 200 list page (`{data, meta: {next_cursor}}`). */
function rowsOf<T extends z.ZodType>(res: LightMyRequestResponse, item: T): Array<z.output<T>> {
  assert.equal(res.statusCode, 200, res.body);
  return listPage(item).parse(JSON.parse(res.body)).data;
}
const PAGE = 'https://shop.example/returns';

describe('admin API: golden sets and evaluation runs', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  let agentId: string;
  let emptyAgentId: string;
  let otherAgentId: string;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme golden');
    other = await seedTenant(t, 'Other golden');
    agentId = await createAgent(t, acme, { name: 'Golden helper' });
    emptyAgentId = await createAgent(t, acme, { name: 'No golden set' });
    otherAgentId = await createAgent(t, other, { name: 'Other helper' });
  });
  after(() => t.close());

  const base = (agent: string) => `/api/v1/admin/agents/${agent}`;
  const routes = (agent: string, id: string) => [
    { method: 'GET' as const, url: `${base(agent)}/golden` },
    { method: 'POST' as const, url: `${base(agent)}/golden` },
    { method: 'POST' as const, url: `${base(agent)}/golden/import` },
    { method: 'PATCH' as const, url: `${base(agent)}/golden/${id}` },
    { method: 'DELETE' as const, url: `${base(agent)}/golden/${id}` },
    { method: 'POST' as const, url: `${base(agent)}/evaluations` },
    { method: 'GET' as const, url: `${base(agent)}/evaluations` },
    { method: 'GET' as const, url: `${base(agent)}/evaluations/${id}` },
  ];

  test('no credential is 401 without detail; a token without admin is 403', async () => {
    const integration = await issueToken(t, acme, ['wp:integration']);
    for (const route of routes(agentId, NO_ID)) {
      const anonymous = await injectJson(t.app, route.method, route.url, {});
      assert.equal(anonymous.statusCode, 401, `${route.method} ${route.url}`);
      assert.equal(anonymous.body, UNAUTHENTICATED_BODY);
      expectError(
        await injectJson(t.app, route.method, route.url, {}, bearer(integration.token)),
        403,
        'forbidden',
      );
    }
  });

  test('create, list, change and delete a golden item; each write audited', async () => {
    const item = await addGolden(t, acme.auth, agentId, {
      question: '  How do refunds work?  ',
      expected_urls: [PAGE, PAGE],
      note: 'from the FAQ',
    });
    assert.deepEqual(
      [item.question, item.expected_urls, item.expected_document_ids, item.origin, item.origin_id, item.note],
      ['How do refunds work?', [PAGE], [], 'manual', null, 'from the FAQ'],
    );
    const listed = await t.app.inject({ method: 'GET', url: `${base(agentId)}/golden`, headers: acme.auth });
    assert.deepEqual(
      rowsOf(listed, ZGoldenItem).map((row) => row.id),
      [item.id],
    );

    const patched = await injectJson(
      t.app,
      'PATCH',
      `${base(agentId)}/golden/${item.id}`,
      { question: 'Can I get my money back?', expected_document_ids: ['01DOCUMENT'], note: null },
      acme.auth,
    );
    const changed = expectData(patched, 200, ZGoldenItem);
    assert.deepEqual(
      [changed.question, changed.expected_urls, changed.expected_document_ids, changed.note],
      ['Can I get my money back?', [PAGE], ['01DOCUMENT'], null],
    );
    // An item must keep at least one expected page.
    expectValidation(
      await injectJson(
        t.app,
        'PATCH',
        `${base(agentId)}/golden/${item.id}`,
        { expected_urls: [], expected_document_ids: [] },
        acme.auth,
      ),
      ['expected_urls'],
    );

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `${base(agentId)}/golden/${item.id}`,
      headers: acme.auth,
    });
    assert.equal(removed.statusCode, 204);
    const rows = await t.database.db
      .selectFrom('golden_items')
      .select('id')
      .where('id', '=', item.id)
      .execute();
    assert.equal(rows.length, 0);
    const actions = (await auditRows(t, acme.workspace.id))
      .filter((row) => row.target_id === item.id)
      .map((row) => row.action);
    assert.deepEqual(actions, ['golden.created', 'golden.updated', 'golden.deleted']);
  });

  test('hostile and malformed input is 422 and stores nothing', async () => {
    const post = (body: unknown) => injectJson(t.app, 'POST', `${base(agentId)}/golden`, body, acme.auth);
    const before = await t.database.db.selectFrom('golden_items').select('id').execute();
    expectValidation(await post({ question: 'a\u0000b', expected_urls: [PAGE] }), ['question']);
    expectValidation(await post({ question: 'ok', expected_urls: ['javascript:alert(1)'] }), [
      'expected_urls.0',
    ]);
    expectValidation(await post({ question: 'ok', expected_urls: ['file:///etc/passwd'] }), [
      'expected_urls.0',
    ]);
    expectValidation(await post({ question: '   ', expected_urls: [PAGE] }), ['question']);
    expectValidation(await post({ question: 'ok' }), ['expected_urls']);
    expectValidation(await post({ question: 'x'.repeat(1001), expected_urls: [PAGE] }), ['question']);
    expectValidation(await post({ question: 'ok', expected_urls: [PAGE], origin: 'question' }), ['origin']);
    const eleven = Array.from({ length: 11 }, (_, i) => `${PAGE}/${i}`);
    expectValidation(await post({ question: 'ok', expected_urls: eleven }), ['expected_urls']);
    const ten = eleven.slice(0, 10);
    assert.equal(
      (await addGolden(t, acme.auth, emptyAgentId, { question: 'ten', expected_urls: ten })).expected_urls
        .length,
      10,
    );
    await t.database.db.deleteFrom('golden_items').where('agent_id', '=', emptyAgentId).execute();
    const after = await t.database.db.selectFrom('golden_items').select('id').execute();
    assert.equal(after.length, before.length);
  });

  test(`an agent holds at most ${GOLDEN_ITEMS_PER_AGENT_MAX} golden items: the ${GOLDEN_ITEMS_PER_AGENT_MAX + 1}st is 422`, async () => {
    const filler = await createAgent(t, acme, { name: 'Full set' });
    const rows = Array.from({ length: GOLDEN_ITEMS_PER_AGENT_MAX - 1 }, (_, i) => ({
      id: newId(),
      workspace_id: acme.workspace.id,
      agent_id: filler,
      question: `question ${i}`,
      expected_urls: [PAGE],
    }));
    await t.database.db.insertInto('golden_items').values(rows).execute();
    await addGolden(t, acme.auth, filler, { question: 'the last one', expected_urls: [PAGE] });
    expectValidation(
      await injectJson(
        t.app,
        'POST',
        `${base(filler)}/golden`,
        { question: 'one too many', expected_urls: [PAGE] },
        acme.auth,
      ),
      ['question'],
    );
  });

  test("another workspace's agent, item or run is 404; an item of another agent too", async () => {
    const mine = await addGolden(t, acme.auth, agentId, {
      question: 'Where is my parcel?',
      expected_urls: [PAGE],
    });
    const res = await t.app.inject({
      method: 'POST',
      url: `${base(agentId)}/evaluations`,
      headers: acme.auth,
    });
    const runId = expectData(res, 202, ZEvaluationRunSummary.omit({ misses: true })).id;
    for (const route of routes(agentId, mine.id)) {
      const body = route.url.endsWith('/import')
        ? { origin: 'question', origin_id: NO_ID }
        : route.method === 'GET' || route.method === 'DELETE'
          ? undefined
          : { question: 'x', expected_urls: [PAGE] };
      const stolen = await injectJson(
        t.app,
        route.method,
        route.url.replace(NO_ID, mine.id),
        body ?? {},
        other.auth,
      );
      expectError(stolen, 404, 'not_found');
    }
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `${base(agentId)}/evaluations/${runId}`,
        headers: other.auth,
      }),
      404,
      'not_found',
    );
    // The item exists, but not under this agent of the same workspace.
    expectError(
      await injectJson(t.app, 'PATCH', `${base(emptyAgentId)}/golden/${mine.id}`, { note: 'x' }, acme.auth),
      404,
      'not_found',
    );
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `${base(emptyAgentId)}/evaluations/${runId}`,
        headers: acme.auth,
      }),
      404,
      'not_found',
    );
    // Nothing of acme's is visible in other's lists.
    const theirs = await t.app.inject({
      method: 'GET',
      url: `${base(otherAgentId)}/golden`,
      headers: other.auth,
    });
    assert.deepEqual(rowsOf(theirs, ZGoldenItem), []);
    const stillMine = await t.database.db
      .selectFrom('golden_items')
      .select('note')
      .where('id', '=', mine.id)
      .executeTakeFirstOrThrow();
    assert.equal(stillMine.note, null);
  });

  test('an empty golden set is 409 and queues nothing; a run is listed and audited', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${base(emptyAgentId)}/evaluations`,
      headers: acme.auth,
    });
    const body = expectError(res, 409, 'conflict');
    assert.ok(body.errors.golden?.length);
    const runs = await t.database.db
      .selectFrom('evaluation_runs')
      .select('id')
      .where('agent_id', '=', emptyAgentId)
      .execute();
    assert.equal(runs.length, 0);

    const list = await t.app.inject({
      method: 'GET',
      url: `${base(agentId)}/evaluations?order=desc&limit=1`,
      headers: acme.auth,
    });
    const page = rowsOf(list, ZEvaluationRunSummary);
    assert.equal(page.length, 1);
    const run = page[0];
    assert.ok(run);
    assert.deepEqual([run.status, run.trigger], ['queued', 'manual']);
    await runEvaluation(t, run.id);
    const after = await t.app.inject({
      method: 'GET',
      url: `${base(agentId)}/evaluations`,
      headers: acme.auth,
    });
    const done = rowsOf(after, ZEvaluationRunSummary).find((row) => row.id === run.id);
    // No source: the item is not found, a miss (counted in the list).
    assert.deepEqual([done?.status, done?.metrics?.recall_at_5, done?.misses], ['done', 0, 1]);
    const audited = (await auditRows(t, acme.workspace.id)).filter((row) => row.target_id === run.id);
    assert.deepEqual(
      audited.map((row) => [row.action, row.target_type]),
      [['evaluation.requested', 'evaluation_run']],
    );
  });

  test('importing from an unknown question is 404; origin must be question or correction', async () => {
    const res = await injectJson(
      t.app,
      'POST',
      `${base(agentId)}/golden/import`,
      { origin: 'question', origin_id: NO_ID },
      acme.auth,
    );
    expectError(res, 404, 'not_found');
    expectValidation(
      await injectJson(
        t.app,
        'POST',
        `${base(agentId)}/golden/import`,
        { origin: 'manual', origin_id: NO_ID },
        acme.auth,
      ),
      ['origin'],
    );
  });
});
