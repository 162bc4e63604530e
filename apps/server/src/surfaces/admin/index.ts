import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { accountRoutes } from './account.route.js';
import { authenticateAdmin } from './admin-auth.js';
import { agentRoutes } from './agents.route.js';
import { conversationRoutes } from './conversations.route.js';
import { embedRoutes } from './embed.route.js';
import { kbRoutes } from './kb.route.js';
import { leadRoutes } from './leads.route.js';
import { llmKeyRoutes } from './llm-key.route.js';
import { searchRoutes } from './search.route.js';
import { sourceRoutes } from './sources.route.js';
import { tokenRoutes } from './tokens.route.js';
import { twoFactorRoutes } from './two-factor.route.js';
import { uploadRoutes } from './uploads.route.js';
import { webhookRoutes } from './webhooks.route.js';

/**
 * The admin API surface, mounted at `/api/v1/admin`. Every route needs ability `admin`: an API
 * token with it, or the session cookie of an owner or admin of the workspace (plus X-CSRF-Token
 * on requests that change something). Signing in is `session.route.ts`, mounted beside it.
 */
export function adminSurface(deps: AppDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.decorateRequest('adminAuth', null);
    // onRequest runs before the body is read: an unauthenticated caller gets 401, not a parse error.
    app.addHook('onRequest', async (request) => {
      request.adminAuth = await authenticateAdmin(deps.database.db, request, 'admin', deps.now?.());
    });
    await app.register(agentRoutes(deps));
    await app.register(tokenRoutes(deps));
    await app.register(accountRoutes(deps));
    await app.register(twoFactorRoutes(deps));
    await app.register(sourceRoutes(deps));
    await app.register(uploadRoutes(deps));
    await app.register(searchRoutes(deps));
    await app.register(kbRoutes(deps));
    await app.register(embedRoutes(deps));
    await app.register(leadRoutes(deps));
    await app.register(llmKeyRoutes(deps));
    await app.register(conversationRoutes(deps));
    await app.register(webhookRoutes(deps));
  };
}
