import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  IMPERSONATION_MINUTES,
  ZAdminSession,
  ZAuditLog,
  ZPlatformMember,
  ZPlatformPlan,
  ZPlatformPlanChanged,
  ZPlatformWorkspace,
  ZUser,
} from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { DATA_COMMANDS } from '../src/cli/commands.js';
import { AppError } from '../src/errors/app-error.js';
import { createLogger } from '../src/logger.js';
import { sha256Hex } from '../src/security/hashing.js';
import { configKeyring } from '../src/security/secret-keyring.js';
import { SESSION_COOKIE, signIn } from '../src/services/accounts/admin-sessions.js';
import { auditRows, expectData, expectError, expectValidation } from './support/http.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';

// Platform operators (users with role admin, set by the CLI only), the platform API, and
// impersonation ("view as" a member): who may call what, what is audited and how, which routes
// refuse an operator viewing as a member, and the 30-minute end at ±1 s on a pinned clock.
// On PGlite, and on PostgreSQL with TEST_DATABASE_URL.

const PASSWORD = 'correct horse battery';
const isValidationError = (error: unknown) => error instanceof AppError && error.code === 'validation_failed';
const PLATFORM = '/api/v1/admin/platform';
const START = Date.parse('2026-03-02T10:00:00.000Z');

/** A 200 list answer, `{data, meta}`, with its rows parsed. */
function pageOf<T extends z.ZodType>(res: LightMyRequestResponse, item: T) {
  assert.equal(res.statusCode, 200, res.body);
  return z
    .strictObject({ data: z.array(item), meta: z.record(z.string(), z.string().nullable()) })
    .parse(JSON.parse(res.body));
}

type Session = { secret: string; headers: Record<string, string> };

