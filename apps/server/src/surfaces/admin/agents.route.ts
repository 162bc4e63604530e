import {
  dataEnvelope,
  listPage,
  ZAgent,
  ZAgentCreate,
  ZAgentListItem,
  ZAgentUpdate,
  ZListQuery,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { listAgents } from '../../services/agents/agent-list.js';
import { createAgent, deleteAgent, getAgent, updateAgent } from '../../services/agents/agents.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';
import { pageBody, pageRequestOf } from './list-page.js';

const tags = ['admin: agents'];

/** `/api/v1/admin/agents`: CRUD over the workspace's agents. */
export function agentRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'List agents with their knowledge size and last answer, oldest first, a page at a time',
          security: bearerSecurity,
          querystring: ZListQuery,
          response: { 200: listPage(ZAgentListItem), ...adminErrorResponses },
        },
      },
      async (request) =>
        pageBody(await listAgents(adminScope(deps, request), pageRequestOf(deps, request.query))),
    );

    app.post(
      '/agents',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Create an agent',
          security: bearerSecurity,
          body: ZAgentCreate,
          response: { 201: dataEnvelope(ZAgent), ...adminErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = {
          ...adminScope(deps, request),
          queue: deps.queue,
          publicBaseUrl: deps.config.publicBaseUrl,
          embeddingsKey: deps.embeddings?.key ?? null,
        };
        const agent = await createAgent(scope, request.body);
        return reply.status(201).send({ data: agent });
      },
    );

    app.get(
      '/agents/:id',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'Read an agent',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZAgent), ...recordErrorResponses },
        },
      },
      async (request) => ({ data: await getAgent(adminScope(deps, request), request.params.id) }),
    );

    app.patch(
      '/agents/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Update an agent (partial; theme fields merge)',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZAgentUpdate,
          response: { 200: dataEnvelope(ZAgent), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await updateAgent(
          { ...adminScope(deps, request), queue: deps.queue },
          request.params.id,
          request.body,
        ),
      }),
    );

    app.delete(
      '/agents/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Delete an agent and everything it owns',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 204: z.null().describe('Deleted'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        await deleteAgent(adminScope(deps, request), request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
