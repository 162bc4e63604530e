import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgent } from '@service/contract';
import type { InjectOptions } from 'fastify';
import { expectData, expectError, expectValidation, UNAUTHENTICATED_BODY } from './support/http.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const AGENTS = '/api/v1/admin/agents';

describe('request errors', () => {
  let t: TestApp;
  let acme: Tenant;

  const agentCount = async () => (await t.database.db.selectFrom('agents').select('id').execute()).length;
  const post = (payload: string, contentType: string | null, url = AGENTS) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: contentType === null ? acme.auth : { ...acme.auth, 'content-type': contentType },
      payload,
    });

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Errors');
  });
  after(() => t.close());

  test('malformed JSON is a 400 malformed_json', async () => {
    for (const payload of ['{"name": ', '{name: "x"}', "{'name':'x'}", '{"name":"x"}}', 'undefined']) {
      const body = expectError(await post(payload, 'application/json'), 400, 'malformed_json');
      assert.deepEqual(body.errors, {});
    }
    assert.equal(await agentCount(), 0);
  });

  test('prototype pollution attempts are a 400, not a 500, and pollute nothing', async () => {
    for (const payload of [
      '{"name":"P","__proto__":{"polluted":1}}',
      '{"__proto__": {"x": 1}}',
      '{"name":"P","constructor":{"prototype":{"polluted":1}}}',
      '{"name":"P","theme":{"__proto__":{"radius":1}}}',
    ]) {
      expectError(await post(payload, 'application/json'), 400, 'malformed_json');
    }
    assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false);
    assert.equal(await agentCount(), 0);
  });

  test('a JSON content type with an empty body is a 400', async () => {
    expectError(await post('', 'application/json'), 400, 'malformed_json');
    expectError(await post('', 'application/json; charset=utf-8'), 400, 'malformed_json');
  });

  test('bodies that are JSON but not an object are a 422 on the body', async () => {
    for (const payload of ['null', '[]', '"name"', '42', 'true']) {
      const body = expectError(await post(payload, 'application/json'), 422, 'validation_failed');
      assert.ok(Object.keys(body.errors).length > 0, payload);
    }
    assert.equal(await agentCount(), 0);
  });

  test('non-JSON content types are a 415 unsupported_media_type', async () => {
    for (const contentType of [
      'text/plain',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      const body = expectError(await post('name=x', contentType), 415, 'unsupported_media_type');
      assert.deepEqual(body.errors, {}, contentType);
    }
    expectError(await post('{"name":"x"}', null), 415, 'unsupported_media_type');
    assert.equal(await agentCount(), 0);
  });

  test('a JSON body with a charset is accepted', async () => {
    const res = await post('{"name":"Charset"}', 'application/json; charset=utf-8');
    expectData(res, 201, ZAgent);
  });

  test('unknown routes and methods are a 404 envelope, with or without a token', async () => {
    const cases: InjectOptions[] = [
      { method: 'GET', url: '/nope' },
      { method: 'GET', url: '/api/v1/admin/nope' },
      { method: 'PUT', url: AGENTS },
      { method: 'POST', url: '/api/v1/admin/me' },
      { method: 'GET', url: '/api/v2/admin/agents' },
    ];
    for (const item of cases) {
      for (const headers of [{}, acme.auth]) {
        const res = await t.app.inject({ ...item, headers });
        const body = expectError(res, 404, 'not_found');
        assert.deepEqual(body, { message: 'Not found.', code: 'not_found', errors: {} });
      }
    }
  });

  test('a URL that does not decode is a 400 envelope, not a framework body', async () => {
    for (const url of [`${AGENTS}/%E0%A4%A`, `${AGENTS}/%zz`]) {
      const res = await t.app.inject({ method: 'GET', url, headers: acme.auth });
      const body = expectError(res, 400, 'bad_request');
      assert.deepEqual(body.errors, {});
      assert.ok(res.headers['x-request-id'], 'the answer carries a request id');
    }
  });

  test('an over-long path parameter is a 422 on the id, or a 400 past the router limit', async () => {
    for (const length of [65, 150, 200]) {
      const res = await t.app.inject({ url: `${AGENTS}/${'a'.repeat(length)}`, headers: acme.auth });
      expectValidation(res, ['id']);
    }
    const res = await t.app.inject({ url: `${AGENTS}/${'a'.repeat(201)}`, headers: acme.auth });
    assert.deepEqual(expectError(res, 400, 'bad_request').errors, {});
  });

  test('field errors use dotted paths and the message summarises them', async () => {
    const res = await injectJson(
      t.app,
      'POST',
      AGENTS,
      { name: '', theme: { primary: 'red' }, allowed_origins: ['https://ok.example', 'nope'], extra: 1 },
      acme.auth,
    );
    const body = expectValidation(res, ['name', 'theme.primary', 'allowed_origins.1', 'extra']);
    assert.match(body.message, /and \d+ more errors?\)$/);
  });
});

describe('request body limit', () => {
  let t: TestApp;
  let acme: Tenant;

  before(async () => {
    t = await createTestApp({ env: { BODY_LIMIT_BYTES: '2048' } });
    acme = await seedTenant(t, 'Acme Limits');
  });
  after(() => t.close());

  test('a body over BODY_LIMIT_BYTES is a 413 payload_too_large and nothing is stored', async () => {
    const res = await injectJson(
      t.app,
      'POST',
      AGENTS,
      { name: 'Big', system_prompt: 'x'.repeat(3000) },
      acme.auth,
    );
    const body = expectError(res, 413, 'payload_too_large');
    assert.deepEqual(body.errors, {});
    const rows = await t.database.db.selectFrom('agents').select('id').execute();
    assert.equal(rows.length, 0);
  });

  test('a body under the limit is accepted', async () => {
    const res = await injectJson(
      t.app,
      'POST',
      AGENTS,
      { name: 'Fits', system_prompt: 'x'.repeat(1500) },
      acme.auth,
    );
    const agent = expectData(res, 201, ZAgent);
    assert.equal(agent.system_prompt.length, 1500);
  });

  test('an oversized body without a token is still a 401', async () => {
    const res = await injectJson(t.app, 'POST', AGENTS, { name: 'Big', system_prompt: 'x'.repeat(3000) });
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, UNAUTHENTICATED_BODY);
  });
});
