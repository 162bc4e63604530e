import { dataEnvelope, ZServiceError, ZWidgetInitRequest, ZWidgetInitResponse } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError, notFound } from '../../errors/app-error.js';
import { indexVisitorPage } from '../../services/knowledge/visitor-page-index.js';
import { agentAllowsOrigin } from '../../services/widget/widget-caller.js';
import { readWidgetAgent, startWidgetSession } from '../../services/widget/widget-session.js';
import { widgetTags } from './common.schema.js';
import type { WidgetRouteDeps } from './index.js';
import { requestOrigin } from './widget-auth.js';

/** `POST /v1/widget/init`: origin policy, then a token, the agent's widget settings and recent history. */
export function initRoutes(deps: WidgetRouteDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/init',
      {
        // No token yet: init is how a visitor gets one. The Origin policy and the per-IP limit
        // below are its checks.
        config: { auth: 'none' },
        schema: {
          tags: widgetTags,
          summary: 'Start or resume a visitor session',
          description:
            'Checks the Origin against the agent (403 origin_forbidden), resumes the latest open conversation ' +
            "of the visitor's anon_id with its last 24 h of messages, or else starts one that is stored at the " +
            "token's first call (init itself writes nothing then), and returns a 60-minute token. " +
            'Limited to 60 per minute per IP and agent.',
          body: ZWidgetInitRequest,
          response: {
            200: dataEnvelope(ZWidgetInitResponse),
            403: ZServiceError.describe('origin_forbidden'),
            404: ZServiceError.describe('Unknown or unpublished agent'),
            422: ZServiceError,
            429: ZServiceError,
          },
        },
      },
      async (request) => {
        const body = request.body;
        const widgetAgent = await readWidgetAgent(deps.database.db, body.agent_id);
        const agent = widgetAgent?.agent ?? null;
        const isAllowed = agent !== null && agentAllowsOrigin(agent, requestOrigin(request));
        // Known before counting, so an allowed page can read a 429's Retry-After (CORS).
        request.widgetOriginAllowed = isAllowed;
        await deps.limits.widget.init.consume(`${request.ip}|${body.agent_id}`);
        if (!widgetAgent || !agent) throw notFound();
        if (!isAllowed) throw new AppError('origin_forbidden');
        const acceptLanguage = request.headers['accept-language'];
        const data = await startWidgetSession({
          db: deps.database.db,
          widgetAgent,
          request: body,
          acceptLanguage: typeof acceptLanguage === 'string' ? acceptLanguage : undefined,
          tokenKey: deps.tokenKey,
          now: deps.clock.now(),
        });
        if (body.page_url && agent.auto_index_pages) {
          await indexVisitorPage({
            db: deps.database.db,
            queue: deps.queue,
            agent,
            pageUrl: body.page_url,
          }).catch((error: unknown) =>
            request.log.warn({ err: error }, 'visitor page not queued for indexing'),
          );
        }
        return { data };
      },
    );
  };
}
