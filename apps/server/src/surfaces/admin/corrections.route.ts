import {
  dataEnvelope,
  listPage,
  ZCorrection,
  ZCorrectionCreate,
  ZCorrectionTestRequest,
  ZCorrectionTestResult,
  ZCorrectionUpdate,
  ZListQuery,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { playgroundAgent } from '../../chat/answer-playground.js';
import { testCorrectionQuestion } from '../../chat/correction-test.js';
import {
  createCorrection,
  deleteCorrection,
  listCorrections,
  updateCorrection,
} from '../../services/quality/corrections.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';
import { pageBody, pageRequestOf } from './list-page.js';

const tags = ['admin: quality'];

/** `{id}` the agent, `{cid}` one of its corrections. */
const ZCorrectionParams = ZIdParams.extend({ cid: z.string().min(1).max(64) });

/**
 * `/api/v1/admin/agents/{id}/corrections`: an agent's answer corrections (an operator's answer
 * given first to a later question close enough to the stored one), and a test showing which
 * correction or chunks would answer a question, with scores.
 */
export function correctionRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:id/corrections',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "List an agent's answer corrections, oldest first, a page at a time",
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZListQuery,
          response: { 200: listPage(ZCorrection), ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        return pageBody(await listCorrections(scope, pageRequestOf(deps, request.query)));
      },
    );

    app.post(
      '/agents/:id/corrections',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags,
          summary: "Save a correction: typed {question, answer}, or {message_id} of a conversation's answer",
          security: bearerSecurity,
          params: ZIdParams,
          body: ZCorrectionCreate,
          response: { 201: dataEnvelope(ZCorrection), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        return reply.status(201).send({ data: await createCorrection(scope, request.body) });
      },
    );

    app.post(
      '/agents/:id/corrections/test',
      {
        config: { permission: 'knowledge.edit', expensive: true },
        schema: {
          tags,
          summary: 'Show which correction, or else which chunks, would answer a question, and the scores',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZCorrectionTestRequest,
          response: { 200: dataEnvelope(ZCorrectionTestResult), ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const agent = await playgroundAgent(scope.db, scope.workspaceId, request.params.id);
        const result = await testCorrectionQuestion({
          deps: {
            db: scope.db,
            features: deps.database.features,
            embeddings: deps.embeddings ?? null,
            log: request.log,
          },
          agent,
          question: request.body.question,
          baseUrl: deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`,
        });
        return { data: result };
      },
    );

    app.patch(
      '/agents/:id/corrections/:cid',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags,
          summary: "Edit a correction's question and/or answer",
          security: bearerSecurity,
          params: ZCorrectionParams,
          body: ZCorrectionUpdate,
          response: { 200: dataEnvelope(ZCorrection), ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        return { data: await updateCorrection(scope, request.params.cid, request.body) };
      },
    );

    app.delete(
      '/agents/:id/corrections/:cid',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags,
          summary: 'Delete a correction',
          security: bearerSecurity,
          params: ZCorrectionParams,
          response: { 204: z.null().describe('Deleted'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        await deleteCorrection(scope, request.params.cid);
        return reply.status(204).send(null);
      },
    );
  };
}
