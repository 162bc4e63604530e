import { dataEnvelope, ZAgentEmbed } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { getAgent } from '../../services/agents/agents.js';
import { WIDGET_BUNDLE_PATH, widgetAssets } from '../../widget-assets/widget-manifest.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

/** Escapes a value for a double-quoted HTML attribute. */
function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `GET /api/v1/admin/agents/{id}/embed`: the script tag a site owner pastes (never a hashed file name). */
export function embedRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const assets = deps.widgetAssets ?? widgetAssets(deps.config.widgetDistDir);
  return async (app) => {
    app.get(
      '/agents/:id/embed',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags: ['admin: agents'],
          summary: "The agent's embed snippet",
          description:
            'The script URL comes from PUBLIC_BASE_URL (or the Host of this request). The widget only answers on ' +
            'a published agent from its allowed_origins.',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZAgentEmbed), ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const agent = await getAgent(scope, request.params.id);
        const base = deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
        const hash = (await assets.manifest())?.widget.hash;
        const scriptUrl = `${base}${WIDGET_BUNDLE_PATH}${hash ? `?v=${hash}` : ''}`;
        const snippet = `<script src="${attribute(scriptUrl)}" data-agent-id="${attribute(agent.id)}" async></script>`;
        return {
          data: {
            agent_id: agent.id,
            script_url: scriptUrl,
            snippet,
            is_published: agent.is_published,
            allowed_origins: agent.allowed_origins,
          },
        };
      },
    );
  };
}
