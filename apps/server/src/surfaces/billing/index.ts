import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { billingWebhookRoutes } from './webhooks.route.js';

/** Where the inbound billing webhooks are mounted: one route per payment provider. */
export const BILLING_WEBHOOKS_PREFIX = '/api/v1/billing/webhooks';

/**
 * The billing-webhook surface, mounted at {@link BILLING_WEBHOOKS_PREFIX}. No session, token or
 * CSRF header: a payment provider calls it, and each route verifies that provider's signature
 * over the raw body before anything is parsed (so every route says `auth: 'none'`). The body is
 * kept as the exact bytes received: a JSON body reaches the handler as a Buffer.
 */
export function billingWebhooksSurface(deps: AppDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: deps.config.bodyLimitBytes },
      (_request, body, done) => {
        done(null, Buffer.isBuffer(body) ? body : Buffer.from(body));
      },
    );
    await app.register(billingWebhookRoutes(deps));
  };
}
