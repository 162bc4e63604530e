import {
  dataEnvelope,
  ZAgentQuestion,
  ZQuestionListQuery,
  ZQuestionPage,
  ZQuestionResolution,
  ZQuestionResolve,
  ZQuestionToCorrection,
  ZQuestionToKbArticle,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import {
  listAgentQuestions,
  questionToCorrection,
  questionToKbArticle,
  resolveQuestion,
} from '../../services/quality/agent-questions.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';
import { pageRequestOf } from './list-page.js';

const tags = ['admin: quality'];

/** `{id}` the agent, `{qid}` one of its recorded questions. */
const ZQuestionParams = ZIdParams.extend({ qid: z.string().min(1).max(64) });

/**
 * `/api/v1/admin/agents/{id}/questions`: the visitor questions that went wrong (nothing found,
 * the "I don't know" reply, a handoff, a rating down), each with the chunks behind its answer;
 * one call turns one into a correction or a KB article, or dismisses it, resolving it.
 */
export function questionRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:id/questions',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "List an agent's unanswered and down-rated questions, with counts per status and reason",
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZQuestionListQuery,
          response: { 200: ZQuestionPage, ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        const { status, reason } = request.query;
        const page = await listAgentQuestions(scope, pageRequestOf(deps, request.query), { status, reason });
        return { data: page.items, meta: { next_cursor: page.nextCursor, counts: page.counts } };
      },
    );

    app.post(
      '/agents/:id/questions/:qid/correction',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags,
          summary: 'Turn an open question into a correction (its question, the given answer) and resolve it',
          security: bearerSecurity,
          params: ZQuestionParams,
          body: ZQuestionToCorrection,
          response: { 201: dataEnvelope(ZQuestionResolution), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        const made = await questionToCorrection(scope, request.params.qid, request.body);
        return reply.status(201).send({ data: made });
      },
    );

    app.post(
      '/agents/:id/questions/:qid/kb-article',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags,
          summary: 'Turn an open question into a published KB article and resolve it',
          security: bearerSecurity,
          params: ZQuestionParams,
          body: ZQuestionToKbArticle,
          response: { 201: dataEnvelope(ZQuestionResolution), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = {
          ...adminScope(deps, request),
          agentId: request.params.id,
          queue: deps.queue,
          publicBaseUrl: deps.config.publicBaseUrl,
          embeddingsKey: deps.embeddings?.key ?? null,
        };
        const made = await questionToKbArticle(scope, request.params.qid, request.body);
        return reply.status(201).send({ data: made });
      },
    );

    app.post(
      '/agents/:id/questions/:qid/resolve',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags,
          summary: 'Resolve an open question without a correction or article (dismissed)',
          security: bearerSecurity,
          params: ZQuestionParams,
          body: ZQuestionResolve,
          response: { 200: dataEnvelope(ZAgentQuestion), ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = { ...adminScope(deps, request), agentId: request.params.id };
        return { data: await resolveQuestion(scope, request.params.qid) };
      },
    );
  };
}
