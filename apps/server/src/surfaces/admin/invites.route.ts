import {
  dataEnvelope,
  ZInvite,
  ZInviteAccept,
  ZInviteAccepted,
  ZInviteCreate,
  ZInviteInspect,
  ZInviteView,
  ZServiceError,
} from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { pickMailLanguage } from '../../mail/mail-templates.js';
import { configKeyring } from '../../security/secret-keyring.js';
import { SESSION_COOKIE, verifySession } from '../../services/accounts/admin-sessions.js';
import {
  acceptInvite,
  createInvite,
  INVITES_PER_HOUR,
  inspectInvite,
  listInvites,
  revokeInvite,
} from '../../services/accounts/invites.js';
import { CONSOLE_PREFIX } from '../console/index.js';
import { adminCaller, adminScope, headerOf } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';
import { mailLinkBase } from './password-reset.route.js';
import { refuseCrossSite } from './session.route.js';

const tags = ['admin: members'];

/** The console page an invite link opens; the token rides in the fragment, so no server log or Referer sees it. */
export const ACCEPT_INVITE_PAGE_PATH = `${CONSOLE_PREFIX}/accept-invite`;

/**
 * `/api/v1/admin/invites`: invite by email (owners and admins), list and revoke open invites; and
 * the two routes of the accept page, which say `auth: 'none'` (the invited person may have no
 * account yet; the mailed token is the credential): inspect an invite, and accept it.
 */
export function inviteRoutes(deps: AppDeps, limits: Pick<RateLimits, 'login'>): FastifyPluginAsyncZod {
  const keys = configKeyring(deps.config);
  const base = mailLinkBase(deps.config);
  const scopeOf = (request: FastifyRequest) => ({
    ...adminScope(deps, request),
    callerRole: adminCaller(request).role,
  });
  return async (app) => {
    app.get(
      '/invites',
      {
        config: { permission: 'members.manage' },
        schema: {
          tags,
          summary: 'The open invites (not accepted, revoked or expired), oldest first',
          security: bearerSecurity,
          response: { 200: dataEnvelope(z.array(ZInvite)), ...adminErrorResponses },
        },
      },
      async (request) => ({ data: await listInvites(adminScope(deps, request)) }),
    );

    app.post(
      '/invites',
      {
        config: { permission: 'members.manage' },
        schema: {
          tags,
          summary: 'Invite an email with a role: a mail with a link valid 7 days goes out',
          security: bearerSecurity,
          body: ZInviteCreate,
          response: {
            201: dataEnvelope(ZInvite),
            ...adminErrorResponses,
            409: ZServiceError.describe('Already a member, or an open invite for this email'),
            429: ZServiceError.describe(`More than ${INVITES_PER_HOUR} invites an hour from this workspace`),
          },
        },
      },
      async (request, reply) => {
        const invite = await createInvite({
          scope: scopeOf(request),
          input: request.body,
          queue: deps.queue,
          keys,
          appKey: deps.config.appKey,
          language: pickMailLanguage(headerOf(request, 'accept-language')),
          linkFor: (token) => `${base}${ACCEPT_INVITE_PAGE_PATH}#token=${encodeURIComponent(token)}`,
        });
        return reply.status(201).send({ data: invite });
      },
    );

    app.delete(
      '/invites/:id',
      {
        config: { permission: 'members.manage' },
        schema: {
          tags,
          summary: 'Revoke an open invite: its link stops working',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZInvite), ...recordErrorResponses },
        },
      },
      async (request) => ({ data: await revokeInvite(scopeOf(request), request.params.id) }),
    );

    app.post(
      '/invites/inspect',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary: 'What the accept page shows of an invite (the mailed token is the credential)',
          body: ZInviteInspect,
          response: {
            200: dataEnvelope(ZInviteView),
            403: ZServiceError.describe('Posted from another site'),
            422: ZServiceError.describe('errors.token: the link is invalid, expired, revoked or used'),
            429: ZServiceError.describe('More than 5 attempts a minute from this address'),
          },
        },
      },
      async (request, reply) => {
        refuseCrossSite(request, deps.config.publicBaseUrl);
        await limits.login.consume(`invite|${request.ip}`);
        const view = await inspectInvite({
          db: deps.database.db,
          appKey: deps.config.appKey,
          clock: deps.clock,
          token: request.body.token,
        });
        return reply.header('cache-control', 'no-store').send({ data: view });
      },
    );

    app.post(
      '/invites/accept',
      {
        config: { auth: 'none' },
        schema: {
          tags,
          summary:
            'Accept an invite: a new email also sends name and password; an existing account must be signed in',
          body: ZInviteAccept,
          response: {
            200: dataEnvelope(ZInviteAccepted),
            403: ZServiceError.describe('Posted from another site, or not signed in as the invited account'),
            409: ZServiceError.describe('Already a member of the workspace'),
            422: ZServiceError.describe(
              'errors.token: the link is invalid, expired, revoked or used; errors.name / errors.password',
            ),
            429: ZServiceError.describe('More than 5 attempts a minute from this address'),
          },
        },
      },
      async (request, reply) => {
        refuseCrossSite(request, deps.config.publicBaseUrl);
        await limits.login.consume(`invite|${request.ip}`);
        const secret = request.cookies[SESSION_COOKIE];
        const session = secret ? await verifySession(deps.database.db, secret, deps.clock.now()) : null;
        const accepted = await acceptInvite({
          db: deps.database.db,
          appKey: deps.config.appKey,
          clock: deps.clock,
          input: request.body,
          bcryptCost: deps.config.bcryptCost,
          signedInUserId: session?.userId ?? null,
          requestId: request.id,
        });
        return reply.header('cache-control', 'no-store').send({ data: accepted });
      },
    );
  };
}