describe('platform operators and impersonation', () => {
  const clock = createTestClock(START);
  let t: TestApp;
  /** The first user bootstrap makes: a platform operator. */
  let root: Tenant;
  /** A customer's workspace and its owner (not an operator). */
  let acme: Tenant;
  let other: Tenant;
  let rootSession: Session;
  let acmeSession: Session;

  const run = (command: 'user:byok' | 'user:platform-admin', args: Record<string, unknown>) =>
    DATA_COMMANDS[command](
      { config: t.config, database: t.database, clock, log: createLogger('silent') },
      args,
    );
  const setPlan = (args: Record<string, unknown>) =>
    DATA_COMMANDS['plan:set'](
      { config: t.config, database: t.database, clock, log: createLogger('silent') },
      args,
    );

  /** Signs a user in through the sign-in service (no HTTP login limit), as the console would. */
  async function sessionOf(tenant: Tenant): Promise<Session> {
    const { secret, session } = await signIn({
      db: t.database.db,
      input: { email: tenant.user.email, password: PASSWORD },
      bcryptCost: t.config.bcryptCost,
      keys: configKeyring(t.config),
      now: clock.now(),
      ip: '127.0.0.1',
      userAgent: 'test',
    });
    return { secret, headers: headersFor(secret, session.csrf_token) };
  }
  const headersFor = (secret: string, csrf: string) => ({
    cookie: `${SESSION_COOKIE}=${secret}`,
    'x-csrf-token': csrf,
  });
  /** The session a response set in its cookie, with the CSRF token it answered. */
  function sessionFrom(res: LightMyRequestResponse): Session & { view: z.infer<typeof ZAdminSession> } {
    const view = expectData(res, 200, ZAdminSession);
    const secret = res.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value;
    assert.ok(secret, 'a session cookie is set');
    return { secret, headers: headersFor(secret, view.csrf_token), view };
  }
  const send = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ) =>
    body === undefined && method === 'GET'
      ? t.app.inject({ method, url, headers })
      : injectJson(t.app, method, url, body ?? {}, headers);
  const startImpersonation = (as: Session, body: unknown) =>
    send('POST', `${PLATFORM}/impersonation`, as.headers, body);

  before(async () => {
    t = await createTestApp({ clock });
    root = await seedTenant(t, 'Platform');
    acme = await seedTenant(t, 'Acme');
    other = await seedTenant(t, 'Other');
    rootSession = await sessionOf(root);
    acmeSession = await sessionOf(acme);
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

  describe('impersonation', () => {
    const memberSessions = () =>
      t.database.db
        .selectFrom('admin_sessions')
        .select(['id', 'secret_hash', 'expires_at'])
        .where('user_id', '=', acme.user.id)
        .where('impersonator_user_id', 'is', null)
        .orderBy('id')
        .execute();

    test('needs a reason and a member of that workspace; an operator is not viewed as', async () => {
      const target = { workspace_id: acme.workspace.id, user_id: acme.user.id };
      expectValidation(await startImpersonation(rootSession, target), ['reason']);
      expectValidation(await startImpersonation(rootSession, { ...target, reason: '   ' }), ['reason']);
      expectValidation(await startImpersonation(rootSession, { ...target, reason: 'x'.repeat(501) }), [
        'reason',
      ]);
      expectValidation(await startImpersonation(rootSession, { ...target, reason: 'a\u0000b' }), ['reason']);
      expectError(
        await startImpersonation(rootSession, {
          workspace_id: other.workspace.id,
          user_id: acme.user.id,
          reason: 'Ticket 7',
        }),
        404,
        'not_found',
      );
      expectError(
        await startImpersonation(rootSession, {
          workspace_id: root.workspace.id,
          user_id: root.user.id,
          reason: 'Ticket 7',
        }),
        403,
        'forbidden',
      );
      const started = (await auditRows(t, acme.workspace.id)).filter(
        (r) => r.action === 'impersonation.started',
      );
      assert.equal(started.length, 0);
    });

    test("viewing as a member: the banner's facts, audit on behalf of, secrets refused, ended back to the operator", async () => {
      const own = await memberSessions();
      assert.equal(own.length, 1);
      const res = await startImpersonation(rootSession, {
        workspace_id: acme.workspace.id,
        user_id: acme.user.id,
        reason: 'Ticket 7: widget shows no answers',
      });
      const viewing = sessionFrom(res);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(viewing.view.user.id, acme.user.id);
      assert.equal(viewing.view.workspace.id, acme.workspace.id);
      assert.deepEqual(viewing.view.impersonation, {
        operator: { id: root.user.id, email: root.user.email, name: '' },
        reason: 'Ticket 7: widget shows no answers',
        started_at: new Date(START).toISOString(),
        expires_at: new Date(START + IMPERSONATION_MINUTES * 60_000).toISOString(),
      });
      assert.equal(viewing.view.expires_at, viewing.view.impersonation?.expires_at);
      const read = expectData(
        await send('GET', '/api/v1/admin/session', viewing.headers),
        200,
        ZAdminSession,
      );
      assert.equal(read.impersonation?.operator.id, root.user.id);
      // The operator's own session shows none.
      assert.equal(
        expectData(await send('GET', '/api/v1/admin/session', acmeSession.headers), 200, ZAdminSession)
          .impersonation,
        null,
      );

      // An action in it: audited with the operator as actor, on behalf of the member.
      const agent = await send('POST', '/api/v1/admin/agents', viewing.headers, { name: 'Viewed-as bot' });
      assert.equal(agent.statusCode, 201, agent.body);
      const created = (await auditRows(t, acme.workspace.id))
        .filter((r) => r.action === 'agent.created')
        .at(-1);
      assert.equal(created?.actor_type, 'user');
      assert.equal(created?.actor_id, root.user.id);
      assert.equal(created?.on_behalf_of_user_id, acme.user.id);
      const log = pageOf(
        await send('GET', '/api/v1/admin/audit-logs?limit=200', viewing.headers),
        ZAuditLog.strict(),
      );
      const shown = log.data.find((r) => r.action === 'agent.created');
      assert.equal(shown?.actor_id, root.user.id);
      assert.equal(shown?.on_behalf_of, acme.user.id);
      const startedRecord = log.data.find((r) => r.action === 'impersonation.started');
      assert.equal(startedRecord?.actor_id, root.user.id);
      assert.equal(startedRecord?.on_behalf_of, acme.user.id);
      assert.equal(startedRecord?.metadata.reason, 'Ticket 7: widget shows no answers');
      // Records outside an impersonation say null.
      assert.ok(log.data.filter((r) => r.action === 'plan.changed').every((r) => r.on_behalf_of === null));

      // The platform API is not for an impersonation either.
      expectError(await send('GET', `${PLATFORM}/workspaces`, viewing.headers), 404, 'not_found');
      expectError(
        await startImpersonation(viewing, {
          workspace_id: acme.workspace.id,
          user_id: acme.user.id,
          reason: 'again',
        }),
        404,
        'not_found',
      );

      // The member's own session is untouched and still works.
      assert.deepEqual(await memberSessions(), own);
      expectData(await send('GET', '/api/v1/admin/session', acmeSession.headers), 200, ZAdminSession);

      // Ending it: the operator's own session comes back under a new cookie; the impersonation is gone.
      const ended = await send('DELETE', '/api/v1/admin/session', viewing.headers);
      const back = sessionFrom(ended);
      assert.equal(back.view.user.id, root.user.id);
      assert.equal(back.view.workspace.id, root.workspace.id);
      assert.equal(back.view.impersonation, null);
      expectError(await send('GET', '/api/v1/admin/session', viewing.headers), 401, 'unauthenticated');
      pageOf(await send('GET', `${PLATFORM}/workspaces`, back.headers), ZPlatformWorkspace);
      const endedRecord = (await auditRows(t, acme.workspace.id)).filter(
        (r) => r.action === 'impersonation.ended',
      );
      assert.equal(endedRecord.length, 1);
      assert.equal(endedRecord[0]?.actor_id, root.user.id);
      assert.equal(endedRecord[0]?.on_behalf_of_user_id, acme.user.id);
      assert.deepEqual(await memberSessions(), own);
      rootSession = back;
    });

    test('every route that reads or sets a secret, credential, session, token or model key is 403 in it', async () => {
      const viewing = sessionFrom(
        await startImpersonation(rootSession, {
          workspace_id: acme.workspace.id,
          user_id: acme.user.id,
          reason: 'Ticket 8',
        }),
      );
      const agentId = expectData(
        await send('POST', '/api/v1/admin/agents', viewing.headers, { name: 'Secrets bot' }),
        201,
        z.looseObject({ id: z.string() }),
      ).id;
      const sql = {
        type: 'sql',
        engine: 'postgres',
        host: '127.0.0.1',
        port: 9,
        database: 'shop',
        user: 'reader',
        password: 'hunter2-secret',
        query: 'select 1',
      };
      const refused: Array<['POST' | 'PUT' | 'PATCH' | 'DELETE', string, unknown]> = [
        ['POST', '/api/v1/admin/tokens', { name: 'Sneaky', abilities: ['admin'] }],
        ['PATCH', '/api/v1/admin/me', { email: 'attacker@example.com' }],
        ['PATCH', '/api/v1/admin/me', { name: 'Renamed' }],
        ['POST', '/api/v1/admin/me/two-factor', {}],
        ['POST', '/api/v1/admin/me/two-factor/confirm', { code: '123456' }],
        ['DELETE', '/api/v1/admin/me/two-factor', { code: '123456' }],
        ['PUT', '/api/v1/admin/llm-key', { provider: 'openai', api_key: 'sk-operator-key-1234' }],
        ['DELETE', '/api/v1/admin/llm-key', undefined],
        ['POST', '/api/v1/admin/webhooks', { url: 'https://hooks.example.com/x', events: ['lead.captured'] }],
        ['POST', '/api/v1/admin/account/workspace', { workspace_id: acme.workspace.id }],
        ['POST', `/api/v1/admin/agents/${agentId}/sources/test-sql`, sql],
        ['POST', `/api/v1/admin/agents/${agentId}/sources`, sql],
      ];
      const tally = async () => ({
        tokens: (await t.database.db.selectFrom('api_tokens').select('id').execute()).length,
        webhooks: (await t.database.db.selectFrom('webhooks').select('id').execute()).length,
        sources: (await t.database.db.selectFrom('sources').select('id').execute()).length,
        user: await t.database.db
          .selectFrom('users')
          .selectAll()
          .where('id', '=', acme.user.id)
          .executeTakeFirstOrThrow(),
        audit: (await auditRows(t, acme.workspace.id)).length,
      });
      const before = await tally();
      for (const [method, url, body] of refused) {
        const res = await send(method, url, viewing.headers, body);
        const error = expectError(res, 403, 'forbidden');
        assert.match(error.message, /Not while viewing as a member/, `${method} ${url}`);
        // The member's own session may do it: the refusal is the impersonation's.
      }
      // Sessions: signing out in it ends the impersonation only (the member's session stays).
      assert.deepEqual(await tally(), before);
      // What stays readable shows no secret: the token list and the masked key route.
      const tokens = await send('GET', '/api/v1/admin/tokens', viewing.headers);
      assert.equal(tokens.statusCode, 200);
      assert.doesNotMatch(tokens.body, /shopper_signing_secret/);
      assert.ok(!tokens.body.includes(root.admin_token) && !tokens.body.includes(acme.admin_token));
      assert.equal((await send('GET', '/api/v1/admin/me/two-factor', viewing.headers)).statusCode, 200);
      // A text source is fine: it holds no credential.
      const text = await send('POST', `/api/v1/admin/agents/${agentId}/sources`, viewing.headers, {
        type: 'text',
        text: 'Matrix',
      });
      assert.equal(text.statusCode, 201, text.body);
      // The member's own session is not refused (the same PATCH works there).
      expectData(
        await send('PATCH', '/api/v1/admin/me', acmeSession.headers, { name: 'Acme Owner' }),
        200,
        ZUser,
      );
      rootSession = sessionFrom(await send('DELETE', '/api/v1/admin/session', viewing.headers));
    });

    test('it ends 30 minutes after it starts: 200 at -1 s, 401 at +1 s; ending after that still restores the operator', async () => {
      const startedAt = clock.now().getTime();
      const viewing = sessionFrom(
        await startImpersonation(rootSession, {
          workspace_id: acme.workspace.id,
          user_id: acme.user.id,
          reason: 'Ticket 9',
        }),
      );
      const end = startedAt + IMPERSONATION_MINUTES * 60_000;
      assert.equal(viewing.view.impersonation?.expires_at, new Date(end).toISOString());
      clock.set(end - 1_000);
      expectData(await send('GET', '/api/v1/admin/session', viewing.headers), 200, ZAdminSession);
      assert.equal((await send('GET', '/api/v1/admin/agents', viewing.headers)).statusCode, 200);
      clock.set(end);
      expectError(await send('GET', '/api/v1/admin/agents', viewing.headers), 401, 'unauthenticated');
      clock.set(end + 1_000);
      const expired = await send('GET', '/api/v1/admin/agents', viewing.headers);
      expectError(expired, 401, 'unauthenticated');
      expectError(await send('GET', '/api/v1/admin/session', viewing.headers), 401, 'unauthenticated');
      // Not extendable: nothing moved its end.
      const row = await t.database.db
        .selectFrom('admin_sessions')
        .select('expires_at')
        .where('impersonator_user_id', '=', root.user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.expires_at.getTime(), end);
      // The member's own session outlives it.
      expectData(await send('GET', '/api/v1/admin/session', acmeSession.headers), 200, ZAdminSession);
      // Ending it without the CSRF token is refused; with it, the operator is back.
      expectError(
        await send('DELETE', '/api/v1/admin/session', { cookie: viewing.headers.cookie ?? '' }),
        403,
        'forbidden',
      );
      const back = sessionFrom(await send('DELETE', '/api/v1/admin/session', viewing.headers));
      assert.equal(back.view.user.id, root.user.id);
      rootSession = back;
    });

    test('it ends at once when the operator loses the flag or their own session ends', async () => {
      const viewing = sessionFrom(
        await startImpersonation(rootSession, {
          workspace_id: acme.workspace.id,
          user_id: acme.user.id,
          reason: 'Ticket 10',
        }),
      );
      assert.equal((await send('GET', '/api/v1/admin/agents', viewing.headers)).statusCode, 200);
      await run('user:platform-admin', { email: root.user.email, state: 'off' });
      expectError(await send('GET', '/api/v1/admin/agents', viewing.headers), 401, 'unauthenticated');
      await run('user:platform-admin', { email: root.user.email, state: 'on' });
      assert.equal((await send('GET', '/api/v1/admin/agents', viewing.headers)).statusCode, 200);
      // The operator signing out of their own session ends the impersonation with it.
      const parentId = await parentOf(viewing);
      assert.ok(parentId);
      await t.database.db.deleteFrom('admin_sessions').where('id', '=', parentId).execute();
      expectError(await send('GET', '/api/v1/admin/agents', viewing.headers), 401, 'unauthenticated');
      expectError(await send('DELETE', '/api/v1/admin/session', viewing.headers), 401, 'unauthenticated');
      expectData(await send('GET', '/api/v1/admin/session', acmeSession.headers), 200, ZAdminSession);
    });
  });

  async function parentOf(session: Session): Promise<string | null> {
    const row = await t.database.db
      .selectFrom('admin_sessions')
      .select('parent_session_id')
      .where('secret_hash', '=', sha256Hex(session.secret))
      .executeTakeFirst();
    return row?.parent_session_id ?? null;
  }
});
