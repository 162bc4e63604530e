import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { createLogger } from '../src/logger.js';
import { adminScope } from '../src/surfaces/admin/admin-auth.js';
import { ADMIN_PREFIX } from '../src/surfaces/admin/index.js';
import { integrationCaller } from '../src/surfaces/site-sync/site-sync-auth.js';
import { WIDGET_PREFIX } from '../src/surfaces/widget/index.js';
import { widgetCaller } from '../src/surfaces/widget/widget-auth.js';
import { bearer, expectError, UNAUTHENTICATED_BODY } from './support/http.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, ORIGIN } from './support/widget.js';

const ZLine = z.looseObject({ level: z.number(), msg: z.string().optional(), err: z.unknown().optional() });

describe('a wiring bug is a 500, never a 401', () => {
  const chunks: string[] = [];
  let t: TestApp;
  let tenant: Tenant;
  const errorLines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => ZLine.parse(JSON.parse(line)))
      .filter((line) => line.level >= 50);

  /**
   * Routes wired wrongly on purpose: each reads a surface's caller, but is registered outside that
   * surface's authenticated scope (at the root, or beside the surface under its URL prefix).
   */
  async function wrongRoutes(app: FastifyInstance): Promise<void> {
    const workspaceOf = (request: FastifyRequest) => ({
      workspace: adminScope({ database: t.database, clock: t.clock }, request).workspaceId,
    });
    const besideAdmin: FastifyPluginAsync = async (beside) => {
      beside.get('/test-beside', async (request) => workspaceOf(request));
    };
    const besideWidget: FastifyPluginAsync = async (beside) => {
      beside.post('/test-beside', async (request) => ({ visitor: widgetCaller(request).claims.visitor_id }));
    };
    app.get('/test/admin-outside', async (request) => workspaceOf(request));
    await app.register(besideAdmin, { prefix: ADMIN_PREFIX });
    await app.register(besideWidget, { prefix: WIDGET_PREFIX });
    app.post('/test/site-sync-outside', async (request) => ({ token: integrationCaller(request).tokenId }));
  }

  before(async () => {
    const logger = createLogger('info', { write: (chunk: string) => void chunks.push(chunk) });
    t = await createTestApp({ logger, extraRoutes: wrongRoutes });
    tenant = await seedTenant(t, 'Wiring');
  });
  after(() => t.close());

  /** Asserts a bare 500 `internal_error` (no detail of the bug) and one error-level log line naming it. */
  async function expectWiringBug(send: () => Promise<LightMyRequestResponse>, surface: string) {
    const before = errorLines().length;
    const res = await send();
    const body = expectError(res, 500, 'internal_error');
    assert.deepEqual(body.errors, {});
    assert.doesNotMatch(body.message, /wiring|auth hook/i, 'the bug stays in the log');
    const logged = errorLines().slice(before);
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.match(JSON.stringify(logged[0]?.err), new RegExp(`${surface} route ran without its auth hook`));
  }

  test('an admin route registered outside the admin surface: 500 with or without a valid token', async () => {
    await expectWiringBug(
      () => t.app.inject({ url: '/test/admin-outside', headers: tenant.auth }),
      'An admin',
    );
    await expectWiringBug(() => t.app.inject({ url: '/test/admin-outside' }), 'An admin');
    // Beside the surface under its prefix is still outside its hook.
    await expectWiringBug(
      () => t.app.inject({ url: `${ADMIN_PREFIX}/test-beside`, headers: tenant.auth }),
      'An admin',
    );
  });

  test('a widget route registered outside the widget surface: 500, even with a valid widget token', async () => {
    const { agentId } = await createWidgetAgent(t, {}, tenant);
    const session = await initSession(t, agentId);
    await expectWiringBug(
      () =>
        t.app.inject({
          method: 'POST',
          url: `${WIDGET_PREFIX}/test-beside`,
          headers: { ...bearer(session.token), origin: ORIGIN },
        }),
      'A widget',
    );
  });

  test('a site-integration route registered outside its surface: 500', async () => {
    await expectWiringBug(
      () => t.app.inject({ method: 'POST', url: '/test/site-sync-outside', headers: tenant.auth }),
      'A site-integration',
    );
  });

  test('a route inside a surface still gets the 401 of its auth hook, logged as no error', async () => {
    const errorsBefore = errorLines().length;
    const res = await t.app.inject({ url: `${ADMIN_PREFIX}/agents` });
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, UNAUTHENTICATED_BODY);
    const widget = await t.app.inject({
      method: 'POST',
      url: `${WIDGET_PREFIX}/events`,
      headers: { origin: ORIGIN },
    });
    assert.equal(widget.statusCode, 401);
    assert.equal(widget.body, UNAUTHENTICATED_BODY);
    assert.equal(errorLines().length, errorsBefore);
  });
});
