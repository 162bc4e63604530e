import { dataEnvelope, ZServiceError } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { setOperatorTyping } from '../../services/events/operator-typing.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const ZOperatorTyping = z.strictObject({ typing: z.boolean() });

/** `POST /api/v1/admin/conversations/:id/typing`: the claiming operator's typing signal. */
export function conversationTypingRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/conversations/:id/typing',
      {
        config: { permission: 'conversations.reply' },
        schema: {
          tags: ['admin: conversations'],
          summary: 'Say the operator holding the conversation is (or stopped) typing',
          description:
            'The widget shows typing dots for 5 s after `typing: true`; the admin stream gets a `typing` event ' +
            '(not stored). Only the user holding the claim (409 otherwise).',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZOperatorTyping,
          response: {
            202: dataEnvelope(z.object({ typing: z.boolean() })),
            ...recordErrorResponses,
            409: ZServiceError.describe('Not claimed by the caller'),
          },
        },
      },
      async (request, reply) => {
        const result = await setOperatorTyping({
          ...adminScope(deps, request),
          conversationId: request.params.id,
          typing: request.body.typing,
        });
        return reply.code(202).send({ data: result });
      },
    );
  };
}
