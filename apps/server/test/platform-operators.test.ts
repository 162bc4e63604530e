import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZUser } from '@service/contract';
import { z } from 'zod';
import { auditRows, expectData, expectValidation } from './support/http.js';
import {
  isValidationError,
  platformHelpers,
  type Session,
  START,
  startPlatform,
} from './support/platform.js';
import type { Tenant, TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';

// Platform operators (users with role admin, set by the CLI only) and the BYOK switch: the CLI
// sets each and audits it; no HTTP route can.
// On PGlite, and on PostgreSQL with TEST_DATABASE_URL.

describe('platform operators: the flag and BYOK', () => {
  const clock = createTestClock(START);
  let t: TestApp;
  let root: Tenant;
  let acme: Tenant;
  let other: Tenant;
  let acmeSession: Session;
  const { run, send } = platformHelpers(clock, () => t);
  before(async () => {
    ({ t, root, acme, other, acmeSession } = await startPlatform(clock));
  });
  after(() => t.close());

  describe('the operator flag and BYOK: CLI only, audited', () => {
    test('bootstrap made the first user an operator and no one else', async () => {
      const roles = await t.database.db.selectFrom('users').select(['id', 'role']).execute();
      const byId = new Map(roles.map((row) => [row.id, row.role]));
      assert.equal(byId.get(root.user.id), 'admin');
      assert.equal(byId.get(acme.user.id), 'user');
    });

    test('user:platform-admin EMAIL on|off sets the flag and audits it in each workspace of the user', async () => {
      // Acme's owner is also a member of Other's workspace: two workspaces, two records.
      await t.database.db
        .insertInto('memberships')
        .values({ workspace_id: other.workspace.id, user_id: acme.user.id, role: 'editor' })
        .execute();
      const on = await run('user:platform-admin', { email: acme.user.email.toUpperCase(), state: 'on' });
      assert.deepEqual(on, {
        user_id: acme.user.id,
        email: acme.user.email,
        flag: 'platform_admin',
        old: false,
        new: true,
        audited_in: 2,
      });
      const off = await run('user:platform-admin', { email: acme.user.email, state: 'off' });
      assert.equal(off.new, false);
      assert.equal(off.old, true);
      for (const workspaceId of [acme.workspace.id, other.workspace.id]) {
        const records = (await auditRows(t, workspaceId)).filter(
          (r) => r.action === 'user.platform_admin_changed',
        );
        assert.deepEqual(
          records.map((r) => [r.actor_type, r.actor_id, r.target_type, r.target_id, r.metadata]),
          [
            ['cli', null, 'user', acme.user.id, { old: false, new: true }],
            ['cli', null, 'user', acme.user.id, { old: true, new: false }],
          ],
        );
      }
      const row = await t.database.db
        .selectFrom('users')
        .select('role')
        .where('id', '=', acme.user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.role, 'user');
      await t.database.db
        .deleteFrom('memberships')
        .where('workspace_id', '=', other.workspace.id)
        .where('user_id', '=', acme.user.id)
        .execute();
    });

    test('user:byok EMAIL on|off sets byok_enabled, audited with the old and new value', async () => {
      assert.deepEqual(await run('user:byok', { email: other.user.email, state: 'on' }), {
        user_id: other.user.id,
        email: other.user.email,
        flag: 'byok',
        old: false,
        new: true,
        audited_in: 1,
      });
      await run('user:byok', { email: other.user.email, state: 'off' });
      const records = (await auditRows(t, other.workspace.id)).filter(
        (r) => r.action === 'user.byok_changed',
      );
      assert.deepEqual(
        records.map((r) => r.metadata),
        [
          { old: false, new: true },
          { old: true, new: false },
        ],
      );
    });

    test('bad arguments are refused and change nothing; an unknown email is 404', async () => {
      const before = await auditRows(t, acme.workspace.id);
      await assert.rejects(run('user:byok', { email: acme.user.email, state: 'yes' }), isValidationError);
      await assert.rejects(run('user:byok', { email: '', state: 'on' }), isValidationError);
      await assert.rejects(
        run('user:platform-admin', { email: 'nobody@example.com', state: 'on' }),
        /No user/,
      );
      assert.equal((await auditRows(t, acme.workspace.id)).length, before.length);
    });

    test('no HTTP route sets role or byok_enabled (PATCH /me refuses them, nothing changes)', async () => {
      for (const body of [
        { role: 'admin' },
        { byok_enabled: true },
        { default_workspace_id: root.workspace.id },
      ]) {
        const field = Object.keys(body)[0] ?? '';
        expectValidation(await send('PATCH', '/api/v1/admin/me', acmeSession.headers, body), [field]);
        expectValidation(await send('PATCH', '/api/v1/admin/me', acme.auth, { name: 'X', ...body }), [field]);
      }
      const me = expectData(
        await send('GET', '/api/v1/admin/me', acmeSession.headers),
        200,
        z.looseObject({ user: ZUser }),
      );
      assert.equal(me.user.role, 'user');
      assert.equal(me.user.byok_enabled, false);
      assert.equal(me.user.default_workspace_id, acme.workspace.id);
    });
  });
});
