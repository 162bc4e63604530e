import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WEBHOOKS_PER_WORKSPACE_MAX, ZWebhook, ZWebhookCreated } from '@service/contract';
import { z } from 'zod';
import { checkUrl } from '../src/outbound/index.js';
import { createSecretKeyring } from '../src/security/secret-keyring.js';
import { openWebhookSecret } from '../src/services/ops/webhooks.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/fake-site.js';
import {
  auditRows,
  bearer,
  columnText,
  expectData,
  expectError,
  expectValidation,
  UNAUTHENTICATED_BODY,
} from './support/http.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

const HOOKS = '/api/v1/admin/webhooks';
const NO_ID = '01NOSUCHRECORD';

describe('admin API: webhooks', () => {
  let receiver: WebhookReceiver;
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;

  before(async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp({ env: { SAFE_URL_ALLOW: receiver.allowEntry } });
    acme = await seedTenant(t, 'Acme Hooks');
    other = await seedTenant(t, 'Other Hooks');
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const create = (tenant: Tenant, body: unknown) => injectJson(t.app, 'POST', HOOKS, body, tenant.auth);
  const routes = (id: string): Array<{ method: 'GET' | 'POST' | 'DELETE'; url: string }> => [
    { method: 'GET', url: HOOKS },
    { method: 'POST', url: HOOKS },
    { method: 'DELETE', url: `${HOOKS}/${id}` },
    { method: 'GET', url: `${HOOKS}/${id}/deliveries` },
    { method: 'POST', url: `${HOOKS}/deliveries/${id}/redeliver` },
  ];

  test('no token is 401 without detail; a token without admin is 403', async () => {
    const integration = await issueToken(t, acme, ['wp:integration']);
    for (const route of routes(NO_ID)) {
      const anonymous = await injectJson(t.app, route.method, route.url, {});
      assert.equal(anonymous.statusCode, 401, `${route.method} ${route.url}`);
      assert.equal(anonymous.body, UNAUTHENTICATED_BODY);
      const weak = await injectJson(t.app, route.method, route.url, {}, bearer(integration.token));
      expectError(weak, 403, 'forbidden');
    }
  });

  test('create answers the secret once; only a sealed copy is stored; audited without it', async () => {
    const res = await create(acme, { url: receiver.url, events: ['lead.captured', 'lead.captured'] });
    assert.equal(res.headers['cache-control'], 'no-store');
    const created = expectData(res, 201, ZWebhookCreated);
    assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      [created.url, created.events, created.is_active],
      [receiver.url, ['lead.captured'], true],
    );

    const row = await t.database.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    for (const [column, value] of Object.entries(row)) {
      assert.ok(!columnText(value).includes(created.secret.slice(6)), `webhooks.${column} holds the secret`);
    }
    const appKey = t.config.appKey;
    assert.ok(appKey);
    assert.equal(openWebhookSecret(row.secret_sealed, createSecretKeyring(appKey), row.id), created.secret);
    // Bound to the webhook: the sealed value opens for no other record.
    assert.throws(
      () => openWebhookSecret(row.secret_sealed, createSecretKeyring(appKey), 'other-id'),
      /altered/,
    );

    const listed = expectData(
      await t.app.inject({ url: HOOKS, headers: acme.auth }),
      200,
      z.array(z.strictObject(ZWebhook.shape)),
    );
    assert.deepEqual(
      listed.map((hook) => hook.id),
      [created.id],
    );
    const audit = (await auditRows(t, acme.workspace.id)).filter(
      (entry) => entry.action === 'webhook.created',
    );
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]?.metadata, { url: receiver.url, events: ['lead.captured'], format: 'json' });
    assert.ok(!columnText(audit[0]).includes(created.secret));
  });

  test('a malformed URL, an unknown event or an empty list is 422 and stores nothing', async () => {
    const before = (await t.database.db.selectFrom('webhooks').select('id').execute()).length;
    expectValidation(await create(acme, { url: 'not a url', events: ['lead.captured'] }), ['url']);
    expectValidation(await create(acme, { url: 'ftp://hooks.example.com/x', events: ['lead.captured'] }), [
      'url',
    ]);
    expectValidation(await create(acme, { url: receiver.url, events: [] }), ['events']);
    expectValidation(await create(acme, { url: receiver.url, events: ['order.created'] }), ['events.0']);
    expectValidation(await create(acme, { url: receiver.url, events: ['lead.captured'], secret: 'x' }), [
      'secret',
    ]);
    assert.equal((await t.database.db.selectFrom('webhooks').select('id').execute()).length, before);
  });

  test('hosts the crawl-safety guard refuses are 422 with its reason, verbatim', async () => {
    const otherPort = `http://127.0.0.1:${Number(receiver.allowEntry.split(':')[1]) + 1}/hook`;
    for (const url of [
      'http://10.0.0.5/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://localhost:8080/x',
      otherPort,
    ]) {
      const verdict = await checkUrl(url, {
        allow: t.config.safeUrlAllow,
        resolve: async () => {
          throw new Error('no DNS lookup expected');
        },
      });
      assert.equal(verdict.ok, false, url);
      const body = expectValidation(await create(acme, { url, events: ['lead.captured'] }), ['url']);
      assert.deepEqual(body.errors.url, [verdict.ok ? '' : verdict.reason], url);
      assert.match(body.errors.url?.[0] ?? '', /^refused: /);
    }
  });

  test("another workspace's webhook and deliveries are 404, and unlisted", async () => {
    const mine = expectData(
      await create(other, { url: receiver.url, events: ['lead.captured'] }),
      201,
      ZWebhookCreated,
    );
    const listed = expectData(await t.app.inject({ url: HOOKS, headers: acme.auth }), 200, z.array(ZWebhook));
    assert.ok(!listed.some((hook) => hook.id === mine.id));
    for (const route of routes(mine.id).filter((r) => r.url !== HOOKS)) {
      expectError(await injectJson(t.app, route.method, route.url, {}, acme.auth), 404, 'not_found');
    }
    const still = await t.database.db.selectFrom('webhooks').select('id').where('id', '=', mine.id).execute();
    assert.equal(still.length, 1);
  });

  test('delete is 204, removes the delivery log with it, and is audited; again is 404', async () => {
    const hook = expectData(
      await create(acme, { url: receiver.url, events: ['lead.captured'] }),
      201,
      ZWebhookCreated,
    );
    await t.database.db
      .insertInto('webhook_deliveries')
      .values({
        id: `${hook.id}D`,
        workspace_id: acme.workspace.id,
        webhook_id: hook.id,
        event: 'lead.captured',
        payload: '{}',
      })
      .execute();
    const res = await t.app.inject({ method: 'DELETE', url: `${HOOKS}/${hook.id}`, headers: acme.auth });
    assert.equal(res.statusCode, 204);
    const left = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', hook.id)
      .execute();
    assert.deepEqual(left, []);
    const audit = await auditRows(t, acme.workspace.id);
    assert.ok(audit.some((entry) => entry.action === 'webhook.deleted' && entry.target_id === hook.id));
    expectError(
      await t.app.inject({ method: 'DELETE', url: `${HOOKS}/${hook.id}`, headers: acme.auth }),
      404,
    );
  });

  test(`a workspace holds at most ${WEBHOOKS_PER_WORKSPACE_MAX} webhooks`, async () => {
    const tenant = await seedTenant(t, 'Many Hooks');
    for (let i = 0; i < WEBHOOKS_PER_WORKSPACE_MAX; i += 1) {
      expectData(
        await create(tenant, { url: `${receiver.url}/${i}`, events: ['lead.captured'] }),
        201,
        ZWebhookCreated,
      );
    }
    expectValidation(await create(tenant, { url: receiver.url, events: ['lead.captured'] }), ['url']);
  });
});
