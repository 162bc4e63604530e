import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { API_TOKEN_PREFIX, ZAgent, ZApiToken, ZApiTokenCreated } from '@service/contract';
import {
  bearer,
  columnText,
  expectData,
  expectError,
  expectPage,
  expectValidation,
  UNAUTHENTICATED_BODY,
} from './support/http.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const TOKENS = '/api/v1/admin/tokens';

describe('admin API: tokens', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Tokens');
    other = await seedTenant(t, 'Other Tokens');
  });
  after(() => t.close());

  async function issue(tenant: Tenant, body: unknown = { name: 'Site', abilities: ['wp:integration'] }) {
    const res = await injectJson(t.app, 'POST', TOKENS, body, tenant.auth);
    assert.equal(res.headers['cache-control'], 'no-store');
    return expectData(res, 201, ZApiTokenCreated);
  }

  test('issues a token once: plaintext and signing secret in the answer, only a hash stored', async () => {
    const created = await issue(acme, { name: ' Shop plugin ', abilities: ['wp:integration', 'admin'] });
    assert.ok(created.token.startsWith(API_TOKEN_PREFIX), created.token);
    assert.ok(created.token.length > API_TOKEN_PREFIX.length + 20);
    assert.equal(created.name, 'Shop plugin');
    assert.deepEqual(created.abilities, ['wp:integration', 'admin']);
    assert.ok(created.token.startsWith(created.token_prefix));
    assert.ok(created.token_prefix.length < created.token.length);
    assert.match(created.shopper_signing_secret, /^[0-9a-f]{64}$/);
    assert.equal(created.revoked_at, null);
    assert.equal(created.last_used_at, null);

    const rows = await t.database.db.selectFrom('api_tokens').selectAll().execute();
    const secretPart = created.token.slice(created.token_prefix.length);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const text = columnText(value);
        assert.ok(!text.includes(created.token), `api_tokens.${column} holds the plaintext`);
        assert.ok(!text.includes(secretPart), `api_tokens.${column} holds the secret part`);
      }
    }
    const row = rows.find((candidate) => candidate.id === created.id);
    assert.ok(row, 'the token row exists');
    assert.equal(row.token_hash, createHash('sha256').update(created.token, 'utf8').digest('hex'));
    assert.equal(row.workspace_id, acme.workspace.id);
    assert.equal(row.shopper_signing_secret, created.shopper_signing_secret);
    assert.equal(row.created_by_user_id, acme.user.id);

    const audit = await t.database.db.selectFrom('audit_logs').selectAll().execute();
    for (const entry of audit) assert.ok(!JSON.stringify(entry).includes(created.token));
  });

  test('GET /tokens never shows the plaintext, the hash or the signing secret', async () => {
    const created = await issue(acme);
    const stored = await t.database.db
      .selectFrom('api_tokens')
      .select('token_hash')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const res = await t.app.inject({ url: TOKENS, headers: acme.auth });
    assert.equal(res.statusCode, 200);
    for (const secret of [
      created.token,
      stored.token_hash,
      created.shopper_signing_secret,
      acme.admin_token,
    ]) {
      assert.ok(!res.body.includes(secret), 'list leaks a secret');
    }
    assert.doesNotMatch(res.body, /"token"\s*:/);
    assert.doesNotMatch(res.body, /token_hash|shopper_signing_secret/);
    const list = expectPage(res, 200, ZApiToken.strict());
    assert.ok(list.some((token) => token.id === created.id));
    const otherList = expectPage(await t.app.inject({ url: TOKENS, headers: other.auth }), 200, ZApiToken);
    assert.ok(!otherList.some((token) => token.id === created.id), 'another workspace sees the token');
    assert.equal(otherList.length, 1);
  });

  test('a new admin token works as a bearer and marks last_used_at', async () => {
    const created = await issue(acme, { name: 'Second admin', abilities: ['admin'] });
    const res = await t.app.inject({ url: '/api/v1/admin/agents', headers: bearer(created.token) });
    expectPage(res, 200, ZAgent);
    const row = await t.database.db
      .selectFrom('api_tokens')
      .select('last_used_at')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.last_used_at instanceof Date);
    const lowercase = await t.app.inject({
      url: '/api/v1/admin/agents',
      headers: { authorization: `bearer ${created.token}` },
    });
    assert.equal(lowercase.statusCode, 200);
  });

  test('revoking makes the token 401; revoking twice is fine and keeps the first revoked_at', async () => {
    const created = await issue(acme, { name: 'Short lived', abilities: ['admin'] });
    const first = expectData(
      await t.app.inject({ method: 'DELETE', url: `${TOKENS}/${created.id}`, headers: acme.auth }),
      200,
      ZApiToken.strict(),
    );
    assert.equal(first.id, created.id);
    assert.ok(first.revoked_at !== null);
    const denied = await t.app.inject({ url: '/api/v1/admin/agents', headers: bearer(created.token) });
    assert.equal(denied.statusCode, 401);
    assert.equal(denied.body, UNAUTHENTICATED_BODY);

    const second = expectData(
      await t.app.inject({ method: 'DELETE', url: `${TOKENS}/${created.id}`, headers: acme.auth }),
      200,
      ZApiToken,
    );
    assert.equal(second.revoked_at, first.revoked_at);
    const revokedAudit = await t.database.db
      .selectFrom('audit_logs')
      .select('id')
      .where('action', '=', 'token.revoked')
      .where('target_id', '=', created.id)
      .execute();
    assert.equal(revokedAudit.length, 1);
  });

  test('a token can revoke itself, after which it is refused', async () => {
    const created = await issue(acme, { name: 'Self', abilities: ['admin'] });
    const res = await t.app.inject({
      method: 'DELETE',
      url: `${TOKENS}/${created.id}`,
      headers: bearer(created.token),
    });
    assert.equal(res.statusCode, 200, res.body);
    const after = await t.app.inject({ url: TOKENS, headers: bearer(created.token) });
    assert.equal(after.statusCode, 401);
  });

  test("another workspace's token is a 404 to revoke, and stays usable", async () => {
    const theirs = await issue(other, { name: 'Theirs', abilities: ['admin'] });
    expectError(
      await t.app.inject({ method: 'DELETE', url: `${TOKENS}/${theirs.id}`, headers: acme.auth }),
      404,
      'not_found',
    );
    expectError(
      await t.app.inject({ method: 'DELETE', url: `${TOKENS}/01NOSUCHTOKEN`, headers: acme.auth }),
      404,
      'not_found',
    );
    const row = await t.database.db
      .selectFrom('api_tokens')
      .select('revoked_at')
      .where('id', '=', theirs.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.revoked_at, null);
    assert.equal((await t.app.inject({ url: TOKENS, headers: bearer(theirs.token) })).statusCode, 200);
  });

  test('duplicate abilities collapse to one', async () => {
    const created = await issue(acme, { name: 'Dupes', abilities: ['admin', 'admin', 'wp:integration'] });
    assert.deepEqual(created.abilities, ['admin', 'wp:integration']);
  });

  const invalid: Array<[string, unknown, string]> = [
    ['an unknown ability', { name: 'X', abilities: ['superuser'] }, 'abilities.0'],
    ['an empty ability list', { name: 'X', abilities: [] }, 'abilities'],
    ['missing abilities', { name: 'X' }, 'abilities'],
    ['abilities as a string', { name: 'X', abilities: 'admin' }, 'abilities'],
    ['an empty name', { name: ' ', abilities: ['admin'] }, 'name'],
    ['a long name', { name: 'n'.repeat(101), abilities: ['admin'] }, 'name'],
    ['a chosen token_hash', { name: 'X', abilities: ['admin'], token_hash: 'abc' }, 'token_hash'],
    ['a chosen workspace_id', { name: 'X', abilities: ['admin'], workspace_id: 'w' }, 'workspace_id'],
    [
      'a chosen signing secret',
      { name: 'X', abilities: ['admin'], shopper_signing_secret: 's' },
      'shopper_signing_secret',
    ],
  ];
  for (const [label, body, field] of invalid) {
    test(`POST /tokens rejects ${label} (errors.${field}) and issues nothing`, async () => {
      const count = async () => (await t.database.db.selectFrom('api_tokens').select('id').execute()).length;
      const before = await count();
      expectValidation(await injectJson(t.app, 'POST', TOKENS, body, acme.auth), [field]);
      assert.equal(await count(), before);
    });
  }
});
