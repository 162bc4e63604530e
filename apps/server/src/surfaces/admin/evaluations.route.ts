import {
  dataEnvelope,
  listPage,
  ZEvaluationRun,
  ZEvaluationRunSummary,
  ZGoldenItem,
  ZGoldenItemCreate,
  ZGoldenItemImport,
  ZGoldenItemUpdate,
  ZListQuery,
  ZServiceError,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import {
  getEvaluationRun,
  listEvaluationRuns,
  requestEvaluation,
} from '../../services/quality/evaluation-runs.js';
import { importGoldenItem } from '../../services/quality/golden-import.js';
import {
  createGoldenItem,
  deleteGoldenItem,
  listGoldenItems,
  updateGoldenItem,
} from '../../services/quality/golden-set.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';
import { pageBody, pageRequestOf } from './list-page.js';

const goldenTags = ['admin: golden set'];
const evaluationTags = ['admin: evaluations'];
const ZItemParams = z.object({ id: z.string().min(1).max(64), gid: z.string().min(1).max(64) });
const ZRunParams = z.object({ id: z.string().min(1).max(64), rid: z.string().min(1).max(64) });
const conflictResponse = {
  409: ZServiceError.describe('The golden set is empty, or the origin is not installed'),
};

/** `/api/v1/admin/agents/{id}/golden` (the agent's golden set) and `/agents/{id}/evaluations` (its runs). */
export function evaluationRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:id/golden',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags: goldenTags,
          summary: "List an agent's golden items, a page at a time",
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZListQuery,
          response: { 200: listPage(ZGoldenItem), ...recordErrorResponses },
        },
      },
      async (request) =>
        pageBody(
          await listGoldenItems(
            adminScope(deps, request),
            request.params.id,
            pageRequestOf(deps, request.query),
          ),
        ),
    );

    app.post(
      '/agents/:id/golden',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags: goldenTags,
          summary: 'Add a golden item: a question and the page(s) that answer it',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZGoldenItemCreate,
          response: { 201: dataEnvelope(ZGoldenItem), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        const item = await createGoldenItem(adminScope(deps, request), request.params.id, request.body);
        return reply.status(201).send({ data: item });
      },
    );

    app.post(
      '/agents/:id/golden/import',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags: goldenTags,
          summary: 'Add a golden item from a resolved question or a correction of the agent',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZGoldenItemImport,
          response: { 201: dataEnvelope(ZGoldenItem), ...recordErrorResponses, ...conflictResponse },
        },
      },
      async (request, reply) => {
        const item = await importGoldenItem(adminScope(deps, request), request.params.id, request.body);
        return reply.status(201).send({ data: item });
      },
    );

    app.patch(
      '/agents/:id/golden/:gid',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags: goldenTags,
          summary: "Change a golden item's question, expected pages or note",
          security: bearerSecurity,
          params: ZItemParams,
          body: ZGoldenItemUpdate,
          response: { 200: dataEnvelope(ZGoldenItem), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await updateGoldenItem(
          adminScope(deps, request),
          request.params.id,
          request.params.gid,
          request.body,
        ),
      }),
    );

    app.delete(
      '/agents/:id/golden/:gid',
      {
        config: { permission: 'knowledge.edit' },
        schema: {
          tags: goldenTags,
          summary: 'Delete a golden item',
          security: bearerSecurity,
          params: ZItemParams,
          response: { 204: z.null().describe('Deleted'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        await deleteGoldenItem(adminScope(deps, request), request.params.id, request.params.gid);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/agents/:id/evaluations',
      {
        config: { permission: 'knowledge.edit', expensive: true },
        schema: {
          tags: evaluationTags,
          summary: "Run the agent's golden set through search (queued; poll the run)",
          description:
            'Answers 202 with the run (status queued). The worker runs every golden item through ' +
            'the hybrid search (top 10) and stores recall@1, recall@5, MRR@10, each rank, the misses ' +
            'and the regressions against the previous done run. An empty golden set is 409.',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 202: dataEnvelope(ZEvaluationRun), ...recordErrorResponses, ...conflictResponse },
        },
      },
      async (request, reply) => {
        const scope = { ...adminScope(deps, request), queue: deps.queue };
        return reply.status(202).send({ data: await requestEvaluation(scope, request.params.id) });
      },
    );

    app.get(
      '/agents/:id/evaluations',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags: evaluationTags,
          summary: "List an agent's evaluation runs (without the per-item lists)",
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZListQuery,
          response: { 200: listPage(ZEvaluationRunSummary), ...recordErrorResponses },
        },
      },
      async (request) =>
        pageBody(
          await listEvaluationRuns(
            adminScope(deps, request),
            request.params.id,
            pageRequestOf(deps, request.query),
          ),
        ),
    );

    app.get(
      '/agents/:id/evaluations/:rid',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags: evaluationTags,
          summary: 'Read an evaluation run: metrics, ranks, misses and regressions',
          security: bearerSecurity,
          params: ZRunParams,
          response: { 200: dataEnvelope(ZEvaluationRun), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await getEvaluationRun(adminScope(deps, request), request.params.id, request.params.rid),
      }),
    );
  };
}
