import type { FastifyInstance, RouteOptions } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { skipsAuth } from '../../http/route-auth.js';
import { accountRoutes } from './account.route.js';
import { type AdminAuth, authenticateAdmin, refuseImpersonation } from './admin-auth.js';
import { agentRoutes } from './agents.route.js';
import { analyticsRoutes } from './analytics.route.js';
import { conversationTypingRoutes } from './conversation-typing.route.js';
import { conversationRoutes } from './conversations.route.js';
import { correctionRoutes } from './corrections.route.js';
import { embedRoutes } from './embed.route.js';
import { evaluationRoutes } from './evaluations.route.js';
import { inboxRoutes } from './inbox.route.js';
import { inviteRoutes } from './invites.route.js';
import { kbRoutes } from './kb.route.js';
import { kbSettingsRoutes } from './kb-settings.route.js';
import { leadRoutes } from './leads.route.js';
import { llmKeyRoutes } from './llm-key.route.js';
import { mePasswordRoutes } from './me-password.route.js';
import { memberRoutes } from './members.route.js';
import { passwordResetRoutes } from './password-reset.route.js';
import { planRoutes } from './plan.route.js';
import { platformRoutes } from './platform.route.js';
import { playgroundRoutes } from './playground.route.js';
import { questionRoutes } from './questions.route.js';
import { savedReplyRoutes } from './saved-replies.route.js';
import { searchRoutes } from './search.route.js';
import { sessionRoutes } from './session.route.js';
import { setupRoutes } from './setup.route.js';
import { siteThemeRoutes } from './site-theme.route.js';
import { sourceRoutes } from './sources.route.js';
import { streamRoutes } from './stream.route.js';
import { tokenRoutes } from './tokens.route.js';
import { twoFactorRoutes } from './two-factor.route.js';
import { uploadRoutes } from './uploads.route.js';
import { webhookRoutes } from './webhooks.route.js';
import { widgetPreviewRoutes } from './widget-preview.route.js';
import { workspaceRoutes } from './workspaces.route.js';

/** Where the admin API is mounted; the session cookie is sent to paths under it only. */
export const ADMIN_PREFIX = '/api/v1/admin';

/**
 * The admin surface's `onRoute` check: an authenticated admin route without `config.permission`
 * throws, so the server does not start with a route no role table covers.
 */
export function requireDeclaredPermission(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): void {
  if (route.config?.auth === 'none' || route.config?.permission !== undefined) return;
  throw new Error(
    `Admin route ${String(route.method)} ${route.url} declares no permission (config.permission)`,
  );
}

/** The rate-limit key of a credential: its id, never its secret. */
function credentialKey(auth: AdminAuth): string {
  return auth.actor.type === 'token' ? `token:${auth.actor.id}` : `session:${auth.sessionId}`;
}

/**
 * The admin API surface, mounted at {@link ADMIN_PREFIX}. Every route declares a permission
 * (`config.permission`, docs/roles.md; one without fails the start): an API token with ability
 * `admin` has them all but the owners' own, a session cookie those of the user's role in the
 * workspace (plus X-CSRF-Token on requests that change something), each credential within its per-minute
 * budgets (ADMIN_RATE_LIMIT_PER_MINUTE, and ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE for routes
 * with `config.expensive`). The session routes (`/session`) say `auth: 'none'`: signing in is
 * how a browser gets credentials, and they read the cookie themselves; so do the first-run
 * setup routes (`/setup`), whose credential is the setup code, the password-reset routes
 * (`/password-reset`) and the invite accept page's routes (`/invites/inspect`, `/invites/accept`),
 * whose credential is the mailed token. Routes with `config.impersonation: 'refused'` (secrets,
 * credentials, tokens, model keys) are 403 to a platform operator viewing as a member;
 * `/platform` is for operators' own sessions only.
 */
export function adminSurface(
  deps: AppDeps,
  limits: Pick<RateLimits, 'admin' | 'adminExpensive' | 'login' | 'passwordResetEmail' | 'passwordResetIp'>,
) {
  return async (app: FastifyInstance): Promise<void> => {
    app.decorateRequest('adminAuth', null);
    // A route that forgets its permission fails the server's start, not a request.
    app.addHook('onRoute', requireDeclaredPermission);
    // onRequest runs before the body is read: an unauthenticated caller gets 401, not a parse error.
    app.addHook('onRequest', async (request) => {
      if (skipsAuth(request)) return;
      const { permission } = request.routeOptions.config;
      if (permission === undefined) throw new Error(`Admin route ${request.url} declares no permission`);
      const auth = await authenticateAdmin(deps.database.db, request, permission, deps.clock.now());
      // Counted only once the credential is verified: a stranger cannot spend its budget.
      const key = credentialKey(auth);
      await limits.admin.consume(key);
      if (request.routeOptions.config.expensive) await limits.adminExpensive.consume(key);
      // Before the body is read too: a refused route changes nothing and validates nothing.
      if (request.routeOptions.config.impersonation === 'refused') refuseImpersonation(auth);
      request.adminAuth = auth;
    });
    await app.register(sessionRoutes(deps, limits, { cookiePath: ADMIN_PREFIX }), { prefix: '/session' });
    await app.register(setupRoutes(deps, limits, { cookiePath: ADMIN_PREFIX }), { prefix: '/setup' });
    await app.register(passwordResetRoutes(deps, limits), { prefix: '/password-reset' });
    await app.register(agentRoutes(deps));
    await app.register(tokenRoutes(deps));
    await app.register(accountRoutes(deps));
    await app.register(mePasswordRoutes(deps, limits));
    await app.register(workspaceRoutes(deps));
    await app.register(twoFactorRoutes(deps));
    await app.register(sourceRoutes(deps));
    await app.register(uploadRoutes(deps));
    await app.register(searchRoutes(deps));
    await app.register(playgroundRoutes(deps));
    await app.register(kbRoutes(deps));
    await app.register(kbSettingsRoutes(deps));
    await app.register(embedRoutes(deps));
    await app.register(siteThemeRoutes(deps));
    await app.register(leadRoutes(deps));
    await app.register(llmKeyRoutes(deps));
    await app.register(conversationRoutes(deps));
    await app.register(inboxRoutes(deps));
    await app.register(savedReplyRoutes(deps));
    await app.register(webhookRoutes(deps));
    await app.register(streamRoutes(deps));
    await app.register(conversationTypingRoutes(deps));
    await app.register(widgetPreviewRoutes(deps));
    await app.register(correctionRoutes(deps));
    await app.register(questionRoutes(deps));
    await app.register(evaluationRoutes(deps));
    await app.register(analyticsRoutes(deps));
    await app.register(planRoutes(deps));
    await app.register(platformRoutes(deps, { cookiePath: ADMIN_PREFIX }), { prefix: '/platform' });
    await app.register(memberRoutes(deps));
    await app.register(inviteRoutes(deps, limits));
  };
}
