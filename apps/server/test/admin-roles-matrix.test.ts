// The roles matrix (docs/roles.md), walked over every admin route: each route declares a
// permission, and for each role a session is let through exactly when the role has it, and is
// otherwise a 403 `forbidden` that changed nothing. An API token with `admin` is never refused by role.
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { after, before, describe, test } from 'node:test';
import {
  MEMBERSHIP_ROLES,
  PERMISSIONS,
  roleCan,
  type TMembershipRole,
  type TPermission,
} from '@service/contract';
import type { FastifyInstance, LightMyRequestResponse, RouteOptions } from 'fastify';
import { ADMIN_PREFIX, requireDeclaredPermission } from '../src/surfaces/admin/index.js';
import { signedInMember, signInMember } from './support/members.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';

type AdminRoute = { method: string; url: string; permission: TPermission | undefined; auth: unknown };

/** An id no record has: an allowed request on it is a 404 (or a 422), never a change. */
const NO_ID = '01ZZZZZZZZZZZZZZZZZZZZZZZZ';

/**
 * Routes the allowed sweep leaves out: going through ends the caller's membership (tested in
 * admin-members), or the answer is an event stream that stays open (tested over a socket in
 * admin-stream.test.ts).
 */
const NOT_SWEPT = new Set(['POST /api/v1/admin/members/leave', 'GET /api/v1/admin/stream']);

