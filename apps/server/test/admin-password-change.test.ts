import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyPassword } from '../src/security/passwords.js';
import { postSignIn } from './support/admin-session.js';
import { storedMailText } from './support/mail.js';
import { MEMBER_PASSWORD, signedInMember, signInMember } from './support/members.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';

const URL_ = '/api/v1/admin/me/password';
const NEW_PASSWORD = 'a brand new passphrase';
const BASE = 'https://chat.example.test';

describe(`POST /me/password: change the signed-in user's password (${TEST_ENGINE})`, () => {
  let t: TestApp;
  let tenant: Tenant;
  let ip = 0;

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } });
    tenant = await seedTenant(t, 'Password change');
  });
  after(() => t.close());

  const change = (headers: Record<string, string>, body: unknown) =>
    injectJson(t.app, 'POST', URL_, body, headers);
  const hashOf = async (userId: string) =>
    (
      await t.database.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', userId)
        .executeTakeFirstOrThrow()
    ).password_hash;
  const auditOf = (userId: string) =>
    t.database.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('workspace_id', '=', tenant.workspace.id)
      .where('action', '=', 'user.password_changed')
      .where('target_id', '=', userId)
      .execute();
  const mailsTo = (email: string) =>
    t.database.db.selectFrom('mail_messages').selectAll().where('to_address', '=', email).execute();
  const sessionStatus = async (headers: Record<string, string>) =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/admin/session',
        headers: { cookie: headers.cookie ?? '' },
      })
    ).statusCode;

  test('changes the password, ends the other sessions, keeps this one, audits and mails', async () => {
    const member = await signedInMember(t, tenant, 'viewer');
    const other = await signInMember(t, member.email);
    const before = await hashOf(member.userId);
    const response = await change(member.headers, {
      current_password: MEMBER_PASSWORD,
      new_password: NEW_PASSWORD,
    });
    assert.equal(response.statusCode, 204, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.notEqual(await hashOf(member.userId), before);
    assert.ok(await verifyPassword(NEW_PASSWORD, await hashOf(member.userId)));
    assert.equal(await sessionStatus(member.headers), 200, 'this session is kept');
    assert.equal(await sessionStatus(other), 401, 'the other session ended');

    const audit = await auditOf(member.userId);
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.actor_type, 'user');
    assert.equal(audit[0]?.actor_id, member.userId);
    assert.equal(audit[0]?.metadata.sessions_ended, 1);
    assert.equal(JSON.stringify(audit[0]?.metadata).includes(NEW_PASSWORD), false);

    const mails = await mailsTo(member.email);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]?.kind, 'password_changed');
    assert.equal(mails[0]?.subject, 'Your password was changed');
    const text = await storedMailText(t.database.db, t.config.appKey, mails[0]?.id ?? '');
    assert.match(text, new RegExp(member.email.replace(/[.+]/g, '\\$&')));
    assert.ok(text.includes(`${BASE}/admin/forgot-password`), text);
    assert.equal(text.includes(NEW_PASSWORD), false);

    ip += 1;
    const old = await postSignIn(t.app, { email: member.email, password: MEMBER_PASSWORD }, `10.7.0.${ip}`);
    assert.equal(old.statusCode, 401);
    const fresh = await postSignIn(t.app, { email: member.email, password: NEW_PASSWORD }, `10.7.1.${ip}`);
    assert.equal(fresh.statusCode, 200);
  });

  test('a wrong current password is 422 on current_password and changes nothing', async () => {
    const member = await signedInMember(t, tenant, 'editor');
    const other = await signInMember(t, member.email);
    const before = await hashOf(member.userId);
    const response = await change(member.headers, {
      current_password: 'not my password',
      new_password: NEW_PASSWORD,
    });
    assert.equal(response.statusCode, 422);
    assert.equal(response.json().code, 'validation_failed');
    assert.ok(response.json().errors.current_password);
    assert.equal(await hashOf(member.userId), before);
    assert.equal(await sessionStatus(other), 200);
    assert.equal((await auditOf(member.userId)).length, 0);
    assert.equal((await mailsTo(member.email)).length, 0);
  });

  test('the new password follows the setup/reset rules (8 characters to 72 bytes), and differs', async () => {
    const member = await signedInMember(t, tenant, 'viewer');
    const before = await hashOf(member.userId);
    for (const weak of ['seven77', 'é'.repeat(37), MEMBER_PASSWORD]) {
      const response = await change(member.headers, {
        current_password: MEMBER_PASSWORD,
        new_password: weak,
      });
      assert.equal(response.statusCode, 422, weak);
      assert.ok(response.json().errors.new_password, weak);
    }
    for (const body of [
      {},
      { new_password: NEW_PASSWORD },
      { current_password: MEMBER_PASSWORD, new_password: NEW_PASSWORD, role: 'admin' },
    ]) {
      assert.equal((await change(member.headers, body)).statusCode, 422, JSON.stringify(body));
    }
    assert.equal(await hashOf(member.userId), before);
    const edge = await change(member.headers, {
      current_password: MEMBER_PASSWORD,
      new_password: '8 chars!',
    });
    assert.equal(edge.statusCode, 204, edge.body);
  });

  test('attempts are limited like sign-in: the sixth in a minute is 429', async () => {
    const member = await signedInMember(t, tenant, 'viewer');
    for (let i = 0; i < 5; i += 1) {
      const response = await change(member.headers, {
        current_password: `wrong ${i}`,
        new_password: NEW_PASSWORD,
      });
      assert.equal(response.statusCode, 422);
    }
    const limited = await change(member.headers, {
      current_password: MEMBER_PASSWORD,
      new_password: NEW_PASSWORD,
    });
    assert.equal(limited.statusCode, 429);
    assert.ok(await verifyPassword(MEMBER_PASSWORD, await hashOf(member.userId)));
  });

  test('a session without the CSRF header is 403, no credential 401', async () => {
    const member = await signedInMember(t, tenant, 'viewer');
    const noCsrf = await change(
      { cookie: member.headers.cookie ?? '' },
      { current_password: MEMBER_PASSWORD, new_password: NEW_PASSWORD },
    );
    assert.equal(noCsrf.statusCode, 403);
    assert.equal((await change({}, { current_password: 'x', new_password: NEW_PASSWORD })).statusCode, 401);
  });
});
