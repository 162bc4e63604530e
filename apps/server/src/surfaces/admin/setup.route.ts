import { dataEnvelope, ZAdminSession, ZServiceError, ZSetupRequest, ZSetupStatus } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { configKeyring } from '../../security/secret-keyring.js';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS } from '../../services/accounts/admin-sessions.js';
import { hasNoUsers } from '../../services/accounts/bootstrap.js';
import { completeSetup } from '../../services/accounts/first-run.js';
import { headerOf } from './admin-auth.js';
import { refuseCrossSite, sessionCookieOptions } from './session.route.js';

const tags = ['admin: setup'];

/**
 * `/setup` of the admin surface: first run without the CLI. Both routes say `auth: 'none'`:
 * there is no user yet to authenticate; the one-time setup code the service logged at start is
 * the credential, checked in constant time, 5 attempts a minute per client address.
 */
export function setupRoutes(
  deps: AppDeps,
  limits: Pick<RateLimits, 'login'>,
  options: { cookiePath: string },
): FastifyPluginAsyncZod {
  const keys = configKeyring(deps.config);
  return async (app) => {
    app.get(
      '/',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'Whether the installation still needs its first user (the console then shows setup)',
          response: { 200: dataEnvelope(ZSetupStatus) },
        },
      },
      async (_request, reply) =>
        reply
          .header('cache-control', 'no-store')
          .send({ data: { needs_setup: await hasNoUsers(deps.database.db) } }),
    );

    app.post(
      '/',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'Create the first user and workspace with the setup code, and sign in',
          body: ZSetupRequest,
          response: {
            201: dataEnvelope(ZAdminSession),
            403: ZServiceError.describe('Wrong setup code, or posted from another site'),
            409: ZServiceError.describe('Already set up: a user exists'),
            422: ZServiceError.describe('Validation failed; see errors.<field>'),
            429: ZServiceError.describe('More than 5 attempts a minute from this address'),
          },
        },
      },
      async (request, reply) => {
        refuseCrossSite(request, deps.config.publicBaseUrl);
        await limits.login.consume(`setup|${request.ip}`);
        const { secret, session } = await completeSetup({
          db: deps.database.db,
          dataDir: deps.config.dataDir,
          input: request.body,
          bcryptCost: deps.config.bcryptCost,
          keys,
          clock: deps.clock,
          ip: request.ip,
          userAgent: headerOf(request, 'user-agent'),
          requestId: request.id,
        });
        reply.setCookie(SESSION_COOKIE, secret, {
          ...sessionCookieOptions(request, options.cookiePath),
          maxAge: SESSION_LIFETIME_SECONDS,
        });
        return reply.status(201).header('cache-control', 'no-store').send({ data: session });
      },
    );
  };
}
