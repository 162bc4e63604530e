import assert from 'node:assert/strict';
import { ZAdminSession } from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { DATA_COMMANDS } from '../../src/cli/commands.js';
import { AppError } from '../../src/errors/app-error.js';
import { createLogger } from '../../src/logger.js';
import { configKeyring } from '../../src/security/secret-keyring.js';
import { SESSION_COOKIE, signIn } from '../../src/services/accounts/admin-sessions.js';
import { expectData } from './http.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './test-app.js';
import type { TestClock } from './test-clock.js';

// What the platform-operator tests share (platform-*.test.ts): a store with three workspaces
// (the first, bootstrap's, whose owner is a platform operator; Acme and Other, customers'),
// signed-in sessions, the CLI commands, and requests with a session's cookie and CSRF token.

export const PASSWORD = 'correct horse battery';
export const PLATFORM = '/api/v1/admin/platform';
export const START = Date.parse('2026-03-02T10:00:00.000Z');
export const isValidationError = (error: unknown) =>
  error instanceof AppError && error.code === 'validation_failed';

/** A 200 list answer, `{data, meta}`, with its rows parsed. */
export function pageOf<T extends z.ZodType>(res: LightMyRequestResponse, item: T) {
  assert.equal(res.statusCode, 200, res.body);
  return z
    .strictObject({ data: z.array(item), meta: z.record(z.string(), z.string().nullable()) })
    .parse(JSON.parse(res.body));
}

export type Session = { secret: string; headers: Record<string, string> };

const headersFor = (secret: string, csrf: string) => ({
  cookie: `${SESSION_COOKIE}=${secret}`,
  'x-csrf-token': csrf,
});

/** The helpers, on the test app `app()` returns (set by the file's `before`) and its pinned clock. */
export function platformHelpers(clock: TestClock, app: () => TestApp) {
  const context = () => ({
    config: app().config,
    database: app().database,
    clock,
    log: createLogger('silent'),
  });
  const send = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ) =>
    body === undefined && method === 'GET'
      ? app().app.inject({ method, url, headers })
      : injectJson(app().app, method, url, body ?? {}, headers);
  return {
    run: (command: 'user:byok' | 'user:platform-admin', args: Record<string, unknown>) =>
      DATA_COMMANDS[command](context(), args),
    setPlan: (args: Record<string, unknown>) => DATA_COMMANDS['plan:set'](context(), args),
    /** Signs a user in through the sign-in service (no HTTP login limit), as the console would. */
    async sessionOf(tenant: Tenant): Promise<Session> {
      const { secret, session } = await signIn({
        db: app().database.db,
        input: { email: tenant.user.email, password: PASSWORD },
        bcryptCost: app().config.bcryptCost,
        keys: configKeyring(app().config),
        now: clock.now(),
        ip: '127.0.0.1',
        userAgent: 'test',
      });
      return { secret, headers: headersFor(secret, session.csrf_token) };
    },
    /** The session a response set in its cookie, with the CSRF token it answered. */
    sessionFrom(res: LightMyRequestResponse): Session & { view: z.infer<typeof ZAdminSession> } {
      const view = expectData(res, 200, ZAdminSession);
      const secret = res.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value;
      assert.ok(secret, 'a session cookie is set');
      return { secret, headers: headersFor(secret, view.csrf_token), view };
    },
    send,
    startImpersonation: (as: Session, body: unknown) =>
      send('POST', `${PLATFORM}/impersonation`, as.headers, body),
  };
}

/** The store the tests start from: the operator's workspace first (bootstrap's), then Acme and Other. */
export async function startPlatform(clock: TestClock) {
  const t = await createTestApp({ clock });
  const root = await seedTenant(t, 'Platform');
  const acme = await seedTenant(t, 'Acme');
  const other = await seedTenant(t, 'Other');
  const { sessionOf } = platformHelpers(clock, () => t);
  return { t, root, acme, other, rootSession: await sessionOf(root), acmeSession: await sessionOf(acme) };
}
