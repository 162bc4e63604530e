import {
  dataEnvelope,
  listPage,
  ZAdminSession,
  ZImpersonationStart,
  ZPlatformMember,
  ZPlatformPlan,
  ZPlatformPlanChange,
  ZPlatformPlanChanged,
  ZPlatformWorkspace,
  ZPlatformWorkspaceQuery,
  ZServiceError,
} from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import {
  SESSION_COOKIE,
  SESSION_LIFETIME_SECONDS,
  sessionView,
} from '../../services/accounts/admin-sessions.js';
import { type OperatorSession, startImpersonation } from '../../services/accounts/impersonation.js';
import { listPlatformWorkspaces, listWorkspaceMembers } from '../../services/accounts/platform.js';
import { assignPlan, listPlans } from '../../services/billing/plans.js';
import { adminCaller, headerOf } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, ZIdParams } from './common.schema.js';
import { sessionCookieOptions } from './session.route.js';

const tags = ['admin: platform'];
const platformErrorResponses = {
  ...adminErrorResponses,
  404: ZServiceError.describe(
    'Not a platform operator signed in with their own session (an API token, anyone else, or an ' +
      'operator viewing as a member): the platform API is not there for them. Also: no such record',
  ),
} as const;

/**
 * The caller as a platform operator: the own session (never an API token, never an
 * impersonation) of a user whose role is `admin`. Anyone else gets 404, so the surface is not
 * discoverable.
 */
async function requireOperator(deps: AppDeps, request: FastifyRequest): Promise<OperatorSession> {
  const auth = adminCaller(request);
  if (auth.actor.type !== 'user' || auth.actor.impersonatorId !== undefined || auth.sessionId === null) {
    throw new AppError('not_found');
  }
  const user = await deps.database.db
    .selectFrom('users')
    .select('role')
    .where('id', '=', auth.actor.id)
    .executeTakeFirst();
  if (user?.role !== 'admin') throw new AppError('not_found');
  return { id: auth.sessionId, userId: auth.actor.id };
}

/**
 * `/api/v1/admin/platform`: the installation's operators (users with role `admin`, set by the
 * CLI's `user:platform-admin`) list every workspace with its plan and usage, change a plan, and
 * view the console as a member of a workspace for a fixed time (impersonation; ended by
 * `DELETE /session`).
 */
export function platformRoutes(deps: AppDeps, options: { cookiePath: string }): FastifyPluginAsyncZod {
  const operators = new WeakMap<FastifyRequest, OperatorSession>();
  const operatorOf = (request: FastifyRequest): OperatorSession => {
    const operator = operators.get(request);
    if (!operator) throw new Error('A platform route ran without its operator check (a wiring bug)');
    return operator;
  };
  return async (app) => {
    // After the surface's credential check, before the body is read: anyone but an operator
    // gets the same 404 whatever they send.
    app.addHook('onRequest', async (request) => {
      operators.set(request, await requireOperator(deps, request));
    });
    app.get(
      '/workspaces',
      {
        // Any role may ask: whether the caller is an operator is checked next (404 otherwise).
        config: { permission: 'account.self' },
        schema: {
          tags,
          summary: 'Every workspace, newest first: plan, usage summary, member count (operators only)',
          security: bearerSecurity,
          querystring: ZPlatformWorkspaceQuery,
          response: { 200: listPage(ZPlatformWorkspace), ...platformErrorResponses },
        },
      },
      async (request) => {
        const page = await listPlatformWorkspaces({
          db: deps.database.db,
          clock: deps.clock,
          query: request.query,
        });
        return { data: page.items, meta: { next_cursor: page.nextCursor } };
      },
    );

    app.get(
      '/plans',
      {
        // Any role may ask: whether the caller is an operator is checked next (404 otherwise).
        config: { permission: 'account.self' },
        schema: {
          tags,
          summary: 'The plans a workspace can be put on, by key (operators only; plan:set makes them)',
          security: bearerSecurity,
          response: { 200: dataEnvelope(z.array(ZPlatformPlan)), ...platformErrorResponses },
        },
      },
      async () => ({
        data: (await listPlans(deps.database.db)).map((plan) => ({ key: plan.key, name: plan.name })),
      }),
    );

    app.get(
      '/workspaces/:id/members',
      {
        // Any role may ask: whether the caller is an operator is checked next (404 otherwise).
        config: { permission: 'account.self' },
        schema: {
          tags,
          summary: "A workspace's members, to choose whom to view as (operators only)",
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(z.array(ZPlatformMember)), ...platformErrorResponses },
        },
      },
      async (request) => {
        return { data: await listWorkspaceMembers(deps.database.db, request.params.id) };
      },
    );

    app.post(
      '/workspaces/:id/plan',
      {
        // Any role may ask: whether the caller is an operator is checked next (404 otherwise).
        config: { permission: 'account.self' },
        schema: {
          tags,
          summary: 'Put a workspace on a plan (operators only; audited in that workspace)',
          description:
            'The same change as the CLI plan:assign, with the operator as the audit actor ' +
            '(plan.changed, metadata from/to). 404 for an unknown workspace or plan key.',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZPlatformPlanChange,
          response: { 200: dataEnvelope(ZPlatformPlanChanged), ...platformErrorResponses },
        },
      },
      async (request) => {
        const operator = operatorOf(request);
        const changed = await deps.database.db.transaction().execute((trx) =>
          assignPlan({
            db: trx,
            clock: deps.clock,
            workspaceId: request.params.id,
            planKey: request.body.plan,
            actor: { type: 'user', id: operator.userId },
          }),
        );
        return { data: changed };
      },
    );

    app.post(
      '/impersonation',
      {
        // Any role may ask: whether the caller is an operator is checked next (404 otherwise).
        config: { permission: 'account.self' },
        schema: {
          tags,
          summary: 'View as a member of a workspace for 30 minutes (operators only; audited)',
          description:
            "Replaces the session cookie with one of the member's, in that workspace, lasting 30 minutes " +
            "(never extended, never past the operator's own session). Routes that read or set secrets, " +
            'credentials, sessions, API tokens or model keys answer 403 in it; audit records written in it ' +
            'name the operator as actor and the member in on_behalf_of. DELETE /session ends it and ' +
            "gives the operator's own session back. 404: no such member in that workspace; 403: the " +
            'member is a platform operator.',
          security: bearerSecurity,
          body: ZImpersonationStart,
          response: { 200: dataEnvelope(ZAdminSession), ...platformErrorResponses },
        },
      },
      async (request, reply) => {
        const operator = operatorOf(request);
        const started = await startImpersonation({
          db: deps.database.db,
          clock: deps.clock,
          operator,
          input: request.body,
          ip: request.ip,
          userAgent: headerOf(request, 'user-agent'),
          requestId: request.id,
        });
        // The cookie outlives the impersonation (the server ends it): with it, DELETE /session
        // can still give the operator's own session back after the 30 minutes.
        reply.setCookie(SESSION_COOKIE, started.secret, {
          ...sessionCookieOptions(request, options.cookiePath),
          maxAge: SESSION_LIFETIME_SECONDS,
        });
        return reply
          .header('cache-control', 'no-store')
          .send({ data: await sessionView(deps.database.db, started.session, started.secret) });
      },
    );
  };
}
