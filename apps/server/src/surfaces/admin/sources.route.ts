import { dataEnvelope, ZSource, ZSourceUpdate } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { getSource, listAgentSources, updateSource } from '../../services/sources.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: sources'];

/** `/api/v1/admin/agents/{id}/sources` and `/api/v1/admin/sources/{id}`. */
export function sourceRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:id/sources',
      {
        schema: {
          tags,
          summary: "List an agent's knowledge sources",
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(z.array(ZSource)), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await listAgentSources(adminScope(deps.database.db, request), request.params.id),
      }),
    );

    app.get(
      '/sources/:id',
      {
        schema: {
          tags,
          summary: 'Read a source',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZSource), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await getSource(adminScope(deps.database.db, request), request.params.id),
      }),
    );

    app.patch(
      '/sources/:id',
      {
        schema: {
          tags,
          summary: "Change a synced site's plugin_base",
          security: bearerSecurity,
          params: ZIdParams,
          body: ZSourceUpdate,
          response: { 200: dataEnvelope(ZSource), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await updateSource(adminScope(deps.database.db, request), request.params.id, request.body),
      }),
    );
  };
}
