import {
  dataEnvelope,
  ZConversationCleared,
  ZLeadCreate,
  ZSatisfaction,
  ZServiceError,
  ZWidgetEvent,
  ZWidgetMessage,
  ZWidgetTyping,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../errors/app-error.js';
import { listMessagesAfter } from '../../services/conversations/conversation-inbox.js';
import { captureLead } from '../../services/conversations/leads.js';
import { isOperatorTyping } from '../../services/events/operator-typing.js';
import { operatorsOnline } from '../../services/events/presence.js';
import {
  clearConversation,
  eraseVisitor,
  recordSatisfaction,
  recordTyping,
  recordWidgetEvent,
  requestHuman,
} from '../../services/widget/widget-actions.js';
import { storedWidgetFeatures, toWidgetMessage } from '../../services/widget/widget-caller.js';
import { widgetErrorResponses, widgetSecurity, widgetTags } from './common.schema.js';
import type { WidgetRouteDeps } from './index.js';
import { widgetCaller } from './widget-auth.js';

const ZStatus = z.enum(['open', 'waiting', 'claimed', 'closed']);
const common = { tags: widgetTags, security: widgetSecurity } as const;

/** The conversation routes of the widget: leads, human takeover, events, typing, rating, clear, polling, erasure. */
export function conversationRoutes(deps: WidgetRouteDeps): FastifyPluginAsyncZod {
  const db = deps.database.db;
  return async (app) => {
    app.post(
      '/leads',
      {
        config: { widgetLimit: 'leads' },
        schema: {
          ...common,
          summary: 'Leave contact details (5 per minute)',
          description: 'One lead per agent and email (trimmed, lower-cased): a repeat updates it.',
          body: ZLeadCreate,
          response: {
            201: dataEnvelope(z.object({ id: z.string(), created: z.boolean() })),
            404: ZServiceError.describe('Lead capture is off for this agent'),
            ...widgetErrorResponses,
          },
        },
      },
      async (request, reply) => {
        const caller = widgetCaller(request);
        if (!storedWidgetFeatures(caller.agent).leads) throw notFound();
        const lead = await captureLead({
          db,
          clock: deps.clock,
          queue: deps.queue,
          workspaceId: caller.workspaceId,
          agentId: caller.agent.id,
          visitorId: caller.conversation.visitor_id,
          conversationId: caller.conversation.id,
          input: request.body,
        });
        return reply.code(201).send({ data: lead });
      },
    );

    app.post(
      '/request-human',
      {
        config: { widgetLimit: 'session' },
        schema: {
          ...common,
          summary: 'Ask for a human (idempotent)',
          response: {
            200: dataEnvelope(
              z.object({
                status: ZStatus,
                operators_online: z
                  .boolean()
                  .describe(
                    'Whether someone who may reply has the console open now (else: offer to leave an email)',
                  ),
              }),
            ),
            404: ZServiceError.describe('Human takeover is off for this agent'),
            ...widgetErrorResponses,
          },
        },
      },
      async (request) => {
        const caller = widgetCaller(request);
        if (!storedWidgetFeatures(caller.agent).human) throw notFound();
        const now = deps.clock.now();
        const status = await requestHuman(db, caller, now, deps.handoff);
        return {
          data: { status, operators_online: (await operatorsOnline(db, caller.workspaceId, now)) > 0 },
        };
      },
    );

    app.post(
      '/events',
      {
        config: { widgetLimit: 'events' },
        schema: {
          ...common,
          summary: 'Record a behaviour event (60 per minute)',
          body: ZWidgetEvent,
          response: { 202: dataEnvelope(z.object({ recorded: z.boolean() })), ...widgetErrorResponses },
        },
      },
      async (request, reply) => {
        await recordWidgetEvent(db, widgetCaller(request), request.body);
        return reply.code(202).send({ data: { recorded: true } });
      },
    );

    app.post(
      '/typing',
      {
        config: { widgetLimit: 'typing' },
        schema: {
          ...common,
          summary: 'Say the visitor is typing (600 per minute)',
          body: ZWidgetTyping,
          response: { 202: dataEnvelope(z.object({ typing: z.boolean() })), ...widgetErrorResponses },
        },
      },
      async (request, reply) => {
        await recordTyping(db, widgetCaller(request), request.body.typing, deps.clock.now());
        return reply.code(202).send({ data: { typing: request.body.typing } });
      },
    );

    app.post(
      '/satisfaction',
      {
        config: { widgetLimit: 'satisfaction' },
        schema: {
          ...common,
          summary: 'Rate the conversation (first rating sticks; comment updatable)',
          body: ZSatisfaction,
          response: {
            200: dataEnvelope(z.object({ rating: z.enum(['up', 'down']), comment: z.string().nullable() })),
            404: ZServiceError.describe('Satisfaction prompts are off for this agent'),
            ...widgetErrorResponses,
          },
        },
      },
      async (request) => {
        const caller = widgetCaller(request);
        if (!storedWidgetFeatures(caller.agent).satisfaction) throw notFound();
        return { data: await recordSatisfaction(db, caller, request.body, deps.clock.now()) };
      },
    );

    app.post(
      '/conversation/clear',
      {
        config: { widgetLimit: 'session' },
        schema: {
          ...common,
          summary: 'Start a new conversation (returns a new token)',
          response: { 200: dataEnvelope(ZConversationCleared), ...widgetErrorResponses },
        },
      },
      async (request) => ({
        data: await clearConversation(db, widgetCaller(request), deps.tokenKey, deps.clock.now()),
      }),
    );

    app.get(
      '/conversation/messages',
      {
        config: { widgetLimit: 'poll' },
        schema: {
          ...common,
          summary: 'Messages after a given one (polling for operator replies)',
          querystring: z.object({ after: z.string().min(1).max(64).optional() }),
          response: {
            200: dataEnvelope(
              z.object({
                status: ZStatus,
                messages: z.array(ZWidgetMessage),
                operator_typing: z.boolean().describe('The operator holding the conversation is typing'),
              }),
            ),
            ...widgetErrorResponses,
          },
        },
      },
      async (request) => {
        const caller = widgetCaller(request);
        const messages = await listMessagesAfter({
          db,
          workspaceId: caller.workspaceId,
          conversationId: caller.conversation.id,
          afterMessageId: request.query.after,
          limit: 100,
        });
        return {
          data: {
            status: caller.conversation.status,
            messages: messages.map(toWidgetMessage),
            operator_typing:
              caller.conversation.status === 'claimed' &&
              isOperatorTyping(caller.conversation.operator_typing_at, deps.clock.now()),
          },
        };
      },
    );

    app.delete(
      '/me',
      {
        config: { widgetLimit: 'session' },
        schema: {
          ...common,
          summary: "Erase the visitor's data",
          description:
            "Deletes the visitor's conversations, messages, events, ratings and leads (and webhook deliveries about them).",
          response: { 204: z.null().describe('Erased'), ...widgetErrorResponses },
        },
      },
      async (request, reply) => {
        await eraseVisitor(db, widgetCaller(request));
        return reply.code(204).send(null);
      },
    );
  };
}
