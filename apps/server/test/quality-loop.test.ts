import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ZAgentQuestion,
  ZCorrection,
  ZEvaluationRunSummary,
  ZGoldenItem,
  ZKbArticle,
} from '@service/contract';
import { z } from 'zod';
import { readRun, runEvaluation } from './support/evaluations.js';
import { expectData, expectValidation } from './support/http.js';
import { indexSource } from './support/sources.js';
import { createTestApp, injectJson, type Tenant, type TestApp } from './support/test-app.js';
import { addText, askWidget, createWidgetAgent, initSession } from './support/widget.js';

// The quality loop end to end: a question the agent could not answer becomes a knowledge-base
// article and, from there, a golden item whose expected page is that article; a correction
// becomes a golden item too; the evaluation then finds the article's page for the question.

const FAQ = 'Delivery takes two to three working days. Returns are free for thirty days after delivery.';
const ZResolution = z.object({
  question: ZAgentQuestion,
  correction: ZCorrection.optional(),
  kb_article: ZKbArticle.optional(),
});

describe('the quality loop: unanswered question → KB article → golden item → evaluation', () => {
  let t: TestApp;
  let tenant: Tenant;
  let agentId: string;
  const agentUrl = () => `/api/v1/admin/agents/${agentId}`;
  const post = (path: string, body: unknown) =>
    injectJson(t.app, 'POST', `${agentUrl()}${path}`, body, tenant.auth);

  before(async () => {
    t = await createTestApp();
    ({ tenant, agentId } = await createWidgetAgent(t));
    await addText(t, tenant, agentId, 'FAQ', FAQ);
  });
  after(() => t.close());

  test('a resolved question imports with its article as the expected page, and the run finds it', async () => {
    const session = await initSession(t, agentId);
    await askWidget(t, session.token, 'Do you have a loyalty programme?');
    const questions = await t.app.inject({
      method: 'GET',
      url: `${agentUrl()}/questions?status=open`,
      headers: tenant.auth,
    });
    const open = z.object({ data: z.array(ZAgentQuestion) }).parse(questions.json()).data;
    const loyalty = open.find((row) => row.question === 'Do you have a loyalty programme?');
    assert.ok(loyalty, questions.body);

    // An open question cannot join the golden set yet.
    expectValidation(await post('/golden/import', { origin: 'question', origin_id: loyalty.id }), [
      'origin_id',
    ]);

    const resolved = expectData(
      await post(`/questions/${loyalty.id}/kb-article`, {
        title: 'Loyalty programme',
        body: 'Every tenth order ships free with the loyalty programme.',
      }),
      201,
      ZResolution,
    );
    const articleId = resolved.kb_article?.id ?? '';
    const kbSource = await t.database.db
      .selectFrom('sources')
      .select('id')
      .where('agent_id', '=', agentId)
      .where('type', '=', 'kb')
      .executeTakeFirstOrThrow();
    await indexSource(t, kbSource.id);
    const articleDocument = await t.database.db
      .selectFrom('documents')
      .select('id')
      .where('source_id', '=', kbSource.id)
      .where('external_id', '=', articleId)
      .executeTakeFirstOrThrow();

    const item = expectData(
      await post('/golden/import', { origin: 'question', origin_id: loyalty.id }),
      201,
      ZGoldenItem,
    );
    assert.equal(item.question, 'Do you have a loyalty programme?');
    assert.equal(item.origin, 'question');
    assert.equal(item.origin_id, loyalty.id);
    assert.deepEqual(item.expected_document_ids, [articleDocument.id]);
    // One record makes one item.
    expectValidation(await post('/golden/import', { origin: 'question', origin_id: loyalty.id }), [
      'origin_id',
    ]);

    const run = expectData(await post('/evaluations', {}), 202, ZEvaluationRunSummary.omit({ misses: true }));
    await runEvaluation(t, run.id);
    const done = await readRun(t, tenant.auth, agentId, run.id);
    assert.equal(done.status, 'done', done.error ?? '');
    assert.deepEqual(
      done.results.map((result) => [result.question, result.rank]),
      [['Do you have a loyalty programme?', 1]],
    );
  });

  test('a correction imports with the pages the operator names, and only with them', async () => {
    const correction = expectData(
      await post('/corrections', {
        question: 'How long does delivery take?',
        answer: 'Two to three working days.',
      }),
      201,
      ZCorrection,
    );
    expectValidation(await post('/golden/import', { origin: 'correction', origin_id: correction.id }), [
      'expected_urls',
    ]);
    const faq = await t.database.db
      .selectFrom('documents')
      .innerJoin('sources', 'sources.id', 'documents.source_id')
      .select('documents.id')
      .where('sources.agent_id', '=', agentId)
      .where('sources.type', '=', 'text')
      .executeTakeFirstOrThrow();
    const item = expectData(
      await post('/golden/import', {
        origin: 'correction',
        origin_id: correction.id,
        expected_document_ids: [faq.id],
      }),
      201,
      ZGoldenItem,
    );
    assert.equal(item.question, 'How long does delivery take?');
    assert.equal(item.origin, 'correction');
    const stored = await t.database.db
      .selectFrom('golden_items')
      .select(['origin', 'origin_id'])
      .where('id', '=', item.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { origin: 'correction', origin_id: correction.id });
  });

  test("another agent's question or correction is 404 and adds nothing", async () => {
    const other = await createWidgetAgent(t);
    const foreign = expectData(
      await injectJson(
        t.app,
        'POST',
        `/api/v1/admin/agents/${other.agentId}/corrections`,
        { question: 'Where is the shop?', answer: 'In the old town.' },
        other.tenant.auth,
      ),
      201,
      ZCorrection,
    );
    const before = await t.database.db
      .selectFrom('golden_items')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await post('/golden/import', {
      origin: 'correction',
      origin_id: foreign.id,
      expected_urls: ['https://shop.example.com/where'],
    });
    assert.equal(res.statusCode, 404, res.body);
    const afterCount = await t.database.db
      .selectFrom('golden_items')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(afterCount.n), Number(before.n));
  });
});
