import { type TPlaygroundFrame, ZPlaygroundRequest } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { answerPlayground, playgroundAgent } from '../../chat/answer-playground.js';
import { serveEventStream } from '../../http/event-stream.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: playground'];

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
        config: { permission: 'knowledge.edit', expensive: true },
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
        await serveEventStream<TPlaygroundFrame>(request, reply, {}, ({ send, signal }) =>
          answerPlayground({
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
            signal,
            baseUrl: deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`,
          }),
        );
      },
    );
  };
}
