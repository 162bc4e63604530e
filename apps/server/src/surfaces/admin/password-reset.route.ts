import {
  dataEnvelope,
  ZPasswordResetConfirm,
  ZPasswordResetRequest,
  ZPasswordResetRequested,
  ZServiceError,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { pickMailLanguage } from '../../mail/mail-templates.js';
import { configKeyring } from '../../security/secret-keyring.js';
import {
  confirmPasswordReset,
  RESET_REQUESTED_MESSAGE,
  requestPasswordReset,
} from '../../services/accounts/password-reset.js';
import { CONSOLE_PREFIX } from '../console/index.js';
import { headerOf } from './admin-auth.js';
import { refuseCrossSite } from './session.route.js';

const tags = ['admin: session'];

/** The console page a reset link opens; the token rides in the fragment, so no server log or Referer sees it. */
export const RESET_PAGE_PATH = `${CONSOLE_PREFIX}/reset-password`;

/**
 * The base of links in mail: PUBLIC_BASE_URL, else the local address the service listens on.
 * Never the request's Host header: a forged one would mail the victim a link to another site
 * carrying their token.
 */
export function mailLinkBase(config: AppDeps['config']): string {
  return config.publicBaseUrl ?? `http://localhost:${config.port}`;
}

/**
 * `/password-reset` of the admin surface: ask for a reset mail, and set a new password with the
 * mailed token. Both say `auth: 'none'` (whoever forgot the password has no credential); the
 * request is throttled per email and per client address, the confirm per client address.
 */
export function passwordResetRoutes(
  deps: AppDeps,
  limits: Pick<RateLimits, 'login' | 'passwordResetEmail' | 'passwordResetIp'>,
): FastifyPluginAsyncZod {
  const keys = configKeyring(deps.config);
  const base = mailLinkBase(deps.config);
  return async (app) => {
    app.post(
      '/',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary:
            'Ask for a password-reset mail (the same answer whether or not the address has an account)',
          body: ZPasswordResetRequest,
          response: {
            202: dataEnvelope(ZPasswordResetRequested),
            403: ZServiceError.describe('Posted from another site'),
            422: ZServiceError.describe('Not an email address; see errors.email'),
            429: ZServiceError.describe(
              'More than 5 requests an hour for this email, or 20 from this address',
            ),
          },
        },
      },
      async (request, reply) => {
        refuseCrossSite(request, deps.config.publicBaseUrl);
        await limits.passwordResetIp.consume(request.ip);
        await limits.passwordResetEmail.consume(request.body.email.toLowerCase());
        await requestPasswordReset({
          db: deps.database.db,
          queue: deps.queue,
          keys,
          appKey: deps.config.appKey,
          clock: deps.clock,
          email: request.body.email,
          ip: request.ip,
          language: pickMailLanguage(headerOf(request, 'accept-language')),
          linkFor: (token) => `${base}${RESET_PAGE_PATH}#token=${encodeURIComponent(token)}`,
          requestId: request.id,
        });
        return reply
          .status(202)
          .header('cache-control', 'no-store')
          .send({ data: { message: RESET_REQUESTED_MESSAGE } });
      },
    );

    app.post(
      '/confirm',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'Set a new password with the mailed token: ends every session of the user',
          body: ZPasswordResetConfirm,
          response: {
            204: z.null().describe('Password changed; sign in with it'),
            403: ZServiceError.describe('Posted from another site'),
            422: ZServiceError.describe(
              'errors.token: the link is invalid, expired or used; errors.password: the password breaks a rule',
            ),
            429: ZServiceError.describe('More than 5 attempts a minute from this address'),
          },
        },
      },
      async (request, reply) => {
        refuseCrossSite(request, deps.config.publicBaseUrl);
        await limits.login.consume(`reset|${request.ip}`);
        await confirmPasswordReset({
          db: deps.database.db,
          appKey: deps.config.appKey,
          clock: deps.clock,
          input: request.body,
          bcryptCost: deps.config.bcryptCost,
          ip: request.ip,
          requestId: request.id,
        });
        return reply.status(204).header('cache-control', 'no-store').send(null);
      },
    );
  };
}
