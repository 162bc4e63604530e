import { ZLeadListQuery, ZLeadPage } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { listLeads } from '../../services/conversations/leads.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';

/** `GET /api/v1/admin/leads`: the leads the widget captured, newest first. */
export function leadRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/leads',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags: ['admin: leads'],
          summary: 'List captured leads, newest first (keyset paging)',
          security: bearerSecurity,
          querystring: ZLeadListQuery,
          response: { 200: ZLeadPage, ...adminErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const page = await listLeads({
          db: scope.db,
          workspaceId: scope.workspaceId,
          agentId: request.query.agent_id,
          cursor: request.query.cursor,
          limit: request.query.limit,
        });
        return { data: page.items, meta: { next_cursor: page.nextCursor } };
      },
    );
  };
}
