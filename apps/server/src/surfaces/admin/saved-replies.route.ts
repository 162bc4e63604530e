import {
  dataEnvelope,
  ZSavedReply,
  ZSavedReplyCreate,
  ZSavedReplyUpdate,
  ZServiceError,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import {
  createSavedReply,
  deleteSavedReply,
  listSavedReplies,
  updateSavedReply,
} from '../../services/conversations/saved-replies.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: saved replies'];

/**
 * `/api/v1/admin/saved-replies`: replies operators pick in the composer. Whoever may reply reads
 * them (`conversations.reply`); editing them configures the workspace (`workspace.configure`).
 */
export function savedReplyRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/saved-replies',
      {
        config: { permission: 'conversations.reply' },
        schema: {
          tags,
          summary: "The workspace's saved replies, by title",
          security: bearerSecurity,
          response: { 200: dataEnvelope(z.array(ZSavedReply)), ...adminErrorResponses },
        },
      },
      async (request) => ({ data: await listSavedReplies(adminScope(deps, request)) }),
    );

    app.post(
      '/saved-replies',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Save a reply',
          security: bearerSecurity,
          body: ZSavedReplyCreate,
          response: {
            201: dataEnvelope(ZSavedReply),
            ...adminErrorResponses,
            409: ZServiceError.describe('The workspace already keeps the most saved replies'),
          },
        },
      },
      async (request, reply) => {
        const saved = await createSavedReply({ ...adminScope(deps, request), input: request.body });
        return reply.status(201).send({ data: saved });
      },
    );

    app.patch(
      '/saved-replies/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: "Edit a saved reply's title and/or body",
          security: bearerSecurity,
          params: ZIdParams,
          body: ZSavedReplyUpdate,
          response: { 200: dataEnvelope(ZSavedReply), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await updateSavedReply({
          ...adminScope(deps, request),
          savedReplyId: request.params.id,
          input: request.body,
        }),
      }),
    );

    app.delete(
      '/saved-replies/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Delete a saved reply',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 204: z.null().describe('Deleted'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        await deleteSavedReply({ ...adminScope(deps, request), savedReplyId: request.params.id });
        return reply.status(204).send(null);
      },
    );
  };
}
