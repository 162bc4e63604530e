import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { recordTokenUse } from '../../services/accounts/api-tokens.js';
import { authenticateIntegration, integrationCaller, verifyAndParseBody } from './site-sync-auth.js';
import { syncRoutes } from './sync.route.js';

/** Where the site-integration API is mounted (contract section A). */
export const SITE_SYNC_PREFIX = '/api/v1/wp';

/**
 * The site-integration surface, mounted at {@link SITE_SYNC_PREFIX}: bearer token with
 * `wp:integration`, throttled per token, mutating routes signed over the raw body. No route
 * skips authentication.
 */
export function siteSyncSurface(deps: AppDeps, limits: RateLimits) {
  return async (app: FastifyInstance): Promise<void> => {
    app.decorateRequest('integrationAuth', null);
    app.decorateRequest('rawBody', null);
    // Keep the exact bytes: the signature covers them, and parsing waits until it is verified.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: deps.config.syncBodyLimitBytes },
      (request, body, done) => {
        request.rawBody = Buffer.isBuffer(body) ? body : Buffer.from(body);
        done(null, undefined);
      },
    );
    app.addHook('onRequest', async (request) => {
      request.integrationAuth = await authenticateIntegration(
        deps.database.db,
        limits.wpIntegration,
        request,
      );
    });
    const nowSeconds = () => Math.floor(deps.clock.now().getTime() / 1000);
    app.addHook('preValidation', async (request) => {
      verifyAndParseBody(request, nowSeconds);
      // Only a request that passed every check counts as a use of its token.
      await recordTokenUse(deps.database.db, integrationCaller(request).token, deps.clock.now());
    });
    await app.register(syncRoutes(deps));
  };
}
