import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sha256Hex } from '../src/security/hashing.js';
import { inviteTokenKey, signInviteToken } from '../src/security/invite-token.js';
import { ADMIN_PREFIX } from '../src/surfaces/admin/index.js';
import { expectError } from './support/http.js';
import { storedMailText } from './support/mail.js';
import { MEMBER_PASSWORD, signedInMember, signInMember } from './support/members.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';
import { TEST_ENGINE } from './support/test-database.js';

const T0 = new Date('2026-11-20T09:00:00.000Z');
const BASE = 'https://console.example.test';
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

describe(`invites by email: signed single-use token valid 7 days (${TEST_ENGINE})`, () => {
  let t: TestApp;
  const clock = createTestClock(T0);
  let address = 0;

  before(async () => {
    t = await createTestApp({ clock, env: { PUBLIC_BASE_URL: BASE } });
  });
  after(() => t.close());

  function call(
    method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<LightMyRequestResponse> {
    address += 1;
    return t.app.inject({
      method,
      url: `${ADMIN_PREFIX}${path}`,
      remoteAddress: `10.7.${address >> 8}.${address & 255}`,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  }

  /** Invites `email` as `role` through the API and returns the invite and the mailed token. */
  async function invite(tenant: Tenant, email: string, role = 'editor', headers = tenant.auth) {
    const res = await call('POST', '/invites', headers, { email, role });
    assert.equal(res.statusCode, 201, res.body);
    const mail = await t.database.db
      .selectFrom('mail_messages')
      .select(['id', 'subject', 'kind'])
      .where('to_address', '=', email)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const text = await storedMailText(t.database.db, t.config.appKey, mail.id);
    const link = /https?:\/\/\S+\/admin\/accept-invite#token=\S+/.exec(text)?.[0];
    assert.ok(link, text);
    const token = decodeURIComponent(new URL(link).hash.replace(/^#token=/, ''));
    return { invite: res.json().data, token, mail, text, link };
  }

  async function userByEmail(email: string) {
    return t.database.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  async function roleIn(tenant: Tenant, userId: string) {
    const row = await t.database.db
      .selectFrom('memberships')
      .select('role')
      .where('workspace_id', '=', tenant.workspace.id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.role ?? null;
  }

  function assertTokenRefused(res: LightMyRequestResponse) {
    const body = expectError(res, 422, 'validation_failed');
    assert.match(body.errors.token?.[0] ?? '', /invalid, has expired, was revoked or was already used/);
  }

  test('creating stores the hash (never the token), queues the mail with the accept link, lists and audits it', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Invites create');
    const email = 'new.person@example.com';
    const { invite: created, token, mail, link } = await invite(tenant, email, 'viewer');
    assert.equal(created.email, email);
    assert.equal(created.role, 'viewer');
    assert.equal(created.expires_at, new Date(T0.getTime() + WEEK_MS).toISOString());
    assert.ok(link.startsWith(`${BASE}/admin/accept-invite#token=`));
    assert.equal(mail.kind, 'workspace_invite');
    assert.match(mail.subject, /Invites create/);
    const row = await t.database.db
      .selectFrom('workspace_invites')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256Hex(token));
    assert.ok(!JSON.stringify(row).includes(token));
    assert.ok((await t.queue.countJobs('send-mail', 'created')) >= 1);
    const list = await call('GET', '/invites', tenant.auth);
    assert.deepEqual(
      list.json().data.map((i: { id: string }) => i.id),
      [created.id],
    );
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .select(['metadata', 'target_id'])
      .where('workspace_id', '=', tenant.workspace.id)
      .where('action', '=', 'member.invited')
      .executeTakeFirstOrThrow();
    assert.equal(audit.target_id, created.id);
    assert.deepEqual(audit.metadata, { email, role: 'viewer', mail_id: mail.id });
  });

  test('an admin cannot invite an owner; a member or an open invite is a 409; hostile bodies are 422', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Invites refused');
    const admin = await signedInMember(t, tenant, 'admin');
    expectError(
      await call('POST', '/invites', admin.headers, { email: 'o@example.com', role: 'owner' }),
      403,
      'forbidden',
    );
    expectError(
      await call('POST', '/invites', tenant.auth, { email: 'o@example.com', role: 'owner' }),
      403,
      'forbidden',
    );
    expectError(
      await call('POST', '/invites', admin.headers, { email: admin.email, role: 'viewer' }),
      409,
      'conflict',
    );
    await invite(tenant, 'twice@example.com');
    expectError(
      await call('POST', '/invites', admin.headers, { email: 'TWICE@example.com', role: 'viewer' }),
      409,
    );
    for (const body of [
      { email: 'x@example.com' },
      { email: 'not-an-email', role: 'viewer' },
      { email: 'x@example.com', role: 'root' },
      { email: 'x@example.com', role: 'viewer', workspace_id: 'other' },
      { email: 'x@example.com', role: 'viewer', byok_enabled: true },
    ]) {
      expectError(await call('POST', '/invites', admin.headers, body), 422, 'validation_failed');
    }
    const rows = await t.database.db
      .selectFrom('workspace_invites')
      .select('email')
      .where('workspace_id', '=', tenant.workspace.id)
      .execute();
    assert.deepEqual(
      rows.map((r) => r.email),
      ['twice@example.com'],
    );
  });

  test('a new email accepts with name and password: a plain user, the invited role, nothing else taken', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Invites new user');
    const email = 'fresh@example.com';
    const { token } = await invite(tenant, email, 'editor');
    const view = await call('POST', '/invites/inspect', {}, { token });
    assert.equal(view.statusCode, 200, view.body);
    assert.deepEqual(view.json().data, {
      workspace_name: 'Invites new user',
      email,
      role: 'editor',
      account_exists: false,
      expires_at: new Date(T0.getTime() + WEEK_MS).toISOString(),
    });
    const missing = expectError(await call('POST', '/invites/accept', {}, { token }), 422);
    assert.deepEqual(Object.keys(missing.errors).sort(), ['name', 'password']);
    expectError(await call('POST', '/invites/accept', {}, { token, name: 'Fresh', password: 'short' }), 422);
    // Privileged fields are refused whole: nothing is created.
    for (const extra of [
      { role: 'admin' },
      { byok_enabled: true },
      { default_workspace_id: 'elsewhere' },
      { membership_role: 'owner' },
    ]) {
      const res = await call(
        'POST',
        '/invites/accept',
        {},
        { token, name: 'Fresh', password: MEMBER_PASSWORD, ...extra },
      );
      expectError(res, 422, 'validation_failed');
    }
    assert.equal(await userByEmail(email), undefined);

    const accepted = await call(
      'POST',
      '/invites/accept',
      {},
      { token, name: 'Fresh Person', password: MEMBER_PASSWORD },
    );
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.deepEqual(accepted.json().data, {
      workspace_id: tenant.workspace.id,
      workspace_name: 'Invites new user',
      email,
      role: 'editor',
      created_account: true,
    });
    const user = await userByEmail(email);
    assert.ok(user);
    assert.equal(user.role, 'user');
    assert.equal(user.byok_enabled, false);
    assert.equal(user.default_workspace_id, tenant.workspace.id);
    assert.equal(user.name, 'Fresh Person');
    assert.equal(await roleIn(tenant, user.id), 'editor');
    // Single use; and the new user signs in with the password chosen.
    assertTokenRefused(
      await call('POST', '/invites/accept', {}, { token, name: 'Again', password: MEMBER_PASSWORD }),
    );
    assertTokenRefused(await call('POST', '/invites/inspect', {}, { token }));
    const session = await signInMember(t, email);
    assert.equal((await call('GET', '/agents', session)).statusCode, 200);
    assert.equal((await call('GET', '/invites', tenant.auth)).json().data.length, 0);
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .select(['actor_id', 'metadata'])
      .where('workspace_id', '=', tenant.workspace.id)
      .where('action', '=', 'member.invite_accepted')
      .executeTakeFirstOrThrow();
    assert.equal(audit.actor_id, user.id);
  });

  test('an existing account must be signed in as itself, and sends no password', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Invites existing');
    const elsewhere = await seedTenant(t, 'Invites existing home');
    const stranger = await seedTenant(t, 'Invites stranger');
    const { token } = await invite(tenant, elsewhere.user.email.toUpperCase(), 'viewer');
    assert.equal((await call('POST', '/invites/inspect', {}, { token })).json().data.account_exists, true);
    expectError(await call('POST', '/invites/accept', {}, { token }), 403, 'forbidden');
    const strangerSession = await signInMember(t, stranger.user.email);
    expectError(await call('POST', '/invites/accept', strangerSession, { token }), 403, 'forbidden');
    const theirs = await signInMember(t, elsewhere.user.email);
    expectError(
      await call('POST', '/invites/accept', theirs, { token, password: 'a new password!' }),
      422,
      'validation_failed',
    );
    const before = await userByEmail(elsewhere.user.email);
    const res = await call('POST', '/invites/accept', theirs, { token });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.created_account, false);
    assert.equal(await roleIn(tenant, elsewhere.user.id), 'viewer');
    assert.equal(await roleIn(stranger, stranger.user.id), 'owner');
    // The user row is untouched: password, role, default workspace.
    assert.deepEqual(await userByEmail(elsewhere.user.email), before);
  });

  test('expired (pinned clock, ±1 s), revoked, tampered and re-signed tokens are refused and change nothing', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Invites refused tokens');
    const late = await invite(tenant, 'late@example.com');
    const revoked = await invite(tenant, 'revoked@example.com');
    const other = await invite(tenant, 'other@example.com');

    clock.set(T0.getTime() + WEEK_MS - 1000);
    assert.equal((await call('POST', '/invites/inspect', {}, { token: late.token })).statusCode, 200);
    clock.set(T0.getTime() + WEEK_MS);
    assertTokenRefused(await call('POST', '/invites/inspect', {}, { token: late.token }));
    clock.set(T0.getTime() + WEEK_MS + 1000);
    assertTokenRefused(
      await call(
        'POST',
        '/invites/accept',
        {},
        { token: late.token, name: 'Late', password: MEMBER_PASSWORD },
      ),
    );
    assert.equal(
      (await call('GET', '/invites', tenant.auth)).json().data.length,
      0,
      'expired ones are not listed',
    );

    clock.set(T0.getTime() + 60_000);
    const revokeRes = await call('DELETE', `/invites/${revoked.invite.id}`, tenant.auth);
    assert.equal(revokeRes.statusCode, 200, revokeRes.body);
    expectError(await call('DELETE', `/invites/${revoked.invite.id}`, tenant.auth), 404, 'not_found');
    assertTokenRefused(
      await call(
        'POST',
        '/invites/accept',
        {},
        { token: revoked.token, name: 'R', password: MEMBER_PASSWORD },
      ),
    );

    const [head = '', payload = '', signature = ''] = other.token.split('.');
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
    const resigned = (
      await signInviteToken(inviteTokenKey(t.config.appKey), other.invite.id, new Date(T0.getTime() + 5000))
    ).token;
    const foreignKey = (await signInviteToken(inviteTokenKey(Buffer.alloc(32, 7)), other.invite.id, T0))
      .token;
    for (const [label, token] of Object.entries({
      'a changed signature': `${head}.${payload}.${flipped}`,
      'a token of another key': foreignKey,
      'a valid signature whose hash is not the row’s': resigned,
      garbage: 'not-a-token',
      'alg none': `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`,
    })) {
      const res = await call('POST', '/invites/accept', {}, { token, name: 'X', password: MEMBER_PASSWORD });
      assert.equal(res.statusCode, 422, `${label}: ${res.body}`);
      assertTokenRefused(res);
    }
    for (const email of ['late@example.com', 'revoked@example.com', 'other@example.com']) {
      assert.equal(await userByEmail(email), undefined, email);
    }
    // The untouched invite still works.
    const ok = await call(
      'POST',
      '/invites/accept',
      {},
      { token: other.token, name: 'Other', password: MEMBER_PASSWORD },
    );
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test(`invite creation is throttled per workspace: the 21st in an hour is 429 and stores nothing`, async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Invites throttle');
    for (let i = 0; i < 20; i += 1) {
      const res = await call('POST', '/invites', tenant.auth, {
        email: `bulk${i}@example.com`,
        role: 'viewer',
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    const refused = await call('POST', '/invites', tenant.auth, {
      email: 'bulk20@example.com',
      role: 'viewer',
    });
    expectError(refused, 429, 'rate_limited');
    assert.equal(refused.headers['retry-after'], '3600');
    assert.equal(
      (
        await t.database.db
          .selectFrom('mail_messages')
          .select('id')
          .where('to_address', '=', 'bulk20@example.com')
          .execute()
      ).length,
      0,
    );
    clock.set(T0.getTime() + 60 * 60 * 1000 + 1000);
    const later = await call('POST', '/invites', tenant.auth, {
      email: 'bulk20@example.com',
      role: 'viewer',
    });
    assert.equal(later.statusCode, 201, later.body);
  });

  test('the profile takes no privileged field: role, byok_enabled, default_workspace_id are 422 and change nothing', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Invites profile');
    const other = await seedTenant(t, 'Invites profile other');
    const viewer = await signedInMember(t, tenant, 'viewer');
    const before = await userByEmail(viewer.email);
    for (const body of [
      { role: 'admin' },
      { name: 'ok', byok_enabled: true },
      { default_workspace_id: other.workspace.id },
      { name: 'ok', role: 'owner', membership: { role: 'owner' } },
      { byok_enabled: 'true' },
    ]) {
      expectError(await call('PATCH', '/me', viewer.headers, body), 422, 'validation_failed');
    }
    assert.deepEqual(await userByEmail(viewer.email), before);
    assert.equal(await roleIn(tenant, viewer.userId), 'viewer');
  });
});
