import { dataEnvelope, ZAdminSession, ZWorkspaceMembership, ZWorkspaceSwitch } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import { SESSION_COOKIE, sessionView } from '../../services/accounts/admin-sessions.js';
import { listUserWorkspaces, switchSessionWorkspace } from '../../services/accounts/workspaces.js';
import { actingUserId } from '../../services/context.js';
import { adminCaller, adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses } from './common.schema.js';

const tags = ['admin: account'];

/**
 * `/api/v1/admin/account/workspaces` (the caller's memberships) and `/account/workspace` (switch
 * the signed-in session to another of them). Switching is for sessions only: an API token is
 * bound to the workspace it was made in, and nothing a token sends moves it.
 */
export function workspaceRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/account/workspaces',
      {
        config: { permission: 'account.self' },
        schema: {
          tags,
          summary: "The workspaces of the user the caller acts for, by name, marking the caller's",
          security: bearerSecurity,
          response: { 200: dataEnvelope(z.array(ZWorkspaceMembership)), ...adminErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const userId = actingUserId(scope.actor);
        if (!userId) throw new AppError('forbidden', { message: 'This token does not act for a user.' });
        return {
          data: await listUserWorkspaces({ db: scope.db, userId, currentWorkspaceId: scope.workspaceId }),
        };
      },
    );

    app.post(
      '/account/workspace',
      {
        config: { permission: 'account.self', impersonation: 'refused' },
        schema: {
          tags,
          summary:
            'Switch the signed-in session (and the default workspace) to another of your workspaces; a token is 403',
          security: bearerSecurity,
          body: ZWorkspaceSwitch,
          response: { 200: dataEnvelope(ZAdminSession), ...recordErrorResponses },
        },
      },
      async (request) => {
        const caller = adminCaller(request);
        const secret = request.cookies[SESSION_COOKIE];
        if (caller.actor.type !== 'user' || caller.sessionId === null || !secret) {
          throw new AppError('forbidden', {
            message: 'An API token stays in its own workspace; sign in to the console to switch.',
          });
        }
        const switched = await switchSessionWorkspace({
          db: deps.database.db,
          clock: deps.clock,
          sessionId: caller.sessionId,
          userId: caller.actor.id,
          fromWorkspaceId: caller.workspaceId,
          toWorkspaceId: request.body.workspace_id,
          requestId: request.id,
        });
        return {
          data: await sessionView(deps.database.db, { userId: caller.actor.id, ...switched }, secret),
        };
      },
    );
  };
}
