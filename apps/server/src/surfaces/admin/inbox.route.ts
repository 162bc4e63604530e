import {
  dataEnvelope,
  ZConversationNote,
  ZConversationNoteCreate,
  ZConversationSummary,
  ZInboxCounts,
  ZInboxCountsQuery,
  ZServiceError,
} from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { addNote, readNotes } from '../../services/conversations/conversation-notes.js';
import { countInbox, markConversationRead } from '../../services/conversations/inbox-reads.js';
import { closeConversation } from '../../services/conversations/operator.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: conversations'];

/**
 * The inbox's own routes beside the takeover ones: counts per filter with the caller's unread,
 * read marks, closing, and internal notes (which no widget route ever reads).
 */
export function inboxRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const scopeOf = (request: FastifyRequest, conversationId: string) => ({
    ...adminScope(deps, request),
    conversationId,
  });
  return async (app) => {
    app.get(
      '/conversations/counts',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "Each inbox filter's total and the caller's unread count",
          security: bearerSecurity,
          querystring: ZInboxCountsQuery,
          response: { 200: dataEnvelope(ZInboxCounts), ...adminErrorResponses },
        },
      },
      async (request) => ({
        data: await countInbox({ ...adminScope(deps, request), agentId: request.query.agent_id }),
      }),
    );

    app.post(
      '/conversations/:id/read',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'Mark a conversation read by the caller up to its newest message',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 204: z.null().describe('Marked read'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        await markConversationRead(scopeOf(request, request.params.id));
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/conversations/:id/close',
      {
        config: { permission: 'conversations.reply' },
        schema: {
          tags,
          summary: 'Close a conversation (the widget sees it closed on its next call)',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZConversationSummary), ...recordErrorResponses },
        },
      },
      async (request) => ({ data: await closeConversation(scopeOf(request, request.params.id)) }),
    );

    app.get(
      '/conversations/:id/notes',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "A conversation's internal notes, oldest first",
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(z.array(ZConversationNote)), ...recordErrorResponses },
        },
      },
      async (request) => ({ data: await readNotes(scopeOf(request, request.params.id)) }),
    );

    app.post(
      '/conversations/:id/notes',
      {
        config: { permission: 'conversations.reply' },
        schema: {
          tags,
          summary: 'Add an internal note (only the team sees it)',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZConversationNoteCreate,
          response: {
            201: dataEnvelope(ZConversationNote),
            ...recordErrorResponses,
            409: ZServiceError.describe('The conversation already has the most notes it keeps'),
          },
        },
      },
      async (request, reply) => {
        const note = await addNote({ ...scopeOf(request, request.params.id), body: request.body.body });
        return reply.status(201).send({ data: note });
      },
    );
  };
}
