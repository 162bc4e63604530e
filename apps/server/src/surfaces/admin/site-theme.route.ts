import { dataEnvelope, ZSiteTheme, ZSiteThemeRequest } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import { guardedFetcher } from '../../crawl/fetch-page.js';
import { validationError } from '../../errors/app-error.js';
import { getAgent } from '../../services/agents/agents.js';
import { suggestSiteTheme } from '../../services/agents/site-theme.js';
import { adminScope } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

/** `POST /api/v1/admin/agents/{id}/theme/from-site`: a theme suggested from the site's theme colour. */
export function siteThemeRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const fetchPage = guardedFetcher({ allow: deps.config.safeUrlAllow });
  return async (app) => {
    app.post(
      '/agents/:id/theme/from-site',
      {
        config: { permission: 'workspace.configure', expensive: true },
        schema: {
          tags: ['admin: agents'],
          summary: "Suggest the agent's colours from its site's theme colour",
          description:
            'Reads meta[name=theme-color] of `url` (default: the home page of the first allowed origin) through ' +
            'the crawl-safety guard and returns a contrast-checked theme (WCAG AA). Nothing is saved: PATCH the ' +
            'agent with theme.primary to use it.',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZSiteThemeRequest,
          response: { 200: dataEnvelope(ZSiteTheme), ...recordErrorResponses },
        },
      },
      async (request) => {
        const scope = adminScope(deps, request);
        const agent = await getAgent(scope, request.params.id);
        const home = agent.allowed_origins.find((origin) => /^https?:\/\//.test(origin));
        const url = request.body.url ?? (home ? `${home}/` : undefined);
        if (!url)
          throw validationError({ url: ["Give the site's address: the agent has no allowed site to read."] });
        return { data: await suggestSiteTheme({ url, fetchPage }) };
      },
    );
  };
}
