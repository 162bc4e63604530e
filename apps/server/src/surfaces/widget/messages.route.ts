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
import { logRequestError, serviceErrorBody, toAppError } from '../../http/error-handler.js';
import { widgetErrorResponses, widgetSecurity, widgetTags } from './common.schema.js';
import type { WidgetRouteDeps } from './index.js';
import { corsHeaders, widgetCaller } from './widget-auth.js';

/** Seconds between `: keep-alive` comments while the answer is being prepared. */
const KEEP_ALIVE_MS = 15_000;

/** Writes one SSE frame: `event: <name>` and one line of JSON (JSON never contains a raw newline). */
export function formatFrame(frame: TStreamFrame): string {
  return `event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}

/**
 * The `error` frame for whatever the answer threw: the same code and message the JSON route's
 * error envelope carries (the stream's status line is already sent, so the frame says it).
 */
export function errorFrame(error: unknown): TStreamFrame {
  const { code, message } = serviceErrorBody(toAppError(error));
  return { event: 'error', data: { code, message } };
}

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
        const abort = new AbortController();
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          'x-accel-buffering': 'no',
          connection: 'keep-alive',
          'x-request-id': request.id,
          ...corsHeaders(request),
        });
        raw.write(': stream open\n\n');
        const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
        raw.on('close', () => {
          if (!raw.writableFinished) abort.abort();
        });
        try {
          await answerVisitor({
            deps: chatDeps(deps, request.log),
            caller,
            message: request.body.message,
            emit: (frame) => {
              if (!raw.destroyed) raw.write(formatFrame(frame));
            },
            signal: abort.signal,
            baseUrl: deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`,
          });
        } catch (error) {
          logRequestError(request.log, error, toAppError(error));
          if (!raw.destroyed) raw.write(formatFrame(errorFrame(error)));
        } finally {
          clearInterval(keepAlive);
          raw.end();
        }
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
  };
}
