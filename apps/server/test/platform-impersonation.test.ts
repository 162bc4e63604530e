import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  IMPERSONATION_MINUTES,
  ZAdminSession,
  ZAuditLog,
  ZPlatformWorkspace,
  ZUser,
} from '@service/contract';
import { z } from 'zod';
import { sha256Hex } from '../src/security/hashing.js';
import { auditRows, expectData, expectError, expectValidation } from './support/http.js';
import { PLATFORM, pageOf, platformHelpers, type Session, START, startPlatform } from './support/platform.js';
import type { Tenant, TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';

// Impersonation ("view as" a member): who may start it, what is audited and how, which routes
// refuse an operator viewing as a member, and the 30-minute end at ±1 s on a pinned clock.
// On PGlite, and on PostgreSQL with TEST_DATABASE_URL.

describe('platform operators: impersonation', () => {
  const clock = createTestClock(START);
  let t: TestApp;
  let root: Tenant;
  let acme: Tenant;
  let other: Tenant;
  let rootSession: Session;
  let acmeSession: Session;
  const { run, sessionFrom, send, startImpersonation } = platformHelpers(clock, () => t);
  before(async () => {
    ({ t, root, acme, other, rootSession, acmeSession } = await startPlatform(clock));
  });
  after(() => t.close());

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
