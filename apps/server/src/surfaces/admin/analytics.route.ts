import { dataEnvelope, ZAgentAnalytics, ZAnalyticsQuery } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { analyticsCsv, getAgentAnalytics } from '../../services/analytics/agent-analytics.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: analytics'];

/**
 * `/api/v1/admin/agents/{id}/analytics`: an agent's daily series, totals, top questions and
 * most cited sources (with the ratings of the answers that cited them) for a period of UTC
 * days, read from the daily roll-ups; `.csv` exports the series.
 */
export function analyticsRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:id/analytics',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "An agent's analytics for a period (default: the last 30 days; at most 366)",
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZAnalyticsQuery,
          response: { 200: dataEnvelope(ZAgentAnalytics), ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        return { data: await getAgentAnalytics(scope, request.query) };
      },
    );

    app.get(
      '/agents/:id/analytics.csv',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "An agent's daily series for a period as CSV (text/csv, one row per day)",
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZAnalyticsQuery,
          // Sent as text/csv: fastify serialises only JSON content types, a string goes out as is.
          response: {
            200: z.string().describe('text/csv: a header row, then one row per day'),
            ...recordErrorResponses,
          },
        },
      },
      async (request, reply) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        const analytics = await getAgentAnalytics(scope, request.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="analytics-${analytics.from}-${analytics.to}.csv"`,
          )
          .header('cache-control', 'no-store')
          .send(analyticsCsv(analytics));
      },
    );
  };
}
