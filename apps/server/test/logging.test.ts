import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZApiTokenCreated } from '@service/contract';
import { z } from 'zod';
import { createLogger } from '../src/logger.js';
import { bearer, expectData } from './support/http.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery';
const ZLine = z.looseObject({ level: z.number(), msg: z.string().optional(), reqId: z.string().optional() });

describe('logging', () => {
  const chunks: string[] = [];
  let t: TestApp;
  let acme: Tenant;
  let issued: z.infer<typeof ZApiTokenCreated>;

  const text = () => chunks.join('');
  const lines = () =>
    text()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => ZLine.parse(JSON.parse(line)));

  before(async () => {
    const logger = createLogger('trace', { write: (chunk: string) => void chunks.push(chunk) });
    t = await createTestApp({ logger, env: { LOG_LEVEL: 'trace' } });
    acme = await seedTenant(t, 'Acme Logs');
    const headers = (id: string) => ({ ...acme.auth, 'x-request-id': id });

    assert.equal(
      (await t.app.inject({ url: '/api/v1/admin/agents', headers: headers('log-list') })).statusCode,
      200,
    );
    issued = expectData(
      await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/tokens',
        { name: 'Logged', abilities: ['admin', 'wp:integration'] },
        headers('log-issue'),
      ),
      201,
      ZApiTokenCreated,
    );
    const asNew = await t.app.inject({
      url: '/api/v1/admin/me',
      headers: { ...bearer(issued.token), 'x-request-id': 'log-new-token' },
    });
    assert.equal(asNew.statusCode, 200);
    // Secrets in places a careless logger might echo: a rejected body, a refused credential.
    const rejected = await injectJson(
      t.app,
      'PATCH',
      '/api/v1/admin/me',
      { email: PASSWORD, password: PASSWORD, token: issued.token },
      headers('log-rejected'),
    );
    assert.equal(rejected.statusCode, 422);
    const basic = await t.app.inject({
      url: '/api/v1/admin/agents',
      headers: { authorization: `Basic ${acme.admin_token}`, 'x-request-id': 'log-basic' },
    });
    assert.equal(basic.statusCode, 401);
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/tokens',
      headers: { ...headers('log-malformed'), 'content-type': 'application/json' },
      payload: `{"name": "${issued.shopper_signing_secret}", `,
    });
    assert.equal(malformed.statusCode, 400);
  });
  after(() => t.close());

  test('something was logged, as JSON lines', () => {
    const parsed = lines();
    assert.ok(parsed.length >= 12, `only ${parsed.length} lines`);
  });

  test('no secret reaches the log', () => {
    const log = text();
    const secrets: Array<[string, string]> = [
      ['the bootstrap admin token', acme.admin_token],
      ['the issued token', issued.token],
      ['the secret part of the issued token', issued.token.slice(issued.token_prefix.length)],
      ['the signing secret', issued.shopper_signing_secret],
      ['the password', PASSWORD],
    ];
    for (const [label, secret] of secrets) assert.ok(!log.includes(secret), `${label} is in the log`);
    assert.doesNotMatch(log, /svc_[A-Za-z0-9_-]{20,}/, 'something token-shaped is in the log');
  });

  test('request log lines carry the request id', () => {
    const parsed = lines();
    for (const id of [
      'log-list',
      'log-issue',
      'log-new-token',
      'log-rejected',
      'log-basic',
      'log-malformed',
    ]) {
      const mine = parsed.filter((line) => line.reqId === id);
      const messages = mine.map((line) => line.msg);
      assert.ok(messages.includes('incoming request'), `${id}: ${JSON.stringify(messages)}`);
      assert.ok(messages.includes('request completed'), `${id}: ${JSON.stringify(messages)}`);
    }
    for (const line of parsed) {
      if (
        line.msg === 'incoming request' ||
        line.msg === 'request completed' ||
        line.msg === 'request rejected'
      ) {
        assert.equal(typeof line.reqId, 'string', JSON.stringify(line));
      }
    }
  });

  test('rejections are logged with their code, not their input', () => {
    const parsed = lines();
    const rejected = parsed.find((line) => line.reqId === 'log-rejected' && line.msg === 'request rejected');
    assert.ok(rejected, 'the 422 is logged');
    assert.equal(rejected.code, 'validation_failed');
    assert.equal(rejected.status, 422);
    const refused = parsed.find((line) => line.reqId === 'log-basic' && line.msg === 'request rejected');
    assert.equal(refused?.code, 'unauthenticated');
  });

  test('request headers, if logged at all, have the authorization redacted', () => {
    for (const line of lines()) {
      const headers = z
        .object({ req: z.object({ headers: z.record(z.string(), z.unknown()) }) })
        .safeParse(line);
      if (headers.success && 'authorization' in headers.data.req.headers) {
        assert.equal(headers.data.req.headers.authorization, '[redacted]');
      }
    }
  });
});
