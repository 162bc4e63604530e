import { ZPasswordChange, ZServiceError } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { pickMailLanguage } from '../../mail/mail-templates.js';
import { configKeyring } from '../../security/secret-keyring.js';
import { changePassword } from '../../services/accounts/password-change.js';
import { actingUserId } from '../../services/context.js';
import { CONSOLE_PREFIX } from '../console/index.js';
import { adminCaller, adminScope, headerOf } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';
import { mailLinkBase } from './password-reset.route.js';

/** `POST /api/v1/admin/me/password`: the signed-in user changes their password. */
export function mePasswordRoutes(deps: AppDeps, limits: Pick<RateLimits, 'login'>): FastifyPluginAsyncZod {
  const keys = configKeyring(deps.config);
  const resetLink = `${mailLinkBase(deps.config)}${CONSOLE_PREFIX}/forgot-password`;
  return async (app) => {
    app.post(
      '/me/password',
      {
        config: { permission: 'account.self', impersonation: 'refused' },
        schema: {
          tags: ['admin: account'],
          summary: "Change the caller's password: ends the user's other sessions, keeps this one",
          description:
            'Needs the current password (422 on errors.current_password when wrong; attempts are ' +
            'limited like sign-in, 5 a minute per user). The new password follows the setup and ' +
            'reset rules (8 characters to 72 bytes). Audited as user.password_changed; the user ' +
            'gets a "your password was changed" mail.',
          security: bearerSecurity,
          body: ZPasswordChange,
          response: {
            204: z.null().describe('Changed'),
            ...adminErrorResponses,
            429: ZServiceError.describe('More than 5 attempts a minute for this user'),
          },
        },
      },
      async (request, reply) => {
        const scope = adminScope(deps, request);
        const userId = actingUserId(scope.actor);
        if (!userId) throw new AppError('forbidden', { message: 'This token does not act for a user.' });
        await limits.login.consume(`password-change|${userId}`);
        await changePassword({
          db: deps.database.db,
          queue: deps.queue,
          keys,
          clock: scope.clock,
          workspaceId: scope.workspaceId,
          actor: scope.actor,
          userId,
          keepSessionId: adminCaller(request).sessionId,
          input: request.body,
          bcryptCost: deps.config.bcryptCost,
          language: pickMailLanguage(headerOf(request, 'accept-language')),
          resetLink,
          requestId: request.id,
        });
        return reply.status(204).header('cache-control', 'no-store').send(null);
      },
    );
  };
}
