import { dataEnvelope, ZSearchRequest, ZSearchResult } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { searchChunks } from '../../retrieval/search.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: search'];

/** `POST /api/v1/admin/agents/{id}/search`: hybrid retrieval over one agent's indexed chunks. */
export function searchRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/agents/:id/search',
      {
        config: { permission: 'workspace.read', expensive: true },
        schema: {
          tags,
          summary: "Search an agent's indexed knowledge",
          description:
            'Full-text (all words, then any word; simple and the agent language) and, where pg_trgm ' +
            'exists, trigram similarity for typos, and where pgvector exists, vector similarity, fused ' +
            'by weighted reciprocal rank (k = 60; full-text 1, typos and vectors 0.25).',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZSearchRequest,
          response: { 200: dataEnvelope(ZSearchResult), ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const hits = await searchChunks({
          db: scope.db,
          workspaceId: scope.workspaceId,
          agentId: request.params.id,
          query: request.body.query,
          limit: request.body.limit,
          features: deps.database.features,
          embeddings: deps.embeddings ?? null,
          onVectorError: (error) =>
            request.log.warn({ err: error }, 'query not embedded; searching without vectors'),
        });
        return { data: { query: request.body.query, hits } };
      },
    );
  };
}
