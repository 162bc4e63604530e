import { dataEnvelope, ZAdminSession, ZServiceError, ZSessionLogin } from '@service/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { configKeyring } from '../../security/secret-keyring.js';
import {
  SESSION_COOKIE,
  SESSION_LIFETIME_SECONDS,
  sessionView,
  signIn,
  signOut,
} from '../../services/accounts/admin-sessions.js';
import { endImpersonation, impersonationOf } from '../../services/accounts/impersonation.js';
import { headerOf, requireCsrf, sessionOfRequest } from './admin-auth.js';

const tags = ['admin: session'];
const sessionSecurity: Array<Record<string, string[]>> = [{ sessionCookie: [] }];

/**
 * `/session` of the admin surface: sign in with email and password (a session cookie plus the
 * CSRF token to send back), read the session, sign out. Every route says `auth: 'none'`: the
 * surface's token-or-session check does not apply (signing in is how a browser gets
 * credentials; reading and ending a session check its cookie here). The cookie is sent to paths
 * under `cookiePath` only (the admin API, never the widget or public pages).
 */
export function sessionRoutes(
  deps: AppDeps,
  limits: Pick<RateLimits, 'login'>,
  options: { cookiePath: string },
): FastifyPluginAsyncZod {
  const now = () => deps.clock.now();
  const keys = configKeyring(deps.config);
  const cookieOptions = (request: FastifyRequest): Parameters<FastifyReply['setCookie']>[2] =>
    sessionCookieOptions(request, options.cookiePath);
  return async (app) => {
    app.post(
      '/',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'Sign in: sets an HttpOnly session cookie and answers the CSRF token',
          body: ZSessionLogin,
          response: {
            200: dataEnvelope(ZAdminSession),
            401: ZServiceError.describe('Wrong email, password or two-factor code (no detail)'),
            403: ZServiceError.describe('A cross-site sign-in, or an account without a workspace'),
            422: ZServiceError.describe(
              'Validation failed; see errors.<field>. errors.code: two-factor is on and no code was sent',
            ),
            429: ZServiceError.describe('More than 5 attempts a minute for this email from this address'),
          },
        },
      },
      async (request, reply) => {
        refuseCrossSite(request, deps.config.publicBaseUrl);
        await limits.login.consume(`${request.body.email.toLowerCase()}|${request.ip}`);
        const { secret, session } = await signIn({
          db: deps.database.db,
          input: request.body,
          bcryptCost: deps.config.bcryptCost,
          keys,
          now: now(),
          ip: request.ip,
          userAgent: headerOf(request, 'user-agent'),
          requestId: request.id,
        });
        reply.setCookie(SESSION_COOKIE, secret, {
          ...cookieOptions(request),
          maxAge: SESSION_LIFETIME_SECONDS,
        });
        return reply.header('cache-control', 'no-store').send({ data: session });
      },
    );

    app.get(
      '/',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'The signed-in session: user, workspace, CSRF token and when it ends',
          security: sessionSecurity,
          response: { 200: dataEnvelope(ZAdminSession), 401: ZServiceError.describe('Not signed in') },
        },
      },
      async (request, reply) => {
        const { secret, session } = await sessionOfRequest(deps.database.db, request, now());
        return reply
          .header('cache-control', 'no-store')
          .send({ data: await sessionView(deps.database.db, session, secret) });
      },
    );

    app.delete(
      '/',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'Sign out: ends the session and clears its cookie (needs X-CSRF-Token)',
          description:
            'In an impersonation (a platform operator viewing as a member, live or past its end) it ' +
            "ends the impersonation instead and answers 200 with the operator's own session under a " +
            'new cookie; 204 when that session has ended too.',
          security: sessionSecurity,
          response: {
            200: dataEnvelope(ZAdminSession).describe("An impersonation ended: the operator's own session"),
            204: z.null().describe('Signed out'),
            401: ZServiceError.describe('Not signed in'),
            403: ZServiceError.describe('Missing or wrong X-CSRF-Token'),
          },
        },
      },
      async (request, reply) => {
        const cookie = request.cookies[SESSION_COOKIE];
        if (cookie && (await impersonationOf(deps.database.db, cookie))) {
          // Viewing as a member (even past its end): back to the operator's own session.
          requireCsrf(request, cookie);
          const ended = await endImpersonation({
            db: deps.database.db,
            clock: deps.clock,
            secret: cookie,
            requestId: request.id,
          });
          const restored = ended?.restored;
          if (restored) {
            reply.setCookie(SESSION_COOKIE, restored.secret, {
              ...cookieOptions(request),
              maxAge: SESSION_LIFETIME_SECONDS,
            });
            return reply
              .status(200)
              .header('cache-control', 'no-store')
              .send({ data: await sessionView(deps.database.db, restored.session, restored.secret) });
          }
          reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
          return reply.status(204).send(null);
        }
        const { secret, session } = await sessionOfRequest(deps.database.db, request, now());
        requireCsrf(request, secret);
        await signOut(deps.database.db, session, request.id);
        reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
        return reply.status(204).send(null);
      },
    );
  };
}

/** HttpOnly, SameSite=Strict, admin paths only, Secure whenever the request came over HTTPS. */
export function sessionCookieOptions(
  request: FastifyRequest,
  path: string,
): Parameters<FastifyReply['setCookie']>[2] {
  return { httpOnly: true, sameSite: 'strict', path, secure: request.protocol === 'https' };
}

/**
 * Refuses a sign-in posted from another site (login CSRF: being signed in to someone else's
 * account). A browser names the page's origin; it must be this service's. Clients that send no
 * Origin (scripts, curl) are not browsers and pass.
 */
export function refuseCrossSite(request: FastifyRequest, publicBaseUrl: string | undefined): void {
  const origin = headerOf(request, 'origin');
  if (origin === undefined) return;
  const own = new Set([`${request.protocol}://${request.host}`]);
  if (publicBaseUrl) own.add(new URL(publicBaseUrl).origin);
  if (!own.has(origin))
    throw new AppError('forbidden', { message: 'Sign in from this service’s own pages.' });
}
