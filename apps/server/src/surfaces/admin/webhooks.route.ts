import {
  dataEnvelope,
  ZWebhook,
  ZWebhookCreate,
  ZWebhookCreated,
  ZWebhookDelivery,
  ZWebhookUpdate,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  setWebhookActive,
} from '../../services/ops/webhooks.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: webhooks'];

const ZDeliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.string().max(64).optional().describe('Return deliveries older than this id (paging)'),
});

/** `/api/v1/admin/webhooks`: outgoing webhooks, their delivery log and redelivery. */
export function webhookRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/webhooks',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: "List the workspace's webhooks (never their secrets)",
          security: bearerSecurity,
          response: { 200: dataEnvelope(z.array(ZWebhook)), ...adminErrorResponses },
        },
      },
      async (request) => ({ data: await listWebhooks(adminScope(deps, request)) }),
    );

    app.post(
      '/webhooks',
      {
        config: { permission: 'workspace.configure', impersonation: 'refused' },
        schema: {
          tags,
          summary: 'Register a webhook; its signing secret is in this answer only',
          description:
            'The URL must pass the crawl-safety guard (a refused host is 422 with the reason in ' +
            'errors.url). Deliveries are signed with X-Service-Signature keyed by the secret.',
          security: bearerSecurity,
          body: ZWebhookCreate,
          response: { 201: dataEnvelope(ZWebhookCreated), ...adminErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = {
          ...adminScope(deps, request),
          appKey: deps.config.appKey,
          safeUrlAllow: deps.config.safeUrlAllow,
        };
        const webhook = await createWebhook(scope, request.body);
        return reply.status(201).header('cache-control', 'no-store').send({ data: webhook });
      },
    );

    app.patch(
      '/webhooks/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Turn a webhook off (its deliveries stop) or on again, or change its delivery format',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZWebhookUpdate,
          response: { 200: dataEnvelope(ZWebhook), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await setWebhookActive(adminScope(deps, request), request.params.id, request.body),
      }),
    );

    app.delete(
      '/webhooks/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Delete a webhook and its delivery log',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 204: z.null().describe('Deleted'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        await deleteWebhook(adminScope(deps, request), request.params.id);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: "A webhook's deliveries, newest first",
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZDeliveriesQuery,
          response: {
            200: z.object({
              data: z.array(ZWebhookDelivery),
              meta: z.object({ next_before: z.string().nullable() }),
            }),
            ...recordErrorResponses,
          },
        },
      },
      async (request) => {
        const page = await listDeliveries(adminScope(deps, request), request.params.id, request.query);
        return { data: page.items, meta: { next_before: page.nextBefore } };
      },
    );

    app.post(
      '/webhooks/deliveries/:id/redeliver',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Send a delivery again (same id and body, fresh retries)',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 202: dataEnvelope(ZWebhookDelivery), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = { ...adminScope(deps, request), queue: deps.queue };
        return reply.status(202).send({ data: await redeliver(scope, request.params.id) });
      },
    );
  };
}
