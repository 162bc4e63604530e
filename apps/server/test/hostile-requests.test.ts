import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { seedAgent, seedConversation } from './support/conversations.js';
import { expectError, expectValidation } from './support/http.js';
import { rowCounts } from './support/row-counts.js';
import { createSite, type Site, UNTHROTTLED } from './support/site-sync.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import { multipartBody } from './support/upload-files.js';

// Hostile bytes in the places hostile-text.test.ts's sweep of the OpenAPI document does not reach:
// bytes that are not UTF-8 in a path or query, forged list cursors, multipart field and file names,
// and the widget init body (refused before its origin is looked at).

describe('hostile requests: bad bytes, forged cursors and multipart names are 404/422, never 500', () => {
  let t: TestApp;
  let site: Site;

  /** Sends one request as the site owner's admin token. */
  function send(method: string, url: string): Promise<LightMyRequestResponse> {
    return t.app.inject({ method: method as 'GET', url, headers: site.tenant.auth });
  }

  /** POSTs a multipart body (the upload route parses nothing else) as the admin. */
  function uploadTo(url: string, body: ReturnType<typeof multipartBody>): Promise<LightMyRequestResponse> {
    return t.app.inject({
      method: 'POST',
      url,
      headers: { ...site.tenant.auth, ...body.headers },
      payload: body.payload,
    });
  }

  before(async () => {
    t = await createTestApp({ env: { ...UNTHROTTLED } });
    site = await createSite(t, { is_published: true });
  });
  after(() => t.close());

  // A lone surrogate has no UTF-8 form: its would-be bytes are refused in a path and read as
  // U+FFFD in a query (which is storable), so neither reaches the database as a lone surrogate.
  test('bytes that do not decode as UTF-8 in a path or query are never a 500', async () => {
    for (const url of [
      '/api/v1/admin/agents/%ED%A0%80',
      '/kb/%ED%A0%80',
      '/api/v1/admin/leads?agent_id=%ED%A0%80',
      '/api/v1/admin/conversations?cursor=%ED%A0%80',
    ]) {
      const res = await send('GET', url);
      assert.ok(res.statusCode < 500, `${url}: ${res.statusCode} ${res.body}`);
      if (!url.includes('?')) assert.ok(res.statusCode >= 400, `${url}: ${res.statusCode}`);
    }
  });

  test('inbox and lead cursors: only what a previous page handed out', async () => {
    const workspaceId = site.tenant.workspace.id;
    const agentId = await seedAgent(t, workspaceId);
    for (let i = 0; i < 2; i += 1) await seedConversation(t, { workspaceId, agentId, messages: [] });
    const first = await send('GET', '/api/v1/admin/conversations?limit=1');
    const next = z.object({ meta: z.object({ next_cursor: z.string() }) }).parse(first.json())
      .meta.next_cursor;
    assert.equal((await send('GET', `/api/v1/admin/conversations?limit=1&cursor=${next}`)).statusCode, 200);
    const [stamp, id] = z
      .tuple([z.string(), z.string()])
      .parse(JSON.parse(Buffer.from(next, 'base64url').toString()));
    const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const time = stamp.slice(10);
    const bad = {
      'month 13': cursorOf([`2026-13-01${time}`, id]),
      'February 30': cursorOf([`2026-02-30${time}`, id]),
      'year 0': cursorOf([`0000-01-01${time}`, id]),
      'hour 24': cursorOf([`2026-01-01T24:00:00.000000`, id]),
      'NaN date': cursorOf(['NaN', id]),
      'NUL in the id': cursorOf([stamp, `${id.slice(0, 25)}\u0000`]),
      'lone surrogate in the id': cursorOf([stamp, `${id.slice(0, 25)}\ud800`]),
      'not an id': cursorOf([stamp, 'zzz']),
      'garbage base64': '!!!not-base64!!!',
      'base64 of non-JSON': Buffer.from('\u0000\u0001').toString('base64url'),
    };
    for (const [what, cursor] of Object.entries(bad)) {
      const res = await send('GET', `/api/v1/admin/conversations?cursor=${encodeURIComponent(cursor)}`);
      assert.notEqual(res.statusCode, 500, `${what}: ${res.body}`);
      expectValidation(res, ['cursor']);
    }
    // The edge of the valid range: year 1 and year 9999 are real instants.
    for (const year of ['0001', '9999']) {
      const res = await send(
        'GET',
        `/api/v1/admin/conversations?cursor=${cursorOf([`${year}-01-01${time}`, id])}`,
      );
      assert.equal(res.statusCode, 200, `${year}: ${res.body}`);
    }
    for (const cursor of ['zzz', `${id.slice(0, 25)}%00`, id.toLowerCase()]) {
      const res = await send('GET', `/api/v1/admin/leads?cursor=${cursor}`);
      assert.notEqual(res.statusCode, 500, res.body);
      expectValidation(res, ['cursor']);
    }
    assert.equal((await send('GET', `/api/v1/admin/leads?cursor=${id}`)).statusCode, 200);
  });

  test('multipart uploads: NUL in a field name or a file name is not a 500', async () => {
    const before = await rowCounts(t);
    const url = `/api/v1/admin/agents/${site.agentId}/uploads`;
    const upload = (body: ReturnType<typeof multipartBody>) => uploadTo(url, body);
    const field = await upload(multipartBody([{ name: 'a.txt', bytes: 'hello', field: 'fi\u0000le' }]));
    const envelope = expectError(field, 422, 'validation_failed');
    assert.ok(!JSON.stringify(envelope).includes('\\u0000'));
    const binary = await upload(multipartBody([{ name: 'a.txt', bytes: 'hel\u0000lo' }]));
    expectValidation(binary, ['file']);
    assert.deepEqual(await rowCounts(t), before);
    // A file name is cleaned, not refused: control characters go, the rest is kept.
    const named = await upload(multipartBody([{ name: 'no\u0000tes.txt', bytes: 'Opening hours: 9 to 5.' }]));
    assert.equal(named.statusCode, 201, named.body);
    const source = z.object({ data: z.array(z.object({ name: z.string() })) }).parse(named.json()).data[0];
    assert.equal(source?.name.includes('\u0000'), false);
  });

  test('the widget init body is refused before anything else is looked at (no auth needed)', async () => {
    const res = await injectJson(t.app, 'POST', '/v1/widget/init', { agent_id: '\u0000', anon_id: '\ud800' });
    assert.equal(res.statusCode, 422, res.body);
    expectValidation(res, ['agent_id', 'anon_id']);
  });
});
