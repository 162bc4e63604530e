import { type TPlaygroundFrame, ZPlaygroundRequest } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { answerPlayground, playgroundAgent } from '../../chat/answer-playground.js';
import { logRequestError, toAppError } from '../../http/error-handler.js';
import { errorFrame, formatFrame } from '../widget/messages.route.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: playground'];

/** Milliseconds between `: keep-alive` comments while the answer is being prepared (as the widget's stream). */
const KEEP_ALIVE_MS = 15_000;

/**
 * `POST /api/v1/admin/agents/{id}/playground`: the owner asks the agent as a visitor would and
 * reads, streamed, the widget's answer and the chunks it used with their ranks. Nothing is
 * stored. Validation, auth and the agent lookup (another workspace's agent: 404) answer as
 * JSON before the stream opens.
 */
export function playgroundRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/agents/:id/playground',
      {
        config: { expensive: true },
        schema: {
          tags,
          summary: 'Ask the agent as a visitor would (server-sent events, nothing stored)',
          description:
            'text/event-stream frames: start {message_id}, trace {chunks:[{id,chunk_id,document_id,source_id,' +
            'title,url,content,score,ranks{fulltext?,trigram?,vector?}}]}, token {t}…, block {type,payload}…, ' +
            'then done {message_id,text,citations} or error {code,message}; `: keep-alive` comments while ' +
            'waiting. The answer goes through the widget answer path; no conversation, message or turn is stored.',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZPlaygroundRequest,
          response: recordErrorResponses,
        },
      },
      async (request, reply) => {
        const scope = adminScope(deps, request);
        const agent = await playgroundAgent(scope.db, scope.workspaceId, request.params.id);
        const abort = new AbortController();
        reply.hijack();
        const raw = reply.raw;
        // The headers hooks set so far (helmet's), which a hijacked reply no longer sends itself.
        const set = Object.entries(reply.getHeaders()).filter(
          (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
        );
        raw.writeHead(200, {
          ...Object.fromEntries(set),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          'x-accel-buffering': 'no',
          connection: 'keep-alive',
          'x-request-id': request.id,
        });
        raw.write(': stream open\n\n');
        const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
        raw.on('close', () => {
          if (!raw.writableFinished) abort.abort();
        });
        const send = (frame: TPlaygroundFrame) => {
          if (!raw.destroyed) raw.write(`event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`);
        };
        try {
          await answerPlayground({
            deps: {
              db: deps.database.db,
              features: deps.database.features,
              embeddings: deps.embeddings ?? null,
              config: deps.config,
              log: request.log,
              clock: deps.clock,
            },
            agent,
            question: request.body.question,
            history: request.body.history,
            emit: send,
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
