import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { generate } from 'otplib';
import { createSecretKeyring } from '../src/security/secret-keyring.js';
import { SESSION_COOKIE } from '../src/services/accounts/admin-sessions.js';
import {
  RECOVERY_CODES_PURPOSE,
  resealSecrets,
  TOTP_SECRET_PURPOSE,
} from '../src/services/sealed-secrets.js';
import { postSignIn, senderFor } from './support/admin-session.js';
import { createTestApp, issueToken, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery';
const START = new Date('2026-11-22T10:00:00.000Z');

describe('two-factor sign-in (TOTP) with recovery codes', () => {
  let t: TestApp;
  let clock = START;
  let address = 0;

  before(async () => {
    t = await createTestApp({ clock: { now: () => clock } });
  });
  after(() => t.close());

  /** Each sign-in from its own address, so the 5-a-minute limit never gets in the way here. */
  function signIn(body: Record<string, string>): Promise<LightMyRequestResponse> {
    address += 1;
    return postSignIn(t.app, body, `10.1.0.${address}`);
  }

  async function session(tenant: Tenant, extra: Record<string, string> = {}) {
    const response = await signIn({ email: tenant.user.email, password: PASSWORD, ...extra });
    assert.equal(response.statusCode, 200, response.body);
    const secret = response.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? '';
    return { cookie: `${SESSION_COOKIE}=${secret}`, 'x-csrf-token': String(response.json().data.csrf_token) };
  }

  const call = senderFor(() => t.app);

  const codeAt = (secret: string, at: Date) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

  /** A tenant whose owner turned two-factor on at START; its secret and recovery codes. */
  async function withTwoFactor(): Promise<{ tenant: Tenant; secret: string; recovery: string[] }> {
    const tenant = await seedTenant(t);
    const headers = await session(tenant);
    const setup = await call('POST', '/api/v1/admin/me/two-factor', headers);
    assert.equal(setup.statusCode, 200, setup.body);
    const secret: string = setup.json().data.secret;
    const confirmed = await call('POST', '/api/v1/admin/me/two-factor/confirm', headers, {
      code: await codeAt(secret, clock),
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    return { tenant, secret, recovery: confirmed.json().data.recovery_codes };
  }

  test('turning it on: a secret to scan, a first code to confirm, ten recovery codes shown once, all stored sealed', async () => {
    const tenant = await seedTenant(t);
    const headers = await session(tenant);
    const setup = await call('POST', '/api/v1/admin/me/two-factor', headers);
    assert.equal(setup.statusCode, 200, setup.body);
    assert.equal(setup.headers['cache-control'], 'no-store');
    const { secret, otpauth_url } = setup.json().data;
    assert.match(secret, /^[A-Z2-7]{16,}$/);
    assert.match(otpauth_url, /^otpauth:\/\/totp\//);
    assert.ok(otpauth_url.includes(`secret=${secret}`));
    const off = await call('GET', '/api/v1/admin/me/two-factor', headers);
    assert.deepEqual(off.json().data, { enabled: false, enabled_at: null, recovery_codes_left: 0 });

    const good = await codeAt(secret, clock);
    const wrong = good === '123456' ? '654321' : '123456';
    const refused = await call('POST', '/api/v1/admin/me/two-factor/confirm', headers, { code: wrong });
    assert.equal(refused.statusCode, 422);
    assert.ok(refused.json().errors.code);
    assert.equal((await call('GET', '/api/v1/admin/me/two-factor', headers)).json().data.enabled, false);

    const confirmed = await call('POST', '/api/v1/admin/me/two-factor/confirm', headers, { code: good });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    const codes: string[] = confirmed.json().data.recovery_codes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) assert.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const on = await call('GET', '/api/v1/admin/me/two-factor', headers);
    assert.deepEqual(on.json().data, {
      enabled: true,
      enabled_at: START.toISOString(),
      recovery_codes_left: 10,
    });
    assert.equal((await call('POST', '/api/v1/admin/me/two-factor', headers)).statusCode, 409);

    const row = await t.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', tenant.user.id)
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(secret), 'the secret is sealed');
    for (const code of codes) assert.ok(!stored.includes(code), 'recovery codes are sealed');
    assert.equal(row.totp_pending_sealed, null);
    const audit = await t.database.db
      .selectFrom('audit_logs')
      .select('actor_type')
      .where('action', '=', 'two_factor.enabled')
      .where('target_id', '=', tenant.user.id)
      .execute();
    assert.deepEqual(
      audit.map((r) => r.actor_type),
      ['user'],
    );
  });

  test('sign-in then needs a code: none is 422 naming code, a wrong or reused one 401, a current one 200', async () => {
    const { tenant, secret } = await withTwoFactor();
    const bare = await signIn({ email: tenant.user.email, password: PASSWORD });
    assert.equal(bare.statusCode, 422);
    assert.ok(bare.json().errors.code);
    assert.equal(bare.headers['set-cookie'], undefined);

    clock = new Date(START.getTime() + 60_000);
    const current = await codeAt(secret, clock);
    const wrong = current === '000000' ? '111111' : '000000';
    const refused = await signIn({ email: tenant.user.email, password: PASSWORD, code: wrong });
    assert.equal(refused.statusCode, 401);
    assert.deepEqual(refused.json(), { message: 'Unauthenticated.', code: 'unauthenticated', errors: {} });
    // The right code does not rescue a wrong password.
    const badPassword = await signIn({ email: tenant.user.email, password: 'nope', code: current });
    assert.equal(badPassword.statusCode, 401);

    await session(tenant, { code: current });
    const replay = await signIn({ email: tenant.user.email, password: PASSWORD, code: current });
    assert.equal(replay.statusCode, 401, 'a code works once');

    clock = new Date(START.getTime() + 90_000);
    await session(tenant, { code: await codeAt(secret, clock) });
    const stale = await codeAt(secret, new Date(clock.getTime() - 120_000));
    assert.equal(
      (await signIn({ email: tenant.user.email, password: PASSWORD, code: stale })).statusCode,
      401,
    );
    clock = START;
  });

  test('a recovery code stands in for a code, once; its case, spaces and dash do not matter', async () => {
    const { tenant, recovery } = await withTwoFactor();
    const first = recovery[0] ?? '';
    const headers = await session(tenant, { recovery_code: ` ${first.toUpperCase().replace('-', ' ')} ` });
    const again = await signIn({ email: tenant.user.email, password: PASSWORD, recovery_code: first });
    assert.equal(again.statusCode, 401);
    const status = await call('GET', '/api/v1/admin/me/two-factor', headers);
    assert.equal(status.json().data.recovery_codes_left, 9);
  });

  test('turning it off takes a current code; then the password alone signs in again', async () => {
    const { tenant, secret } = await withTwoFactor();
    clock = new Date(START.getTime() + 300_000);
    const headers = await session(tenant, { code: await codeAt(secret, clock) });
    assert.equal((await call('DELETE', '/api/v1/admin/me/two-factor', headers, {})).statusCode, 422);
    const wrong = await call('DELETE', '/api/v1/admin/me/two-factor', headers, { code: '999999' });
    assert.equal(wrong.statusCode, 422);
    clock = new Date(START.getTime() + 330_000);
    const off = await call('DELETE', '/api/v1/admin/me/two-factor', headers, {
      code: await codeAt(secret, clock),
    });
    assert.equal(off.statusCode, 204, off.body);
    assert.equal((await call('GET', '/api/v1/admin/me/two-factor', headers)).json().data.enabled, false);
    await session(tenant);
    clock = START;
  });

  test('the routes need a caller acting for a user, and a session needs its CSRF token', async () => {
    const tenant = await seedTenant(t);
    const cliToken = await issueToken(t, tenant, ['admin']);
    const asCli = await call('POST', '/api/v1/admin/me/two-factor', {
      authorization: `Bearer ${cliToken.token}`,
    });
    assert.equal(asCli.statusCode, 403);
    const headers = await session(tenant);
    const noCsrf = await call('POST', '/api/v1/admin/me/two-factor', { cookie: headers.cookie });
    assert.equal(noCsrf.statusCode, 403);
  });

  test('key rotation re-seals the two-factor secret and the recovery codes', async () => {
    const { tenant, secret, recovery } = await withTwoFactor();
    const appKey = t.config.appKey;
    assert.ok(appKey);
    const next = Buffer.alloc(32, 0x5a);
    await resealSecrets({ db: t.database.db, from: createSecretKeyring(appKey), to: next });
    const row = await t.database.db
      .selectFrom('users')
      .select(['totp_secret_sealed', 'recovery_codes_sealed'])
      .where('id', '=', tenant.user.id)
      .executeTakeFirstOrThrow();
    const keys = createSecretKeyring(next);
    assert.equal(keys.open(row.totp_secret_sealed ?? '', TOTP_SECRET_PURPOSE, tenant.user.id), secret);
    assert.deepEqual(
      JSON.parse(keys.open(row.recovery_codes_sealed ?? '', RECOVERY_CODES_PURPOSE, tenant.user.id)),
      recovery,
    );
  });
});
