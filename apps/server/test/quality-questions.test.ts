import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgentQuestion, ZCorrection, ZKbArticle, ZQuestionPage } from '@service/contract';
import { z } from 'zod';
import { expectData, expectError, expectValidation } from './support/http.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { addText, askWidget, createWidgetAgent, initSession, widgetCall } from './support/widget.js';

const FAQ =
  'Delivery takes two to three working days within the country. Returns are free for thirty days ' +
  'after delivery. We ship with tracked parcels.';
const ZResolution = z.object({
  question: ZAgentQuestion,
  correction: ZCorrection.optional(),
  kb_article: ZKbArticle.optional(),
});

describe('unanswered and down-rated questions', () => {
  let t: TestApp;
  let tenant: Tenant;
  let agentId: string;
  const base = () => `/api/v1/admin/agents/${agentId}/questions`;
  const list = async (query = '', who = tenant) => {
    const res = await t.app.inject({ method: 'GET', url: `${base()}${query}`, headers: who.auth });
    assert.equal(res.statusCode, 200, res.body);
    return ZQuestionPage.parse(res.json());
  };
  const post = (url: string, body: unknown, who = tenant) => injectJson(t.app, 'POST', url, body, who.auth);
  const turnOf = (answerMessageId: string) =>
    t.database.db
      .selectFrom('answer_turns')
      .selectAll()
      .where('answer_message_id', '=', answerMessageId)
      .executeTakeFirstOrThrow();

  before(async () => {
    t = await createTestApp();
    ({ tenant, agentId } = await createWidgetAgent(t));
    await addText(t, tenant, agentId, 'FAQ', FAQ);
  });
  after(() => t.close());

  test('a question with no match is recorded (no_match, fallback); an answered one is not', async () => {
    const session = await initSession(t, agentId);
    const answered = await askWidget(t, session.token, 'Are returns free?');
    assert.ok(answered.citations.length > 0);
    const unknown = await askWidget(t, session.token, 'zebra quantum teleport');
    const page = await list();
    assert.equal(page.data.length, 1, JSON.stringify(page.data));
    const [row] = page.data;
    assert.equal(row?.question, 'zebra quantum teleport');
    assert.equal(row?.answer, unknown.text);
    assert.equal(row?.answer_message_id, unknown.message_id);
    assert.deepEqual(row?.reasons, ['no_match', 'fallback']);
    assert.equal(row?.status, 'open');
    assert.equal(page.meta.counts.status.open, 1);
    assert.equal(page.meta.counts.reason.no_match, 1);
    assert.equal(page.meta.counts.reason.rated_down, 0);
  });

  test('a down-rated answer appears with the chunks behind it; a handoff records the last question', async () => {
    const session = await initSession(t, agentId);
    const answer = await askWidget(t, session.token, 'How long does delivery take?');
    assert.ok(answer.message_id && answer.citations.length > 0);
    const rated = await widgetCall(t, 'POST', '/v1/widget/satisfaction', session.token, {
      rating: 'down',
      message_id: answer.message_id,
    });
    assert.equal(rated.statusCode, 200, rated.body);
    const page = await list('?reason=rated_down');
    assert.equal(page.data.length, 1);
    const [row] = page.data;
    const turn = await turnOf(answer.message_id);
    assert.ok(turn.retrieved.length > 0, 'the turn had chunks');
    assert.deepEqual(row?.reasons, ['rated_down']);
    assert.deepEqual(
      row?.chunks.map((chunk) => chunk.chunk_id),
      turn.retrieved.map((chunk) => chunk.chunk_id),
    );
    assert.equal(row?.turn_id, turn.id);
    // Each chunk names the page it came from (its document's title and URL).
    assert.deepEqual(
      row?.chunks.map((chunk) => chunk.title),
      turn.retrieved.map(() => 'FAQ'),
    );

    // Asking for a human adds the reason to the same record (one record per answer turn).
    const human = await widgetCall(t, 'POST', '/v1/widget/request-human', session.token);
    assert.equal(human.statusCode, 200, human.body);
    const same = (await list('?reason=handoff')).data;
    assert.equal(same.length, 1);
    assert.equal(same[0]?.id, row?.id);
    assert.deepEqual(same[0]?.reasons, ['handoff', 'rated_down']);
  });

  test("rating down without message_id takes the last answer; another conversation's answer is 404", async () => {
    const first = await initSession(t, agentId);
    const foreign = await askWidget(t, first.token, 'Do you use tracked parcels?');
    const session = await initSession(t, agentId);
    const last = await askWidget(t, session.token, 'Are returns free after delivery?');
    const before = (await list()).data.length;
    const refused = await widgetCall(t, 'POST', '/v1/widget/satisfaction', session.token, {
      rating: 'down',
      message_id: foreign.message_id,
    });
    expectError(refused, 404, 'not_found');
    assert.equal((await list()).data.length, before, 'nothing recorded');
    const stored = await t.database.db
      .selectFrom('conversations')
      .select('satisfaction_rating')
      .where('id', '=', session.conversation_id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.satisfaction_rating, null, 'the rating was not stored either');
    const ok = await widgetCall(t, 'POST', '/v1/widget/satisfaction', session.token, { rating: 'down' });
    assert.equal(ok.statusCode, 200, ok.body);
    const found = (await list('?reason=rated_down')).data.find(
      (row) => row.answer_message_id === last.message_id,
    );
    assert.ok(found, 'the last answer is recorded');
  });

  test('turning a question into a correction resolves it and changes the next answer', async () => {
    const session = await initSession(t, agentId);
    await askWidget(t, session.token, 'Can I pay with gold bars?');
    const open = (await list('?status=open')).data.find(
      (row) => row.question === 'Can I pay with gold bars?',
    );
    assert.ok(open);
    const made = expectData(
      await post(`${base()}/${open.id}/correction`, { answer: 'No, only cards and bank transfer.' }),
      201,
      ZResolution,
    );
    assert.equal(made.question.status, 'resolved');
    assert.equal(made.question.resolution, 'correction');
    assert.equal(made.question.resolution_id, made.correction?.id);
    assert.equal(made.correction?.source, 'question');
    assert.equal(made.correction?.question, 'Can I pay with gold bars?');
    const next = await askWidget(t, session.token, 'can I pay with gold bars');
    assert.equal(next.text, 'No, only cards and bank transfer.');
    assert.equal(next.from_team, true);
    // Resolved: a second resolution is 409 and changes nothing.
    expectError(await post(`${base()}/${open.id}/correction`, { answer: 'Yes.' }), 409, 'conflict');
    expectError(await post(`${base()}/${open.id}/resolve`, {}), 409, 'conflict');
    const resolved = (await list('?status=resolved')).data.find((row) => row.id === open.id);
    assert.equal(resolved?.resolution, 'correction');
  });

  test('turning a question into a KB article publishes it and resolves the question; resolve dismisses', async () => {
    const session = await initSession(t, agentId);
    await askWidget(t, session.token, 'Do you have a loyalty programme?');
    await askWidget(t, session.token, 'Is there a warehouse sale?');
    const rows = (await list('?status=open')).data;
    const loyalty = rows.find((row) => row.question === 'Do you have a loyalty programme?');
    const sale = rows.find((row) => row.question === 'Is there a warehouse sale?');
    assert.ok(loyalty && sale);
    const made = expectData(
      await post(`${base()}/${loyalty.id}/kb-article`, {
        title: 'Loyalty programme',
        body: 'Every tenth order ships free.',
      }),
      201,
      ZResolution,
    );
    assert.equal(made.kb_article?.is_published, true);
    assert.equal(made.question.resolution, 'kb_article');
    assert.equal(made.question.resolution_id, made.kb_article?.id);
    const article = await t.database.db
      .selectFrom('kb_articles')
      .select(['title', 'body_markdown', 'is_published'])
      .where('id', '=', made.kb_article?.id ?? '')
      .executeTakeFirstOrThrow();
    assert.deepEqual(article, {
      title: 'Loyalty programme',
      body_markdown: 'Every tenth order ships free.',
      is_published: true,
    });
    const dismissed = expectData(await post(`${base()}/${sale.id}/resolve`, {}), 200, ZAgentQuestion);
    assert.equal(dismissed.status, 'resolved');
    assert.equal(dismissed.resolution, 'dismissed');
    const page = await list('?status=open');
    assert.ok(page.data.every((row) => row.status === 'open'));
    assert.ok(page.meta.counts.status.resolved >= 3);
  });

  test('each chunk names its page; a chunk gone since names none; the resolved question carries them too', async () => {
    const { agentId: other } = await createWidgetAgent(t, {}, tenant);
    const sourceId = await addText(
      t,
      tenant,
      other,
      'Warranty page',
      'Every lantern has a five year warranty.',
    );
    const otherList = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/admin/agents/${other}/questions`,
        headers: tenant.auth,
      });
      return ZQuestionPage.parse(res.json()).data;
    };
    const session = await initSession(t, other);
    const first = await askWidget(t, session.token, 'How long is the lantern warranty?');
    const down = (message_id: string | null) =>
      widgetCall(t, 'POST', '/v1/widget/satisfaction', session.token, { rating: 'down', message_id });
    assert.equal((await down(first.message_id)).statusCode, 200);
    const [named] = await otherList();
    assert.ok(named && named.chunks.length > 0);
    assert.ok(named.chunks.every((chunk) => chunk.title === 'Warranty page'));
    const resolved = expectData(
      await post(`/api/v1/admin/agents/${other}/questions/${named.id}/resolve`, {}),
      200,
      ZAgentQuestion,
    );
    assert.deepEqual(resolved.chunks, named.chunks);

    const second = await askWidget(t, session.token, 'Is the lantern warranty five years?');
    assert.equal((await down(second.message_id)).statusCode, 200);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/sources/${sourceId}`,
      headers: tenant.auth,
    });
    assert.equal(removed.statusCode, 204, removed.body);
    const gone = (await otherList()).find((row) => row.question === 'Is the lantern warranty five years?');
    assert.ok(gone && gone.chunks.length > 0, 'the scores stay');
    assert.ok(gone.chunks.every((chunk) => chunk.title === null && chunk.url === null));
  });

  test('bad input is 422 and changes nothing; other tenants get 404', async () => {
    const session = await initSession(t, agentId);
    await askWidget(t, session.token, 'Where is the moon shop?');
    const row = (await list('?status=open')).data.find((q) => q.question === 'Where is the moon shop?');
    assert.ok(row);
    const bad = await t.app.inject({ method: 'GET', url: `${base()}?reason=nope`, headers: tenant.auth });
    expectValidation(bad, []);
    expectValidation(await post(`${base()}/${row.id}/correction`, { answer: '' }), []);
    expectValidation(await post(`${base()}/${row.id}/correction`, { answer: 'a'.repeat(4001) }), []);
    expectValidation(await post(`${base()}/${row.id}/kb-article`, { title: 'x' }), []);
    expectValidation(await post(`${base()}/${row.id}/resolve`, { status: 'resolved' }), []);
    const other = await seedTenant(t, 'Other');
    expectError(await t.app.inject({ method: 'GET', url: base(), headers: other.auth }), 404, 'not_found');
    expectError(await post(`${base()}/${row.id}/resolve`, {}, other), 404, 'not_found');
    const { agentId: theirs } = await createWidgetAgent(t, {}, other);
    const theirBase = `/api/v1/admin/agents/${theirs}/questions`;
    expectError(await post(`${theirBase}/${row.id}/resolve`, {}, other), 404, 'not_found');
    expectError(await post(`${theirBase}/${row.id}/correction`, { answer: 'x' }, other), 404, 'not_found');
    const still = (await list('?status=open')).data.find((q) => q.id === row.id);
    assert.equal(still?.status, 'open', 'nothing changed');
    assert.equal(
      await t.database.db
        .selectFrom('answer_corrections')
        .select('id')
        .where('agent_id', '=', theirs)
        .executeTakeFirst(),
      undefined,
    );
  });
});
