import {
  dataEnvelope,
  ZConversationDetail,
  ZConversationListQuery,
  ZConversationMessage,
  ZConversationPage,
  ZConversationSummary,
  ZOperatorReply,
  ZServiceError,
} from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { actingUserId } from '../../services/context.js';
import { getConversation, listConversations } from '../../services/conversations/conversation-inbox.js';
import {
  claimConversation,
  releaseConversation,
  sendOperatorMessage,
} from '../../services/conversations/operator.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: conversations'];

/** Error answers of the takeover routes: the record ones plus 409 for a claim held elsewhere or a closed conversation. */
const takeoverErrorResponses = {
  ...recordErrorResponses,
  409: ZServiceError.describe('Claimed by another operator, not claimed by the caller, or closed'),
} as const;

/**
 * `/api/v1/admin/conversations`: the operator inbox and human takeover (claim, reply, release).
 * While a conversation is claimed the bot stays silent and only the claimer may reply.
 */
export function conversationRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const scopeOf = (request: FastifyRequest, conversationId: string) => ({
    ...adminScope(deps, request),
    conversationId,
  });
  return async (app) => {
    app.get(
      '/conversations',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'List conversations, newest first (keyset paging), by inbox filter, agent and search',
          security: bearerSecurity,
          querystring: ZConversationListQuery,
          response: { 200: ZConversationPage, ...adminErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const { agent_id, status, filter, q, cursor, limit } = request.query;
        const page = await listConversations({
          db: scope.db,
          workspaceId: scope.workspaceId,
          clock: scope.clock,
          userId: actingUserId(scope.actor),
          agentId: agent_id,
          status,
          filter,
          search: q,
          cursor,
          limit,
        });
        return { data: page.items, meta: { next_cursor: page.nextCursor } };
      },
    );

    app.get(
      '/conversations/:id',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'Read a conversation with its messages and answer turns',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZConversationDetail), ...recordErrorResponses },
        },
      },
      async (request) => ({ data: await getConversation(scopeOf(request, request.params.id)) }),
    );

    app.post(
      '/conversations/:id/claim',
      {
        config: { permission: 'conversations.reply' },
        schema: {
          tags,
          summary: 'Claim a conversation for the calling user (the bot falls silent)',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZConversationSummary), ...takeoverErrorResponses },
        },
      },
      async (request) => ({ data: await claimConversation(scopeOf(request, request.params.id)) }),
    );

    app.post(
      '/conversations/:id/messages',
      {
        config: { permission: 'conversations.reply' },
        schema: {
          tags,
          summary: 'Reply as the operator holding the claim',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZOperatorReply,
          response: { 201: dataEnvelope(ZConversationMessage), ...takeoverErrorResponses },
        },
      },
      async (request, reply) => {
        const message = await sendOperatorMessage({
          ...scopeOf(request, request.params.id),
          content: request.body.content,
        });
        return reply.status(201).send({ data: message });
      },
    );

    app.post(
      '/conversations/:id/release',
      {
        config: { permission: 'conversations.reply' },
        schema: {
          tags,
          summary: 'Hand a conversation back to the bot',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZConversationSummary), ...takeoverErrorResponses },
        },
      },
      async (request) => ({ data: await releaseConversation(scopeOf(request, request.params.id)) }),
    );
  };
}
