import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ZLlmKey } from '@service/contract';
import { resolveProvider } from '../src/chat/llm-providers.js';
import { DATA_COMMANDS } from '../src/cli/commands.js';
import { LlmError, type LlmProvider } from '../src/llm/llm-provider.js';
import { createLogger } from '../src/logger.js';
import { createSecretKeyring } from '../src/security/secret-keyring.js';
import { activeLlmKey } from '../src/services/accounts/llm-keys.js';
import { resealSecrets } from '../src/services/sealed-secrets.js';
import { type FakeLlm, startFakeLlm } from './support/fake-llm.js';
import { auditRows, columnText, expectData, expectError, expectValidation } from './support/http.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

const URL_KEY = '/api/v1/admin/llm-key';
const OPENAI_KEY = 'sk-workspace-openai-1234WXYZ';
const ANTHROPIC_KEY = 'sk-ant-workspace-9876ABCD';

describe('BYOK: the workspace model key', () => {
  let fake: FakeLlm;
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;

  before(async () => {
    fake = await startFakeLlm({ script: [{ kind: 'text', chunks: ['answer'] }] });
    t = await createTestApp({
      env: {
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: fake.openAiBaseUrl,
        LLM_API_KEY: 'sk-server-key',
        LLM_MODEL: 'server-model',
      },
    });
    acme = await seedTenant(t, 'Acme BYOK');
    other = await seedTenant(t, 'Other BYOK');
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const setByok = (tenant: Tenant, enabled: boolean) =>
    t.database.db
      .updateTable('users')
      .set({ byok_enabled: enabled })
      .where('id', '=', tenant.user.id)
      .execute();
  const put = (tenant: Tenant, body: unknown) => injectJson(t.app, 'PUT', URL_KEY, body, tenant.auth);
  const resolve = (tenant: Tenant, fetch?: typeof globalThis.fetch) =>
    resolveProvider({
      db: t.database.db,
      config: t.config,
      workspaceId: tenant.workspace.id,
      ...(fetch ? { fetch } : {}),
    });
  /** Streams one answer and returns the Authorization header the upstream saw. */
  async function authorizationSeen(provider: LlmProvider | null): Promise<string | undefined> {
    assert.ok(provider, 'a provider');
    const before = fake.requests.length;
    for await (const _event of provider.stream({
      system: 'S',
      messages: [{ role: 'user', content: 'hi' }],
    })) {
      // drain
    }
    assert.equal(fake.requests.length, before + 1);
    return fake.requests.at(-1)?.authorization;
  }

  test('without byok_enabled: PUT is 403, nothing is stored, the server key answers', async () => {
    expectError(await put(acme, { provider: 'openai', api_key: OPENAI_KEY }), 403, 'forbidden');
    const rows = await t.database.db.selectFrom('workspace_llm_keys').selectAll().execute();
    assert.equal(rows.length, 0);
    const provider = await resolve(acme);
    assert.equal(provider?.label, 'openai:server-model');
    assert.equal(await authorizationSeen(provider), 'Bearer sk-server-key');
  });

  test('with byok_enabled: the key is stored sealed, shown masked, audited, and used', async () => {
    await setByok(acme, true);
    const res = await put(acme, { provider: 'openai', api_key: OPENAI_KEY, model: 'gpt-4.1-mini' });
    assert.equal(res.headers['cache-control'], 'no-store');
    const shown = expectData(res, 200, ZLlmKey.strict());
    assert.deepEqual(
      { ...shown, updated_at: 'x' },
      { provider: 'openai', model: 'gpt-4.1-mini', key_last4: 'WXYZ', active: true, updated_at: 'x' },
    );
    assert.ok(!res.body.includes(OPENAI_KEY));

    const row = await t.database.db
      .selectFrom('workspace_llm_keys')
      .selectAll()
      .where('workspace_id', '=', acme.workspace.id)
      .executeTakeFirstOrThrow();
    for (const value of Object.values(row))
      assert.ok(!columnText(value).includes(OPENAI_KEY), 'stored in clear');
    assert.match(row.key_sealed, /^v1\./);

    const got = await t.app.inject({ url: URL_KEY, headers: acme.auth });
    assert.ok(!got.body.includes(OPENAI_KEY) && !got.body.includes('sk-workspace'));
    assert.equal(expectData(got, 200, ZLlmKey.strict()).key_last4, 'WXYZ');

    const audit = (await auditRows(t, acme.workspace.id)).filter((entry) => entry.action === 'llm_key.set');
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]?.metadata, { provider: 'openai', model: 'gpt-4.1-mini' });
    assert.equal(audit[0]?.actor_type, 'token');
    assert.ok(!JSON.stringify(audit).includes(OPENAI_KEY));

    // Same kind as the server provider: the operator's LLM_BASE_URL (here the fake) gets the workspace key.
    const provider = await resolve(acme);
    assert.equal(provider?.label, 'openai:gpt-4.1-mini');
    assert.equal(await authorizationSeen(provider), `Bearer ${OPENAI_KEY}`);
    assert.equal(fake.requests.at(-1)?.body.model, 'gpt-4.1-mini');
  });

  test("the owner's byok_enabled governs use: turned off, the server key answers again", async () => {
    await setByok(acme, false);
    const got = expectData(await t.app.inject({ url: URL_KEY, headers: acme.auth }), 200, ZLlmKey);
    assert.equal(got.active, false);
    assert.equal(await authorizationSeen(await resolve(acme)), 'Bearer sk-server-key');
    await setByok(acme, true);
    assert.equal(await authorizationSeen(await resolve(acme)), `Bearer ${OPENAI_KEY}`);
  });

  test('user:byok EMAIL off (the CLI): the next turn uses the server provider, setting a key is 403; on again restores it', async () => {
    const run = (state: 'on' | 'off') =>
      DATA_COMMANDS['user:byok'](
        { config: t.config, database: t.database, clock: t.clock, log: createLogger('silent') },
        { email: acme.user.email, state },
      );
    assert.equal(await authorizationSeen(await resolve(acme)), `Bearer ${OPENAI_KEY}`);
    const off = await run('off');
    assert.deepEqual([off.old, off.new], [true, false]);
    // The very next turn resolves its provider afresh: the server's key answers.
    assert.equal(await authorizationSeen(await resolve(acme)), 'Bearer sk-server-key');
    const refused = expectError(
      await put(acme, { provider: 'openai', api_key: 'sk-another-key-0000' }),
      403,
      'forbidden',
    );
    assert.deepEqual(refused.errors, {});
    // The refused PUT changed nothing: the stored key is still the one set before.
    const shown = expectData(await t.app.inject({ url: URL_KEY, headers: acme.auth }), 200, ZLlmKey);
    assert.deepEqual([shown.key_last4, shown.active], ['WXYZ', false]);
    const audit = (await auditRows(t, acme.workspace.id)).filter(
      (entry) => entry.action === 'user.byok_changed',
    );
    assert.deepEqual(
      audit.map((entry) => [entry.actor_type, entry.target_id, entry.metadata]),
      [['cli', acme.user.id, { old: true, new: false }]],
    );
    await run('on');
    assert.equal(await authorizationSeen(await resolve(acme)), `Bearer ${OPENAI_KEY}`);
  });

  test("another kind than the server's goes to the provider's public API, never a tenant-chosen URL", async () => {
    expectValidation(
      await put(acme, { provider: 'anthropic', api_key: ANTHROPIC_KEY, base_url: 'http://169.254.169.254' }),
      ['base_url'],
    );
    expectData(await put(acme, { provider: 'anthropic', api_key: ANTHROPIC_KEY }), 200, ZLlmKey);
    const urls: string[] = [];
    // No network: the injected fetch records where the SDK would connect and fails.
    const provider = await resolve(acme, async (input) => {
      urls.push(input instanceof Request ? input.url : String(input));
      return new Response('{"type":"error"}', {
        status: 500,
        headers: { 'content-type': 'application/json' },
      });
    });
    assert.equal(provider?.label, 'anthropic:claude-3-5-haiku-latest');
    await assert.rejects(
      async () => {
        for await (const _event of provider?.stream({ system: 'S', messages: [] }) ?? []) {
          // drain
        }
      },
      (error) => error instanceof LlmError && !error.hasStreamed,
    );
    assert.deepEqual(urls, ['https://api.anthropic.com/v1/messages']);
  });

  test('tenants are apart: another workspace sees 404 and keeps the server provider', async () => {
    expectError(await t.app.inject({ url: URL_KEY, headers: other.auth }), 404, 'not_found');
    expectError(
      await t.app.inject({ method: 'DELETE', url: URL_KEY, headers: other.auth }),
      404,
      'not_found',
    );
    assert.equal((await resolve(other))?.label, 'openai:server-model');
    expectError(await t.app.inject({ url: URL_KEY }), 401, 'unauthenticated');
    const plugin = await issueToken(t, acme, ['wp:integration']);
    const pluginAuth = { authorization: `Bearer ${plugin.token}` };
    expectError(await t.app.inject({ url: URL_KEY, headers: pluginAuth }), 403, 'forbidden');
    expectError(
      await injectJson(t.app, 'PUT', URL_KEY, { provider: 'openai', api_key: OPENAI_KEY }, pluginAuth),
      403,
      'forbidden',
    );
  });

  test('key:rotate re-seals the workspace key; the new APP_KEY opens it', async () => {
    const appKey = t.config.appKey;
    assert.ok(appKey);
    const next = randomBytes(32);
    const counts = await resealSecrets({ db: t.database.db, from: createSecretKeyring(appKey), to: next });
    assert.ok(counts.resealed >= 1);
    const opened = await activeLlmKey({
      db: t.database.db,
      keys: createSecretKeyring(next),
      workspaceId: acme.workspace.id,
    });
    assert.equal(opened?.apiKey, ANTHROPIC_KEY);
    // The old key alone no longer opens it: GET shows no last four, answers fall back to the server.
    const stale = await activeLlmKey({
      db: t.database.db,
      keys: createSecretKeyring(appKey),
      workspaceId: acme.workspace.id,
    });
    assert.equal(stale, null);
    const shown = expectData(await t.app.inject({ url: URL_KEY, headers: acme.auth }), 200, ZLlmKey);
    assert.equal(shown.key_last4, null);
  });

  test('DELETE removes the key (audited), then GET and DELETE are 404', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: URL_KEY, headers: acme.auth });
    assert.equal(res.statusCode, 204);
    expectError(await t.app.inject({ url: URL_KEY, headers: acme.auth }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'DELETE', url: URL_KEY, headers: acme.auth }), 404, 'not_found');
    const deleted = (await auditRows(t, acme.workspace.id)).filter(
      (entry) => entry.action === 'llm_key.deleted',
    );
    assert.equal(deleted.length, 1);
    assert.deepEqual(deleted[0]?.metadata, { provider: 'anthropic' });
    assert.equal((await resolve(acme))?.label, 'openai:server-model');
  });
});
