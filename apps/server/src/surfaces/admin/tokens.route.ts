import {
  dataEnvelope,
  listPage,
  ZApiToken,
  ZApiTokenCreate,
  ZApiTokenCreated,
  ZListQuery,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { createApiToken, listApiTokens, revokeApiToken } from '../../services/accounts/api-tokens.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';
import { pageBody, pageRequestOf } from './list-page.js';

const tags = ['admin: tokens'];

/** `/api/v1/admin/tokens`: issue, list and revoke the workspace's API tokens. */
export function tokenRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/tokens',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'List API tokens, oldest first, a page at a time (never the plaintext)',
          security: bearerSecurity,
          querystring: ZListQuery,
          response: { 200: listPage(ZApiToken), ...adminErrorResponses },
        },
      },
      async (request) =>
        pageBody(await listApiTokens(adminScope(deps, request), pageRequestOf(deps, request.query))),
    );

    app.post(
      '/tokens',
      {
        config: { permission: 'workspace.configure', impersonation: 'refused' },
        schema: {
          tags,
          summary: 'Issue an API token; the plaintext is in this answer only',
          security: bearerSecurity,
          body: ZApiTokenCreate,
          response: { 201: dataEnvelope(ZApiTokenCreated), ...adminErrorResponses },
        },
      },
      async (request, reply) => {
        const token = await createApiToken(adminScope(deps, request), request.body);
        return reply.status(201).header('cache-control', 'no-store').send({ data: token });
      },
    );

    app.delete(
      '/tokens/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Revoke an API token',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZApiToken), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await revokeApiToken(adminScope(deps, request), request.params.id),
      }),
    );
  };
}
