import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { verifyPassword } from '../src/security/passwords.js';
import { resetTokenKey, signResetToken } from '../src/security/reset-token.js';
import { configKeyring } from '../src/security/secret-keyring.js';
import { SESSION_COOKIE } from '../src/services/accounts/admin-sessions.js';
import { requestPasswordReset } from '../src/services/accounts/password-reset.js';
import { postSignIn } from './support/admin-session.js';
import { resetLinkOf, storedMailText } from './support/mail.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';
const T0 = new Date('2026-11-22T10:00:00.000Z');
const BASE = 'https://chat.example.test';
const RESET = '/api/v1/admin/password-reset';

describe('password reset: request by email, signed single-use token valid 60 minutes', () => {
  let t: TestApp;
  const clock = createTestClock(T0);
  let address = 0;

  before(async () => {
    t = await createTestApp({ clock, env: { PUBLIC_BASE_URL: BASE } });
  });
  after(() => t.close());

  function nextIp(): string {
    address += 1;
    return `10.9.${Math.floor(address / 250)}.${address % 250}`;
  }

  function post(url: string, body: unknown, options: { ip?: string; headers?: Record<string, string> } = {}) {
    return t.app.inject({
      method: 'POST',
      url,
      remoteAddress: options.ip ?? nextIp(),
      headers: { 'content-type': 'application/json', ...options.headers },
      payload: JSON.stringify(body),
    });
  }

  async function mailsTo(email: string) {
    return t.database.db
      .selectFrom('mail_messages')
      .selectAll()
      .where('to_address', '=', email)
      .orderBy('id')
      .execute();
  }

  async function queuedSendMailJobs(): Promise<number> {
    return t.queue.countJobs('send-mail', 'created');
  }

  /** Issues a reset for `tenant` at the clock's now (through the service: no route limits) and returns the mailed token. */
  async function issueToken(tenant: Tenant): Promise<string> {
    await requestPasswordReset({
      db: t.database.db,
      queue: t.queue,
      keys: configKeyring(t.config),
      appKey: t.config.appKey,
      clock,
      email: tenant.user.email,
      ip: '127.0.0.1',
      language: 'en',
      linkFor: (token) => `${BASE}/admin/reset-password#token=${encodeURIComponent(token)}`,
    });
    const mails = await mailsTo(tenant.user.email);
    const last = mails.at(-1);
    assert.ok(last, 'a mail was stored');
    return resetLinkOf(await storedMailText(t.database.db, t.config.appKey, last.id)).token;
  }

  async function passwordHashOf(userId: string): Promise<string> {
    const row = await t.database.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return row.password_hash;
  }

  function confirm(token: string, password = NEW_PASSWORD) {
    return post(`${RESET}/confirm`, { token, password });
  }

  function assertTokenRefused(response: {
    statusCode: number;
    json(): { code: string; errors: Record<string, string[]> };
  }) {
    assert.equal(response.statusCode, 422);
    const body = response.json();
    assert.equal(body.code, 'validation_failed');
    assert.match(body.errors.token?.[0] ?? '', /invalid, has expired or was already used/);
  }

  test('the answer is the same whether or not the address has an account; only a real one gets a mail', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Reset same answer');
    const jobsBefore = await queuedSendMailJobs();
    const known = await post(RESET, { email: tenant.user.email.toUpperCase() });
    const unknown = await post(RESET, { email: 'nobody-here@example.com' });
    assert.equal(known.statusCode, 202, known.body);
    assert.equal(unknown.statusCode, 202, unknown.body);
    assert.equal(known.body, unknown.body);
    assert.equal(known.headers['cache-control'], 'no-store');
    assert.match(known.json().data.message, /If an account uses this address/);

    const mails = await mailsTo(tenant.user.email);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]?.kind, 'password_reset');
    assert.equal(mails[0]?.status, 'pending');
    assert.equal((await mailsTo('nobody-here@example.com')).length, 0);
    assert.equal(await queuedSendMailJobs(), jobsBefore + 1, 'one send-mail job, for the real address only');
    // The live link is sealed in the row, never stored readable.
    const text = await storedMailText(t.database.db, t.config.appKey, mails[0]?.id ?? '');
    const { link, token } = resetLinkOf(text);
    assert.ok(!JSON.stringify(mails[0]).includes(token));
    assert.ok(link.startsWith(`${BASE}/admin/reset-password#token=`), link);

    const audit = await t.database.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('workspace_id', '=', tenant.workspace.id)
      .where('action', '=', 'user.password_reset_requested')
      .execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.target_id, tenant.user.id);
  });

  test('the link is built from PUBLIC_BASE_URL, never from a forged Host header', async () => {
    const tenant = await seedTenant(t, 'Reset host');
    const response = await post(RESET, { email: tenant.user.email }, { headers: { host: 'evil.example' } });
    assert.equal(response.statusCode, 202);
    const [mail] = await mailsTo(tenant.user.email);
    const text = await storedMailText(t.database.db, t.config.appKey, mail?.id ?? '');
    assert.ok(resetLinkOf(text).link.startsWith(`${BASE}/`));
    assert.ok(!text.includes('evil.example'));
  });

  test('bad input is a 422 and sends nothing; a cross-site post is a 403', async () => {
    for (const body of [
      {},
      { email: 'not an email' },
      { email: `${'a'.repeat(250)}@example.com` },
      { email: 'a\u0000b@example.com' },
      { email: 'x@example.com', role: 'admin' },
      { email: ['x@example.com'] },
    ]) {
      const response = await post(RESET, body);
      assert.equal(response.statusCode, 422, JSON.stringify(body));
      assert.equal(response.json().code, 'validation_failed');
    }
    const tenant = await seedTenant(t, 'Reset cross-site');
    const crossSite = await post(
      RESET,
      { email: tenant.user.email },
      { headers: { origin: 'https://evil.example' } },
    );
    assert.equal(crossSite.statusCode, 403);
    assert.equal((await mailsTo(tenant.user.email)).length, 0);
  });

  test('throttled per email: the 6th request in an hour is a 429, for a known and an unknown address alike', async () => {
    const tenant = await seedTenant(t, 'Reset throttle email');
    for (const email of [tenant.user.email, 'throttled-unknown@example.com']) {
      for (let i = 1; i <= 5; i += 1) {
        const ok = await post(RESET, { email });
        assert.equal(ok.statusCode, 202, `request ${i} for ${email}`);
      }
      const limited = await post(RESET, { email: email.toUpperCase() });
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
    }
    assert.equal((await mailsTo(tenant.user.email)).length, 5, 'the throttled request sent nothing');
  });

  test('throttled per client address: the 21st request in an hour from one address is a 429', async () => {
    const ip = '10.77.0.1';
    for (let i = 1; i <= 20; i += 1) {
      const ok = await post(RESET, { email: `ip-limit-${i}@example.com` }, { ip });
      assert.equal(ok.statusCode, 202, `request ${i}`);
    }
    const limited = await post(RESET, { email: 'ip-limit-21@example.com' }, { ip });
    assert.equal(limited.statusCode, 429);
    const elsewhere = await post(RESET, { email: 'ip-limit-21@example.com' }, { ip: '10.77.0.2' });
    assert.equal(elsewhere.statusCode, 202);
  });

  test('valid until 1 s before the 60 minutes end; refused at the end and 1 s after', async () => {
    const early = await seedTenant(t, 'Reset edge early');
    const late = await seedTenant(t, 'Reset edge late');
    clock.set(T0);
    const earlyToken = await issueToken(early);
    const lateToken = await issueToken(late);
    const lateHash = await passwordHashOf(late.user.id);

    clock.set(T0.getTime() + 3600_000);
    assertTokenRefused(await confirm(lateToken));
    clock.set(T0.getTime() + 3601_000);
    assertTokenRefused(await confirm(lateToken));
    assert.equal(await passwordHashOf(late.user.id), lateHash, 'nothing changed');

    clock.set(T0.getTime() + 3599_000);
    const accepted = await confirm(earlyToken);
    assert.equal(accepted.statusCode, 204, accepted.body);
    assert.ok(await verifyPassword(NEW_PASSWORD, await passwordHashOf(early.user.id)));
    clock.set(T0);
  });

  test('a token works once; a second use, or an older token of the same user, is refused', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Reset reuse');
    const older = await issueToken(tenant);
    const token = await issueToken(tenant);
    assert.equal((await confirm(token)).statusCode, 204);
    const afterFirst = await passwordHashOf(tenant.user.id);
    assertTokenRefused(await confirm(token, 'yet another password'));
    assertTokenRefused(await confirm(older, 'yet another password'));
    assert.equal(await passwordHashOf(tenant.user.id), afterFirst);
  });

  test('tampered, foreign-key, wrong-purpose and other users’ tokens are refused and change nothing', async () => {
    clock.set(T0);
    const alice = await seedTenant(t, 'Reset alice');
    const bob = await seedTenant(t, 'Reset bob');
    const aliceHash = await passwordHashOf(alice.user.id);
    const bobToken = await issueToken(bob);
    const bobRow = await t.database.db
      .selectFrom('password_reset_tokens')
      .select('id')
      .where('user_id', '=', bob.user.id)
      .executeTakeFirstOrThrow();
    const [header = '', payload = '', signature = ''] = bobToken.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const key = resetTokenKey(t.config.appKey);
    const iat = Math.floor(T0.getTime() / 1000);

    const hostile: Record<string, string> = {
      // Bob's signature over a payload that names Alice.
      'payload swapped to another user': `${header}.${b64({ ...claims, sub: alice.user.id })}.${signature}`,
      'signature altered': `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`,
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      'signed with another key': await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(new Uint8Array(32).fill(7)),
      'another purpose (audience)': await new SignJWT({ ...claims, aud: 'widget' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(key),
      // Genuinely signed (as if the key leaked into a test), but Bob's single-use row names Bob, not Alice.
      'another user’s token row': (
        await signResetToken(key, { userId: alice.user.id, tokenId: bobRow.id }, T0)
      ).token,
      'a token row that was never issued': (
        await signResetToken(key, { userId: alice.user.id, tokenId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' }, T0)
      ).token,
      'no expiry': await new SignJWT({
        sub: alice.user.id,
        jti: bobRow.id,
        iss: claims.iss,
        aud: claims.aud,
        iat,
      })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(key),
      garbage: 'not.a.token',
      truncated: bobToken.slice(0, 40),
    };
    for (const [label, token] of Object.entries(hostile)) {
      const response = await confirm(token);
      assert.equal(response.statusCode, 422, `${label}: ${response.body}`);
      assert.ok(response.json().errors.token, label);
    }
    for (const body of [
      { token: 'x'.repeat(2001), password: NEW_PASSWORD },
      { token: 'a\u0000b', password: NEW_PASSWORD },
      { token: bobToken, password: NEW_PASSWORD, user_id: alice.user.id },
    ]) {
      assert.equal((await post(`${RESET}/confirm`, body)).statusCode, 422);
    }
    assert.equal(await passwordHashOf(alice.user.id), aliceHash, 'Alice’s password never changed');

    // Bob's own token still works, and changes Bob's password only.
    assert.equal((await confirm(bobToken)).statusCode, 204);
    assert.ok(await verifyPassword(NEW_PASSWORD, await passwordHashOf(bob.user.id)));
    assert.equal(await passwordHashOf(alice.user.id), aliceHash);
  });

  test('the new password follows bootstrap’s rules; a refused password leaves the token usable', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Reset rules');
    const token = await issueToken(tenant);
    for (const password of ['seven77', 'é'.repeat(37)]) {
      const response = await confirm(token, password);
      assert.equal(response.statusCode, 422);
      assert.ok(response.json().errors.password, password);
    }
    assert.equal((await confirm(token, '8 chars!')).statusCode, 204);
  });

  test('a reset ends every session of the user, is audited, and the new password signs in', async () => {
    clock.set(T0);
    const tenant = await seedTenant(t, 'Reset sessions');
    const other = await seedTenant(t, 'Reset sessions other');
    const cookies: string[] = [];
    for (const who of [tenant, tenant, other]) {
      const signedIn = await postSignIn(t.app, { email: who.user.email, password: PASSWORD }, nextIp());
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      cookies.push(`${SESSION_COOKIE}=${signedIn.cookies.find((c) => c.name === SESSION_COOKIE)?.value}`);
    }
    const token = await issueToken(tenant);
    clock.set(T0.getTime() + 10 * 60_000);
    assert.equal((await confirm(token)).statusCode, 204);

    for (const [index, cookie] of cookies.entries()) {
      const session = await t.app.inject({
        method: 'GET',
        url: '/api/v1/admin/session',
        headers: { cookie },
      });
      assert.equal(session.statusCode, index < 2 ? 401 : 200, `session ${index}`);
    }
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('workspace_id', '=', tenant.workspace.id)
      .where('action', '=', 'user.password_reset')
      .execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.actor_type, 'user');
    assert.equal(audit[0]?.actor_id, tenant.user.id);
    assert.equal(audit[0]?.metadata.sessions_ended, 2);

    const oldPassword = await postSignIn(t.app, { email: tenant.user.email, password: PASSWORD }, nextIp());
    assert.equal(oldPassword.statusCode, 401);
    const newPassword = await postSignIn(
      t.app,
      { email: tenant.user.email, password: NEW_PASSWORD },
      nextIp(),
    );
    assert.equal(newPassword.statusCode, 200);
    clock.set(T0);
  });
});
