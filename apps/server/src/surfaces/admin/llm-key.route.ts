import { dataEnvelope, ZLlmKey, ZLlmKeyPut } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { configKeyring } from '../../security/secret-keyring.js';
import { deleteLlmKey, getLlmKey, setLlmKey } from '../../services/accounts/llm-keys.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses } from './common.schema.js';

const tags = ['admin: model key'];

/** `/api/v1/admin/llm-key`: the workspace's own model key (BYOK): set, show masked, remove. */
export function llmKeyRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const keys = configKeyring(deps.config);
  return async (app) => {
    app.put(
      '/llm-key',
      {
        config: { permission: 'workspace.configure', impersonation: 'refused' },
        schema: {
          tags,
          summary: "Set the workspace's own model key (BYOK)",
          description:
            'Stores the key encrypted with APP_KEY; it is never returned. Only a caller whose user has ' +
            "byok_enabled may set one (403 otherwise); answers use it while the workspace owner's " +
            "byok_enabled allows it. There is no base URL: the key goes to the provider's public API, " +
            'or to the server-configured LLM_BASE_URL when the server uses the same provider.',
          security: bearerSecurity,
          body: ZLlmKeyPut,
          response: { 200: dataEnvelope(ZLlmKey), ...adminErrorResponses },
        },
      },
      async (request, reply) => {
        const key = await setLlmKey({ ...adminScope(deps, request), keys }, request.body);
        return reply.header('cache-control', 'no-store').send({ data: key });
      },
    );

    app.get(
      '/llm-key',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: "Show the workspace's model key: provider, model, last four characters, whether active",
          security: bearerSecurity,
          response: { 200: dataEnvelope(ZLlmKey), ...recordErrorResponses },
        },
      },
      async (request) => ({ data: await getLlmKey({ ...adminScope(deps, request), keys }) }),
    );

    app.delete(
      '/llm-key',
      {
        config: { permission: 'workspace.configure', impersonation: 'refused' },
        schema: {
          tags,
          summary: "Remove the workspace's model key (answers use the server's model again)",
          security: bearerSecurity,
          response: { 204: z.null().describe('Deleted'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        await deleteLlmKey(adminScope(deps, request));
        return reply.status(204).send(null);
      },
    );
  };
}
