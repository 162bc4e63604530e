import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { AppDeps } from './app-deps.js';
import { consoleFiles } from './console-assets/console-files.js';
import { AppError } from './errors/app-error.js';
import { handleFrameworkError, registerErrorHandling } from './http/error-handler.js';
import { createRateLimits } from './http/rate-limit.js';
import { generateRequestId } from './http/request-id.js';
import { securityHeadersPlugin } from './http/security-headers.js';
import { storableTextValidatorCompiler } from './http/storable-text.js';
import { createLogger } from './logger.js';
import { SESSION_COOKIE } from './services/accounts/admin-sessions.js';
import { findDemoAgent } from './services/ops/demo-seed.js';
import { ADMIN_PREFIX, adminSurface } from './surfaces/admin/index.js';
import { BILLING_WEBHOOKS_PREFIX, billingWebhooksSurface } from './surfaces/billing/index.js';
import {
  CONSOLE_PREFIX,
  CONSOLE_ROOT_PREFIX,
  consoleRootSurface,
  consoleSurface,
} from './surfaces/console/index.js';
import { OPS_PREFIX, opsSurface } from './surfaces/ops/index.js';
import { PUBLIC_PREFIX, publicSurface } from './surfaces/public/index.js';
import { SITE_SYNC_PREFIX, siteSyncSurface } from './surfaces/site-sync/index.js';
import {
  WIDGET_PREFIX,
  WIDGET_SHOP_PREFIX,
  widgetShopSurface,
  widgetSurface,
} from './surfaces/widget/index.js';
import { widgetAssets } from './widget-assets/widget-manifest.js';

export type { AppDeps } from './app-deps.js';

/**
 * Builds the HTTP app (not listening). Every surface is an encapsulated plugin, mounted at the
 * prefix it exports; its own hook authenticates every route that does not say `auth: 'none'`.
 */
export async function createApp(
  appDeps: AppDeps,
  options: { logger?: Logger } = {},
): Promise<FastifyInstance> {
  // One reader of the widget build per app: the bundle route and the embed snippet agree on the hash.
  const assets = appDeps.widgetAssets ?? widgetAssets(appDeps.config.widgetDistDir);
  const deps: AppDeps = {
    ...appDeps,
    widgetAssets: assets,
    drainState: appDeps.drainState ?? { draining: false },
  };
  const logger: FastifyBaseLogger = options.logger ?? createLogger('silent');
  const app = Fastify({
    loggerInstance: logger,
    genReqId: generateRequestId,
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy: deps.config.trustProxy,
    // Our own hook below answers during shutdown, in the service envelope.
    return503OnClosing: false,
    // Errors raised before routing (bad URL encoding, over-long params) use the envelope too.
    frameworkErrors: handleFrameworkError,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  // zod, behind one rule for every route: no NUL or lone surrogate in any input string.
  app.setValidatorCompiler(storableTextValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON only: a text/plain body to a JSON route is a 415, not a confusing validation error.
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  let isClosing = false;
  app.addHook('preClose', async () => {
    isClosing = true;
    if (deps.drainState) deps.drainState.draining = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Requests already running finish; new ones during shutdown are told to go elsewhere.
    if (isClosing) {
      reply.header('connection', 'close');
      // `/readyz` still answers (503 `draining`) so a balancer polling it sees why.
      if (request.url !== '/readyz')
        throw new AppError('not_ready', { message: 'The service is shutting down.' });
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Chat agent service',
        version: '1',
        description:
          'Admin, site-integration and widget APIs. Errors use the envelope {message, code, errors}.',
      },
      servers: deps.config.publicBaseUrl ? [{ url: deps.config.publicBaseUrl }] : [],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API token (svc_…) with the needed ability',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description: `A signed-in session (POST ${ADMIN_PREFIX}/session); requests that change something also send X-CSRF-Token`,
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(securityHeadersPlugin);
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await app.register(cookie);
  await app.register(opsSurface(deps), { prefix: OPS_PREFIX });
  const limits = createRateLimits(deps.config, app.log);
  app.addHook('onClose', () => limits.close());
  await limits.ready();
  await app.register(adminSurface(deps, limits), { prefix: ADMIN_PREFIX });
  await app.register(siteSyncSurface(deps, limits), { prefix: SITE_SYNC_PREFIX });
  await app.register(widgetSurface(deps, limits), { prefix: WIDGET_PREFIX });
  await app.register(widgetShopSurface(deps, limits), { prefix: WIDGET_SHOP_PREFIX });
  await app.register(billingWebhooksSurface(deps), { prefix: BILLING_WEBHOOKS_PREFIX });
  await app.register(publicSurface(deps, assets), { prefix: PUBLIC_PREFIX });
  const consoleBuild = consoleFiles(deps.config.adminDistDir);
  await app.register(consoleSurface(consoleBuild), { prefix: CONSOLE_PREFIX });
  const hasDemo = async () => (await findDemoAgent(deps.database.db)) !== null;
  await app.register(consoleRootSurface(consoleBuild, hasDemo), { prefix: CONSOLE_ROOT_PREFIX });
  return app;
}
