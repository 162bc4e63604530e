import {
  dataEnvelope,
  ZAuditLog,
  ZAuditLogQuery,
  ZProfileUpdate,
  ZUser,
  ZWorkspace,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import { getUser, getWorkspace, updateProfile } from '../../services/accounts/accounts.js';
import { listAuditLogs } from '../../services/audit.js';
import { actingUserId } from '../../services/context.js';
import { adminCaller, adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';

const ZMe = z.object({
  user: ZUser.nullable().describe('The user the caller acts for; null for tokens made by the CLI'),
  workspace: ZWorkspace,
  token: z
    .object({ id: z.string(), abilities: z.array(z.string()) })
    .nullable()
    .describe('The API token of the request; null when signed in with a session cookie'),
});

/** `/api/v1/admin/me` and `/api/v1/admin/audit-logs`. */
export function accountRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/me',
      {
        config: { permission: 'account.self' },
        schema: {
          tags: ['admin: account'],
          summary: 'The caller: user, workspace and token (null for a session)',
          security: bearerSecurity,
          response: { 200: dataEnvelope(ZMe), ...adminErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const userId = actingUserId(scope.actor);
        return {
          data: {
            user: userId ? await getUser(scope.db, userId) : null,
            workspace: await getWorkspace(scope.db, scope.workspaceId),
            token:
              scope.actor.type === 'token'
                ? { id: scope.actor.id, abilities: adminCaller(request).abilities }
                : null,
          },
        };
      },
    );

    app.patch(
      '/me',
      {
        config: { permission: 'account.self', impersonation: 'refused' },
        schema: {
          tags: ['admin: account'],
          summary: "Update the caller's profile (name, email); privileged fields are rejected",
          security: bearerSecurity,
          body: ZProfileUpdate,
          response: { 200: dataEnvelope(ZUser), ...adminErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const userId = actingUserId(scope.actor);
        if (!userId) throw new AppError('forbidden', { message: 'This token does not act for a user.' });
        return {
          data: await updateProfile({
            db: scope.db,
            clock: scope.clock,
            userId,
            workspaceId: scope.workspaceId,
            actor: scope.actor,
            input: request.body,
            requestId: request.id,
          }),
        };
      },
    );

    app.get(
      '/audit-logs',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags: ['admin: account'],
          summary: "The workspace's audit log, newest first; filters: actor, action, target, date range",
          security: bearerSecurity,
          querystring: ZAuditLogQuery,
          response: {
            200: z.object({
              data: z.array(ZAuditLog),
              meta: z.object({ next_before: z.string().nullable() }),
            }),
            ...adminErrorResponses,
          },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const page = await listAuditLogs({ db: scope.db, workspaceId: scope.workspaceId, ...request.query });
        return { data: page.items, meta: { next_before: page.nextBefore } };
      },
    );
  };
}
