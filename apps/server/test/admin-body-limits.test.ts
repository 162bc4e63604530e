import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KB_ARTICLE_BODY_MAX_CHARS, TEXT_SOURCE_MAX_CHARS, ZKbArticle, ZSource } from '@service/contract';
import { KB_ARTICLE_BODY_LIMIT, SOURCE_CREATE_BODY_LIMIT } from '../src/http/body-limits.js';
import { expectData, expectError, expectValidation } from './support/http.js';
import { KB_ARTICLES } from './support/kb.js';
import { documentsOfSource } from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

/** A JSON string of `count` euro signs, every one written as the escape `\u20ac` (6 bytes). */
function escapedEuros(count: number): string {
  return `"${'\\u20ac'.repeat(count)}"`;
}

/** `json` followed by spaces (valid JSON whitespace) up to exactly `bytes` bytes. */
function padTo(json: string, bytes: number): string {
  const length = Buffer.byteLength(json);
  assert.ok(length <= bytes, `${length} bytes is already over ${bytes}`);
  return json + ' '.repeat(bytes - length);
}

describe('admin API: body limits per route', () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme');
    agentId = (await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Bot' }, acme.auth)).json()
      .data.id;
  });
  after(() => t.close());

  const post = (url: string, payload: string, method: 'POST' | 'PATCH' = 'POST') =>
    t.app.inject({
      method,
      url,
      headers: { ...acme.auth, 'content-type': 'application/json' },
      payload,
    });
  const sourcesUrl = () => `/api/v1/admin/agents/${agentId}/sources`;

  test('the limits admit the documented maxima in the worst JSON encoding', () => {
    assert.equal(SOURCE_CREATE_BODY_LIMIT, 12_065_536);
    assert.equal(KB_ARTICLE_BODY_LIMIT, 3_065_536);
    assert.ok(SOURCE_CREATE_BODY_LIMIT > 6 * TEXT_SOURCE_MAX_CHARS);
    assert.ok(KB_ARTICLE_BODY_LIMIT > 6 * KB_ARTICLE_BODY_MAX_CHARS);
    assert.equal(t.config.bodyLimitBytes, 1_048_576, 'every other route keeps the 1 MiB default');
  });

  test('a 2,000,000-character multibyte text source is accepted, every character escaped', async () => {
    const payload = `{"type":"text","name":"Euros","text":${escapedEuros(TEXT_SOURCE_MAX_CHARS)}}`;
    assert.ok(Buffer.byteLength(payload) > 12_000_000);
    const source = expectData(await post(sourcesUrl(), payload), 201, ZSource);
    assert.equal(source.status, 'indexing');
    const [doc] = await documentsOfSource(t, source.id);
    assert.equal(doc?.content_text.length, TEXT_SOURCE_MAX_CHARS);
    assert.equal(doc?.content_text, '€'.repeat(TEXT_SOURCE_MAX_CHARS));
  });

  test('the same text as raw UTF-8 is accepted; one character more is a 422, not a 413', async () => {
    const raw = (count: number) => JSON.stringify({ type: 'text', text: 'é'.repeat(count) });
    const fits = expectData(await post(sourcesUrl(), raw(TEXT_SOURCE_MAX_CHARS)), 201, ZSource);
    assert.equal((await documentsOfSource(t, fits.id))[0]?.content_text.length, TEXT_SOURCE_MAX_CHARS);
    expectValidation(await post(sourcesUrl(), raw(TEXT_SOURCE_MAX_CHARS + 1)), ['text']);
    const escaped = `{"type":"text","text":${escapedEuros(TEXT_SOURCE_MAX_CHARS + 1)}}`;
    expectValidation(await post(sourcesUrl(), escaped), ['text']);
  });

  test('a source body of exactly the limit is read; one byte more is a 413', async () => {
    const json = JSON.stringify({ type: 'text', name: 'Padded', text: 'Opening hours: nine to five.' });
    const exact = await post(sourcesUrl(), padTo(json, SOURCE_CREATE_BODY_LIMIT));
    assert.equal(expectData(exact, 201, ZSource).name, 'Padded');
    const over = await post(sourcesUrl(), padTo(json, SOURCE_CREATE_BODY_LIMIT + 1));
    expectError(over, 413, 'payload_too_large');
    const sources = await t.database.db
      .selectFrom('sources')
      .select('id')
      .where('agent_id', '=', agentId)
      .where('name', '=', 'Padded')
      .execute();
    assert.equal(sources.length, 1, 'the refused body stored nothing');
  });

  test('a 500,000-character article body is accepted escaped; one more is a 422', async () => {
    const body = (count: number) =>
      `{"title":"Euro guide","body_markdown":${escapedEuros(count)},"is_published":false}`;
    const article = expectData(await post(KB_ARTICLES, body(KB_ARTICLE_BODY_MAX_CHARS)), 201, ZKbArticle);
    assert.equal(article.body_markdown.length, KB_ARTICLE_BODY_MAX_CHARS);
    expectValidation(await post(KB_ARTICLES, body(KB_ARTICLE_BODY_MAX_CHARS + 1)), ['body_markdown']);
    const patch = `{"body_markdown":${escapedEuros(KB_ARTICLE_BODY_MAX_CHARS)}}`;
    const patched = await post(`${KB_ARTICLES}/${article.id}`, patch, 'PATCH');
    assert.equal(expectData(patched, 200, ZKbArticle).body_markdown, '€'.repeat(KB_ARTICLE_BODY_MAX_CHARS));
  });

  test('an article body of exactly the limit is read; one byte more is a 413, on create and update', async () => {
    const json = JSON.stringify({ title: 'Padded article', body_markdown: 'Hello.' });
    expectData(await post(KB_ARTICLES, padTo(json, KB_ARTICLE_BODY_LIMIT)), 201, ZKbArticle);
    expectError(await post(KB_ARTICLES, padTo(json, KB_ARTICLE_BODY_LIMIT + 1)), 413, 'payload_too_large');
    const article = expectData(
      await post(KB_ARTICLES, JSON.stringify({ title: 'Short', body_markdown: '' })),
      201,
      ZKbArticle,
    );
    const update = JSON.stringify({ body_markdown: 'Changed.' });
    const url = `${KB_ARTICLES}/${article.id}`;
    expectData(await post(url, padTo(update, KB_ARTICLE_BODY_LIMIT), 'PATCH'), 200, ZKbArticle);
    expectError(await post(url, padTo(update, KB_ARTICLE_BODY_LIMIT + 1), 'PATCH'), 413, 'payload_too_large');
  });

  test('other routes keep BODY_LIMIT_BYTES: exactly 1 MiB is read, one byte more is a 413', async () => {
    const json = JSON.stringify({ name: 'Padded agent' });
    const exact = await post('/api/v1/admin/agents', padTo(json, t.config.bodyLimitBytes));
    assert.equal(exact.statusCode, 201, exact.body);
    const over = await post('/api/v1/admin/agents', padTo(json, t.config.bodyLimitBytes + 1));
    expectError(over, 413, 'payload_too_large');
    // A source update carries one URL: the large limit of source creation is not its limit.
    const [source] = await t.database.db
      .selectFrom('sources')
      .select('id')
      .where('agent_id', '=', agentId)
      .execute();
    assert.ok(source);
    const patch = padTo(
      JSON.stringify({ plugin_base: 'https://shop.example.com/' }),
      t.config.bodyLimitBytes + 1,
    );
    expectError(await post(`/api/v1/admin/sources/${source.id}`, patch, 'PATCH'), 413, 'payload_too_large');
  });
});
