import { dataEnvelope, ZWorkspacePlan } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { getWorkspacePlan } from '../../services/billing/plans.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';

const tags = ['admin: plan'];

/** `GET /api/v1/admin/plan`: the workspace's plan, its limits, this month's usage and the limits reached. */
export function planRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/plan',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "The workspace's plan, its limits, this month's usage and the limits reached",
          security: bearerSecurity,
          response: { 200: dataEnvelope(ZWorkspacePlan), ...adminErrorResponses },
        },
      },
      async (request) => ({ data: await getWorkspacePlan(adminScope(deps, request)) }),
    );
  };
}
