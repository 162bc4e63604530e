import { dataEnvelope, ZCouponApplyRequest, ZCouponApplyResult, ZServiceError } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError, notFound } from '../../errors/app-error.js';
import { stageCoupon } from '../../site-calls/plugin-client.js';
import { widgetErrorResponses, widgetSecurity, widgetTags } from './common.schema.js';
import type { WidgetRouteDeps } from './index.js';
import { widgetCaller } from './widget-auth.js';

/**
 * `POST /api/v1/widget/coupon/apply` (120 per minute per token, 30 per minute per IP): signs
 * `{code, conversation_id}` with the site token's shopper_signing_secret and forwards it to
 * `{plugin_base}cart/coupon` (5 s at most), relaying the site's answer.
 */
export function couponRoutes(deps: WidgetRouteDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/coupon/apply',
      {
        config: { widgetLimit: 'couponToken' },
        schema: {
          tags: widgetTags,
          security: widgetSecurity,
          summary: "Stage a coupon for the visitor's next cart",
          body: ZCouponApplyRequest,
          response: {
            200: dataEnvelope(ZCouponApplyResult),
            400: ZServiceError.describe(
              'invalid_coupon or commerce_inactive (from the site), or another site refusal',
            ),
            404: ZServiceError.describe('The agent has no connected site'),
            502: ZServiceError.describe('site_unavailable: the site could not be reached in time'),
            ...widgetErrorResponses,
          },
        },
      },
      async (request) => {
        await deps.limits.widget.couponIp.consume(request.ip);
        const caller = widgetCaller(request);
        const result = await stageCoupon({
          db: deps.database.db,
          workspaceId: caller.workspaceId,
          agentId: caller.agent.id,
          code: request.body.code,
          conversationId: caller.conversation.id,
          safeUrlAllow: deps.config.safeUrlAllow,
        });
        if (result.ok) return { data: result.data };
        if (result.kind === 'no_site') throw notFound();
        if (result.kind === 'plugin_error') {
          const code = result.code;
          if (code === 'invalid_coupon' || code === 'commerce_inactive') {
            throw new AppError(code, result.message ? { message: result.message } : {});
          }
          throw new AppError('bad_request', { message: result.message || 'The site refused the coupon.' });
        }
        request.log.warn({ kind: result.kind, reason: result.message }, 'coupon staging failed');
        throw new AppError('site_unavailable');
      },
    );
  };
}
