import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZPlatformMember, ZPlatformPlan, ZPlatformPlanChanged, ZPlatformWorkspace } from '@service/contract';
import { z } from 'zod';
import { auditRows, expectData, expectError, expectValidation } from './support/http.js';
import { PLATFORM, pageOf, platformHelpers, type Session, START, startPlatform } from './support/platform.js';
import type { Tenant, TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';

// The platform API: an operator's own session lists every workspace and changes plans (audited
// in that workspace); everyone else finds nothing there.
// On PGlite, and on PostgreSQL with TEST_DATABASE_URL.

describe('platform operators: the platform API', () => {
  const clock = createTestClock(START);
  let t: TestApp;
  let root: Tenant;
  let acme: Tenant;
  let rootSession: Session;
  let acmeSession: Session;
  const { setPlan, send } = platformHelpers(clock, () => t);
  before(async () => {
    ({ t, root, acme, rootSession, acmeSession } = await startPlatform(clock));
  });
  after(() => t.close());

  describe('the platform API', () => {
    test("an operator's own session lists every workspace with plan, usage and member count", async () => {
      const page = pageOf(
        await send('GET', `${PLATFORM}/workspaces`, rootSession.headers),
        ZPlatformWorkspace.strict(),
      );
      const names = page.data.map((w) => w.name);
      assert.deepEqual(names, ['Other', 'Acme', 'Platform'], 'newest first');
      const acmeRow = page.data.find((w) => w.id === acme.workspace.id);
      assert.deepEqual(acmeRow?.plan, { key: 'default', name: 'Default' });
      assert.equal(acmeRow?.member_count, 1);
      assert.deepEqual(acmeRow?.usage, { agents: 0, sources: 0, messages_this_month: 0, upload_bytes: 0 });
      assert.equal(page.meta.next_cursor, null);

      const first = pageOf(
        await send('GET', `${PLATFORM}/workspaces?limit=2`, rootSession.headers),
        ZPlatformWorkspace,
      );
      assert.deepEqual(
        first.data.map((w) => w.name),
        ['Other', 'Acme'],
      );
      assert.ok(first.meta.next_cursor);
      const rest = pageOf(
        await send(
          'GET',
          `${PLATFORM}/workspaces?limit=2&cursor=${first.meta.next_cursor}`,
          rootSession.headers,
        ),
        ZPlatformWorkspace,
      );
      assert.deepEqual(
        rest.data.map((w) => w.name),
        ['Platform'],
      );
      expectValidation(await send('GET', `${PLATFORM}/workspaces?limit=201`, rootSession.headers), ['limit']);

      const members = expectData(
        await send('GET', `${PLATFORM}/workspaces/${acme.workspace.id}/members`, rootSession.headers),
        200,
        z.array(ZPlatformMember.strict()),
      );
      assert.deepEqual(members, [{ id: acme.user.id, email: acme.user.email, name: '', role: 'owner' }]);
      expectError(
        await send('GET', `${PLATFORM}/workspaces/01NOPE/members`, rootSession.headers),
        404,
        'not_found',
      );
    });

    test('everyone else finds nothing there: 401 without credentials, 404 for tokens and other sessions', async () => {
      const routes: Array<['GET' | 'POST', string, unknown]> = [
        ['GET', `${PLATFORM}/workspaces`, undefined],
        ['GET', `${PLATFORM}/workspaces/${acme.workspace.id}/members`, undefined],
        ['POST', `${PLATFORM}/workspaces/${acme.workspace.id}/plan`, { plan: 'default' }],
        [
          'POST',
          `${PLATFORM}/impersonation`,
          { workspace_id: acme.workspace.id, user_id: acme.user.id, reason: 'x' },
        ],
      ];
      for (const [method, url, body] of routes) {
        const none = await send(method, url, {}, body);
        expectError(none, 401, 'unauthenticated');
        // The operator's own API token: a token never reaches the platform API.
        expectError(await send(method, url, root.auth, body), 404, 'not_found');
        expectError(await send(method, url, acme.auth, body), 404, 'not_found');
        expectError(await send(method, url, acmeSession.headers, body), 404, 'not_found');
        // A body that does not parse is the same 404: nothing is validated for a non-operator.
        if (method === 'POST')
          expectError(await send(method, url, acmeSession.headers, { nonsense: 1 }), 404, 'not_found');
      }
      // A session changing something still needs its CSRF token.
      const noCsrf = { cookie: rootSession.headers.cookie ?? '' };
      expectError(
        await send('POST', `${PLATFORM}/workspaces/${acme.workspace.id}/plan`, noCsrf, { plan: 'default' }),
        403,
        'forbidden',
      );
    });

    test('an operator changes a plan, audited in that workspace with the operator as actor', async () => {
      await setPlan({ key: 'pro', name: 'Pro', agents: '10' });
      const plans = expectData(
        await send('GET', `${PLATFORM}/plans`, rootSession.headers),
        200,
        z.array(ZPlatformPlan.strict()),
      );
      assert.deepEqual(plans.map((plan) => plan.key).sort(), ['default', 'pro']);
      expectError(await send('GET', `${PLATFORM}/plans`, acmeSession.headers), 404, 'not_found');
      const res = await send(
        'POST',
        `${PLATFORM}/workspaces/${acme.workspace.id}/plan`,
        rootSession.headers,
        { plan: 'pro' },
      );
      assert.deepEqual(expectData(res, 200, ZPlatformPlanChanged.strict()), {
        workspace_id: acme.workspace.id,
        plan: 'pro',
        previous_plan: 'default',
      });
      const plan = await t.database.db
        .selectFrom('workspaces')
        .select('plan_key')
        .where('id', '=', acme.workspace.id)
        .executeTakeFirstOrThrow();
      assert.equal(plan.plan_key, 'pro');
      const record = (await auditRows(t, acme.workspace.id))
        .filter((r) => r.action === 'plan.changed')
        .at(-1);
      assert.equal(record?.actor_type, 'user');
      assert.equal(record?.actor_id, root.user.id);
      assert.equal(record?.on_behalf_of_user_id, null);
      assert.deepEqual(record?.metadata, { from: 'default', to: 'pro', by: 'operator' });

      expectError(
        await send('POST', `${PLATFORM}/workspaces/${acme.workspace.id}/plan`, rootSession.headers, {
          plan: 'gold',
        }),
        404,
        'not_found',
      );
      expectError(
        await send('POST', `${PLATFORM}/workspaces/01NOPE/plan`, rootSession.headers, { plan: 'pro' }),
        404,
        'not_found',
      );
      expectValidation(
        await send('POST', `${PLATFORM}/workspaces/${acme.workspace.id}/plan`, rootSession.headers, {
          plan: '',
        }),
        ['plan'],
      );
      expectValidation(
        await send('POST', `${PLATFORM}/workspaces/${acme.workspace.id}/plan`, rootSession.headers, {
          plan: 'pro',
          extra: 1,
        }),
        ['extra'],
      );
      const after = await t.database.db
        .selectFrom('workspaces')
        .select('plan_key')
        .where('id', '=', acme.workspace.id)
        .executeTakeFirstOrThrow();
      assert.equal(after.plan_key, 'pro');
    });
  });
});