describe(`roles matrix over every admin route (${TEST_ENGINE})`, () => {
  const recorded: AdminRoute[] = [];
  let t: TestApp;
  let tenant: Tenant;
  const sessions = new Map<TMembershipRole, Record<string, string>>();

  const onInstance = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route: RouteOptions) => {
      if (!route.url.startsWith(`${ADMIN_PREFIX}/`)) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD') continue;
        recorded.push({
          method,
          url: route.url,
          permission: route.config?.permission,
          auth: route.config?.auth,
        });
      }
    });
  };

  before(async () => {
    subscribe('fastify.initialization', onInstance);
    try {
      t = await createTestApp();
    } finally {
      unsubscribe('fastify.initialization', onInstance);
    }
    tenant = await seedTenant(t, 'Roles matrix');
    sessions.set('owner', await signInMember(t, tenant.user.email));
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      sessions.set(role, (await signedInMember(t, tenant, role)).headers);
    }
  });
  after(() => t.close());

  /** The authenticated admin routes (those the admin auth hook checks). */
  const guarded = () => recorded.filter((route) => route.auth !== 'none');

  function send(route: AdminRoute, headers: Record<string, string>): Promise<LightMyRequestResponse> {
    const url = route.url.replace(/:[a-z_]+/g, NO_ID);
    const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}';
    return t.app.inject({
      method: route.method as 'GET',
      url,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: body }),
    });
  }

  async function changeCounts() {
    const count = async (table: 'audit_logs' | 'api_tokens' | 'memberships' | 'agents') =>
      Number(
        (
          await t.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      audit: await count('audit_logs'),
      tokens: await count('api_tokens'),
      memberships: await count('memberships'),
      agents: await count('agents'),
    };
  }

  test('every authenticated admin route declares a known permission', () => {
    const routes = guarded();
    assert.ok(routes.length > 60, `admin routes recorded: ${routes.length}`);
    const missing = routes
      .filter((route) => route.permission === undefined)
      .map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(missing, [], 'routes without config.permission');
    for (const route of routes) {
      assert.ok(PERMISSIONS.includes(route.permission as TPermission), `${route.method} ${route.url}`);
    }
    // The members routes are in the table, each with the permission the matrix gives them.
    const of = (line: string) => routes.find((r) => `${r.method} ${r.url}` === line)?.permission;
    assert.equal(of(`GET ${ADMIN_PREFIX}/members`), 'members.manage');
    assert.equal(of(`DELETE ${ADMIN_PREFIX}/tokens/:id`), 'workspace.configure');
    assert.equal(of(`POST ${ADMIN_PREFIX}/conversations/:id/messages`), 'conversations.reply');
    // The inbox: notes and closing are taking part in conversations; saved replies are used by
    // whoever may reply and edited by whoever configures the workspace.
    assert.equal(of(`POST ${ADMIN_PREFIX}/conversations/:id/close`), 'conversations.reply');
    assert.equal(of(`POST ${ADMIN_PREFIX}/conversations/:id/notes`), 'conversations.reply');
    assert.equal(of(`POST ${ADMIN_PREFIX}/conversations/:id/read`), 'workspace.read');
    assert.equal(of(`GET ${ADMIN_PREFIX}/saved-replies`), 'conversations.reply');
    assert.equal(of(`POST ${ADMIN_PREFIX}/saved-replies`), 'workspace.configure');
    assert.equal(of(`PATCH ${ADMIN_PREFIX}/saved-replies/:id`), 'workspace.configure');
    assert.equal(of(`DELETE ${ADMIN_PREFIX}/saved-replies/:id`), 'workspace.configure');
    assert.equal(of(`PATCH ${ADMIN_PREFIX}/me`), 'account.self');
    assert.equal(of(`GET ${ADMIN_PREFIX}/stream`), 'workspace.read');
    assert.equal(of(`POST ${ADMIN_PREFIX}/conversations/:id/typing`), 'conversations.reply');
  });

  test('an admin route without a permission stops the start; auth none or a permission passes', () => {
    assert.throws(
      () => requireDeclaredPermission({ method: 'GET', url: '/api/v1/admin/forgotten', config: {} }),
      /GET \/api\/v1\/admin\/forgotten declares no permission/,
    );
    assert.throws(
      () => requireDeclaredPermission({ method: 'POST', url: '/x', config: undefined }),
      /no permission/,
    );
    requireDeclaredPermission({ method: 'GET', url: '/x', config: { auth: 'none' } });
    requireDeclaredPermission({ method: 'GET', url: '/x', config: { permission: 'workspace.read' } });
  });

  for (const role of MEMBERSHIP_ROLES) {
    test(`${role}: denied routes are 403 forbidden and change nothing; allowed ones are not refused by role`, async () => {
      const headers = sessions.get(role);
      assert.ok(headers);
      const routes = guarded();
      const denied = routes.filter((route) => !roleCan(role, route.permission as TPermission));
      const allowed = routes.filter(
        (route) =>
          roleCan(role, route.permission as TPermission) && !NOT_SWEPT.has(`${route.method} ${route.url}`),
      );
      if (role === 'owner' || role === 'admin') assert.equal(denied.length, 0);
      else assert.ok(denied.length > 10, `${role} is denied some routes`);

      const before = await changeCounts();
      for (const route of denied) {
        const res = await send(route, headers);
        assert.equal(res.statusCode, 403, `${role} ${route.method} ${route.url}: ${res.body}`);
        const body = res.json();
        assert.equal(body.code, 'forbidden');
        assert.equal(body.message, `Your role (${role}) can't do this.`);
      }
      assert.deepEqual(await changeCounts(), before, `${role}: a denied request changed something`);

      for (const route of allowed) {
        const res = await send(route, headers);
        const refusedByRole = res.statusCode === 403 && /Your role/.test(res.body);
        assert.ok(!refusedByRole, `${role} ${route.method} ${route.url} refused: ${res.body}`);
        assert.notEqual(res.statusCode, 401, `${role} ${route.method} ${route.url} lost the session`);
        assert.ok(
          res.statusCode < 500,
          `${role} ${route.method} ${route.url}: ${res.statusCode} ${res.body}`,
        );
      }
    });
  }

  test('a token with the admin ability is refused by no route for its role', async () => {
    for (const route of guarded().filter((r) => !NOT_SWEPT.has(`${r.method} ${r.url}`))) {
      const res = await send(route, tenant.auth);
      assert.ok(
        !(res.statusCode === 403 && /Your role/.test(res.body)),
        `${route.method} ${route.url}: ${res.body}`,
      );
      assert.ok(res.statusCode < 500, `${route.method} ${route.url}: ${res.statusCode} ${res.body}`);
    }
  });

  test('a session without the CSRF header is 403 on a change before its role is looked at', async () => {
    const headers = sessions.get('viewer');
    assert.ok(headers);
    const res = await t.app.inject({
      method: 'POST',
      url: `${ADMIN_PREFIX}/agents`,
      headers: { cookie: headers.cookie ?? '', 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x' }),
    });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().message, /CSRF/);
  });
});
