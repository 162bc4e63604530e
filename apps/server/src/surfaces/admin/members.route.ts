import { dataEnvelope, ZMember, ZMemberUpdate, ZServiceError } from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import {
  changeMemberRole,
  listMembers,
  type MemberScope,
  removeMember,
} from '../../services/accounts/members.js';
import { adminCaller, adminScope } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';

const tags = ['admin: members'];

/** Error answers of member changes: the record ones plus 409 for the last owner. */
const memberChangeResponses = {
  ...recordErrorResponses,
  409: ZServiceError.describe('The change would leave the workspace without an owner'),
} as const;

/**
 * `/api/v1/admin/members`: the workspace's members, their roles, removal, and leaving. Only an
 * owner touches owners; the last owner can neither be demoted, removed nor leave (409).
 */
export function memberRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const scopeOf = (request: FastifyRequest): MemberScope => ({
    ...adminScope(deps, request),
    callerRole: adminCaller(request).role,
  });
  return async (app) => {
    app.get(
      '/members',
      {
        config: { permission: 'members.manage' },
        schema: {
          tags,
          summary: "The workspace's members with their role, oldest first",
          security: bearerSecurity,
          response: { 200: dataEnvelope(z.array(ZMember)), ...adminErrorResponses },
        },
      },
      async (request) => ({ data: await listMembers(adminScope(deps, request)) }),
    );

    app.patch(
      '/members/:id',
      {
        config: { permission: 'members.manage' },
        schema: {
          tags,
          summary: "Change a member's role (only an owner makes or unmakes owners)",
          security: bearerSecurity,
          params: ZIdParams,
          body: ZMemberUpdate,
          response: { 200: dataEnvelope(ZMember), ...memberChangeResponses },
        },
      },
      async (request) => ({
        data: await changeMemberRole(scopeOf(request), request.params.id, request.body.role),
      }),
    );

    app.delete(
      '/members/:id',
      {
        config: { permission: 'members.manage' },
        schema: {
          tags,
          summary: 'Remove a member: their sessions here end and the API tokens they made here are revoked',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZMember), ...memberChangeResponses },
        },
      },
      async (request) => ({
        data: await removeMember(scopeOf(request), request.params.id, { leaving: false }),
      }),
    );

    app.post(
      '/members/leave',
      {
        config: { permission: 'account.self' },
        schema: {
          tags,
          summary: 'Leave the workspace (signed in only); the session ends',
          security: bearerSecurity,
          response: { 200: dataEnvelope(ZMember), ...memberChangeResponses },
        },
      },
      async (request) => {
        const caller = adminCaller(request);
        if (caller.actor.type !== 'user') {
          throw new AppError('forbidden', { message: 'An API token cannot leave; sign in to the console.' });
        }
        return { data: await removeMember(scopeOf(request), caller.actor.id, { leaving: true }) };
      },
    );
  };
}
