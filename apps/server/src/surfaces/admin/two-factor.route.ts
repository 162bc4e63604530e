import {
  dataEnvelope,
  ZRecoveryCodes,
  ZServiceError,
  ZTwoFactorConfirm,
  ZTwoFactorDisable,
  ZTwoFactorSetup,
  ZTwoFactorStatus,
} from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import { configKeyring } from '../../security/secret-keyring.js';
import {
  beginTwoFactor,
  confirmTwoFactor,
  disableTwoFactor,
  type TwoFactorContext,
  twoFactorStatus,
} from '../../services/accounts/two-factor.js';
import { actingUserId } from '../../services/context.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';

const tags = ['admin: account'];
const conflict = { 409: ZServiceError.describe('Already on, already off, or no setup started') };

/**
 * `/api/v1/admin/me/two-factor`: the caller's own two-factor sign-in (TOTP): status, start a
 * setup, confirm it with a first code (answers the recovery codes, once), turn it off with a
 * code. Only for callers acting for a user (a session, or a token a user made).
 */
export function twoFactorRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const keys = configKeyring(deps.config);
  const context = (request: FastifyRequest): TwoFactorContext => {
    const scope = adminScope(deps, request);
    const userId = actingUserId(scope.actor);
    if (!userId) throw new AppError('forbidden', { message: 'This token does not act for a user.' });
    return {
      db: scope.db,
      keys,
      userId,
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      now: deps.clock.now(),
      requestId: request.id,
    };
  };
  return async (app) => {
    app.get(
      '/me/two-factor',
      {
        config: { permission: 'account.self' },
        schema: {
          tags,
          summary: 'Whether two-factor sign-in is on for the caller',
          security: bearerSecurity,
          response: { 200: dataEnvelope(ZTwoFactorStatus), ...adminErrorResponses },
        },
      },
      async (request) => {
        const { db, userId } = context(request);
        return { data: await twoFactorStatus(db, keys, userId) };
      },
    );

    app.post(
      '/me/two-factor',
      {
        config: { permission: 'account.self', impersonation: 'refused' },
        schema: {
          tags,
          summary: 'Start turning two-factor on: a new secret and its otpauth:// address',
          security: bearerSecurity,
          response: { 200: dataEnvelope(ZTwoFactorSetup), ...adminErrorResponses, ...conflict },
        },
      },
      async (request, reply) =>
        reply.header('cache-control', 'no-store').send({ data: await beginTwoFactor(context(request)) }),
    );

    app.post(
      '/me/two-factor/confirm',
      {
        config: { permission: 'account.self', impersonation: 'refused' },
        schema: {
          tags,
          summary: 'Turn two-factor on with a first code; answers the recovery codes, this once',
          security: bearerSecurity,
          body: ZTwoFactorConfirm,
          response: { 200: dataEnvelope(ZRecoveryCodes), ...adminErrorResponses, ...conflict },
        },
      },
      async (request, reply) => {
        const codes = await confirmTwoFactor(context(request), request.body.code);
        return reply.header('cache-control', 'no-store').send({ data: { recovery_codes: codes } });
      },
    );

    app.delete(
      '/me/two-factor',
      {
        config: { permission: 'account.self', impersonation: 'refused' },
        schema: {
          tags,
          summary: 'Turn two-factor off; takes a current code or a recovery code',
          security: bearerSecurity,
          body: ZTwoFactorDisable,
          response: { 204: z.null().describe('Off'), ...adminErrorResponses, ...conflict },
        },
      },
      async (request, reply) => {
        await disableTwoFactor(context(request), request.body);
        return reply.status(204).send(null);
      },
    );
  };
}
