import { dataEnvelope, ZKbSettings, ZKbSettingsUpdate } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { getKbSettings, updateKbSettings } from '../../services/knowledge/kb-settings.js';
import { adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';

const tags = ['admin: knowledge base'];

/**
 * `/api/v1/admin/kb/settings`: how the workspace's public knowledge base looks (title, logo,
 * colour) and which agent's widget its pages embed.
 */
export function kbSettingsRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const publicBaseUrl = deps.config.publicBaseUrl;
  return async (app) => {
    app.get(
      '/kb/settings',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "The public knowledge base's title, logo, colour and embedded widget",
          security: bearerSecurity,
          response: { 200: dataEnvelope(ZKbSettings), ...adminErrorResponses },
        },
      },
      async (request) => ({ data: await getKbSettings({ ...adminScope(deps, request), publicBaseUrl }) }),
    );

    app.patch(
      '/kb/settings',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: "Change the public knowledge base's settings (partial; null clears a field)",
          security: bearerSecurity,
          body: ZKbSettingsUpdate,
          response: { 200: dataEnvelope(ZKbSettings), ...adminErrorResponses },
        },
      },
      async (request) => ({
        data: await updateKbSettings({ ...adminScope(deps, request), publicBaseUrl }, request.body),
      }),
    );
  };
}
