import { Readable } from 'node:stream';
import { ZLeadFilters, ZLeadListQuery, ZLeadPage } from '@service/contract';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { listLeads } from '../../services/conversations/leads.js';
import { leadCsvLines } from '../../services/conversations/leads-export.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';

const tags = ['admin: leads'];

/** `GET /api/v1/admin/leads` (newest first, filtered) and its CSV export. */
export function leadRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/leads',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'List captured leads, newest first (keyset paging); search, agent and date filters',
          security: bearerSecurity,
          querystring: ZLeadListQuery,
          response: { 200: ZLeadPage, ...adminErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const { agent_id, q, from, to, cursor, limit } = request.query;
        const page = await listLeads({
          db: scope.db,
          workspaceId: scope.workspaceId,
          agentId: agent_id,
          q,
          from,
          to,
          cursor,
          limit,
        });
        return { data: page.items, meta: { next_cursor: page.nextCursor } };
      },
    );

    app.get(
      '/leads/export',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'The leads as CSV (same filters as the list), streamed; formula cells are defused',
          security: bearerSecurity,
          querystring: ZLeadFilters,
          description:
            '200 answers text/csv (UTF-8, CRLF lines, header line first, newest lead first) as an ' +
            'attachment; a cell starting with = + - @ tab or CR gets a leading apostrophe.',
          produces: ['text/csv'],
          response: { 200: z.string().describe('CSV'), ...adminErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = adminScope(deps, request);
        const { agent_id, q, from, to } = request.query;
        const day = scope.clock.now().toISOString().slice(0, 10);
        const lines = leadCsvLines({
          db: scope.db,
          workspaceId: scope.workspaceId,
          agentId: agent_id,
          q,
          from,
          to,
        });
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="leads-${day}.csv"`)
          .header('cache-control', 'no-store');
        return sendStream(reply, Readable.from(lines));
      },
    );
  };
}

/** Sends a stream as the body: the route's schema types the body as a string, which a stream is not. */
function sendStream(reply: FastifyReply, stream: Readable): FastifyReply {
  return reply.send(stream);
}
