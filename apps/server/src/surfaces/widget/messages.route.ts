import {
  dataEnvelope,
  type TStreamFrame,
  ZServiceError,
  ZWidgetAnswer,
  ZWidgetMessageRequest,
} from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { answerVisitor } from '../../chat/answer-visitor.js';
import type { ChatDeps, ChatLog } from '../../chat/chat-deps.js';
import { AppError } from '../../errors/app-error.js';
import { serveEventStream } from '../../http/event-stream.js';
import { widgetErrorResponses, widgetSecurity, widgetTags } from './common.schema.js';
import type { WidgetRouteDeps } from './index.js';
import { corsHeaders, widgetCaller } from './widget-auth.js';

/** `POST /v1/widget/messages` (one JSON answer) and `/messages/stream` (SSE), 30 per minute per token. */
export function messageRoutes(deps: WidgetRouteDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/messages',
      {
        config: { widgetLimit: 'messages' },
        schema: {
          tags: widgetTags,
          summary: 'Ask the agent (one JSON answer)',
          security: widgetSecurity,
          body: ZWidgetMessageRequest,
          response: { 200: dataEnvelope(ZWidgetAnswer), ...widgetErrorResponses, 502: ZServiceError },
        },
      },
      async (request) => {
        let failed = false;
        const answer = await answerVisitor({
          deps: chatDeps(deps, request.log),
          caller: widgetCaller(request),
          message: request.body.message,
          emit: (frame) => {
            if (frame.event === 'error') failed = true;
          },
          baseUrl: deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`,
        });
        if (failed) throw new AppError('answer_failed');
        return { data: answer };
      },
    );

    app.post(
      '/messages/stream',
      {
        config: { widgetLimit: 'messages' },
        schema: {
          tags: widgetTags,
          summary: 'Ask the agent (server-sent events)',
          description:
            'text/event-stream frames: start {conversation_id,message_id}, token {t}…, block {type,payload}…, ' +
            'then done {message_id,text,citations} or error {code,message}; `: keep-alive` comments while waiting.',
          security: widgetSecurity,
          body: ZWidgetMessageRequest,
          response: widgetErrorResponses,
        },
      },
      async (request, reply) => {
        const caller = widgetCaller(request);
        await serveEventStream<TStreamFrame>(request, reply, corsHeaders(request), ({ send, signal }) =>
          answerVisitor({
            deps: chatDeps(deps, request.log),
            caller,
            message: request.body.message,
            emit: send,
            signal,
            baseUrl: deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`,
          }),
        );
      },
    );
  };
}

/** The narrow dependencies the answer pipeline takes, for one request. */
function chatDeps(deps: WidgetRouteDeps, log: ChatLog): ChatDeps {
  return {
    db: deps.database.db,
    features: deps.database.features,
    embeddings: deps.embeddings ?? null,
    config: deps.config,
    log,
    clock: deps.clock,
    handoff: deps.handoff,
  };
}
