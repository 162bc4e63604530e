import { roleCan, type TMembershipRole, type TPermission } from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppDeps } from '../../app-deps.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import { API_TOKEN_MAX_LENGTH, readBearer } from '../../http/bearer.js';
import { authenticatedCaller } from '../../http/route-auth.js';
import {
  csrfMatches,
  SESSION_COOKIE,
  type VerifiedSession,
  verifySession,
} from '../../services/accounts/admin-sessions.js';
import { authenticateApiToken, recordTokenUse } from '../../services/accounts/api-tokens.js';
import type { Actor, TenantScope } from '../../services/context.js';

/** The verified caller of an admin route: an API token, or a signed-in user's session. */
export type AdminAuth = {
  workspaceId: string;
  actor: Extract<Actor, { type: 'token' } | { type: 'user' }>;
  abilities: string[];
  /** The role the caller acts with: the session's membership role; `admin` for a token with that ability. */
  role: TMembershipRole;
  /** The session's id when signed in with the cookie (rate limits key on it); null for a token. */
  sessionId: string | null;
};

/** Methods that change nothing; every other method needs the CSRF header on a session. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    adminAuth: AdminAuth | null;
  }
  interface FastifyContextConfig {
    /** Admin routes that fetch, parse or embed: they count against the smaller budget too. */
    expensive?: boolean;
    /** `'refused'`: a route that reads or sets a secret; 403 to an operator viewing as a member. */
    impersonation?: 'refused';
    /** What an admin route needs (docs/roles.md); every authenticated admin route declares one. */
    permission?: TPermission;
  }
}

/**
 * Authenticates an admin request. A bearer token wins when present: missing, unknown or revoked
 * is 401 (no detail), valid without the `admin` ability is 403; with it, the token acts as an
 * `admin` of its workspace. Otherwise the session cookie: unknown, expired or of a user no longer
 * in the workspace is 401; a request that changes something must also carry the session's
 * `X-CSRF-Token`, or it is 403 before anything runs; a role without the route's `permission` is
 * 403. The workspace comes from the token or the session, nothing else.
 */
export async function authenticateAdmin(
  db: Kysely<DB>,
  request: FastifyRequest,
  permission: TPermission,
  now: Date,
): Promise<AdminAuth> {
  const plaintext = readBearer(request.headers.authorization, API_TOKEN_MAX_LENGTH);
  if (!plaintext && request.cookies[SESSION_COOKIE] !== undefined) {
    const { secret, session } = await sessionOfRequest(db, request, now);
    if (!SAFE_METHODS.has(request.method)) requireCsrf(request, secret);
    if (!roleCan(session.role, permission)) throw roleForbidden(session.role);
    return {
      workspaceId: session.workspaceId,
      actor:
        session.impersonatorId === null
          ? { type: 'user', id: session.userId }
          : { type: 'user', id: session.userId, impersonatorId: session.impersonatorId },
      abilities: session.abilities,
      role: session.role,
      sessionId: session.id,
    };
  }
  const token = plaintext ? await authenticateApiToken(db, plaintext) : null;
  if (!token) throw new AppError('unauthenticated');
  if (!token.abilities.includes('admin')) throw new AppError('forbidden');
  await recordTokenUse(db, token, now);
  return {
    workspaceId: token.workspaceId,
    actor: { type: 'token', id: token.id, userId: token.createdByUserId },
    abilities: token.abilities,
    role: 'admin',
    sessionId: null,
  };
}

/** The 403 of a role without a route's permission. */
export function roleForbidden(role: TMembershipRole): AppError {
  return new AppError('forbidden', { message: `Your role (${role}) can't do this.` });
}

/** The session the request's cookie names, with its secret; 401 (no detail) when there is none. */
export async function sessionOfRequest(
  db: Kysely<DB>,
  request: FastifyRequest,
  now: Date,
): Promise<{ secret: string; session: VerifiedSession }> {
  const secret = request.cookies[SESSION_COOKIE];
  const session = secret ? await verifySession(db, secret, now) : null;
  if (!secret || !session) throw new AppError('unauthenticated');
  return { secret, session };
}

/** Why a route refuses a platform operator viewing as a member (see {@link refuseImpersonation}). */
export const IMPERSONATION_REFUSED =
  'Not while viewing as a member: secrets, their credentials (password, email, two-factor), ' +
  'sessions, API tokens and model keys stay theirs.';

/** A 403 when the caller is a platform operator viewing as a member (routes that read or set secrets). */
export function refuseImpersonation(auth: AdminAuth): void {
  if (auth.actor.type === 'user' && auth.actor.impersonatorId !== undefined) {
    throw new AppError('forbidden', { message: IMPERSONATION_REFUSED });
  }
}

/** A 403 unless the request carries the session's CSRF token in `X-CSRF-Token`. */
export function requireCsrf(request: FastifyRequest, secret: string): void {
  if (!csrfMatches(secret, headerOf(request, 'x-csrf-token'))) {
    throw new AppError('forbidden', { message: 'Missing or invalid CSRF token (send X-CSRF-Token).' });
  }
}

/** One request header as a single string (a repeated header is not one value). */
export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The verified caller of an admin route; a 500 (wiring bug) when the admin auth hook did not run. */
export function adminCaller(request: FastifyRequest): AdminAuth {
  return authenticatedCaller(request.adminAuth, 'An admin');
}

/** The tenant scope of an authenticated admin request, with the app's store and clock. */
export function adminScope(deps: Pick<AppDeps, 'database' | 'clock'>, request: FastifyRequest): TenantScope {
  const auth = adminCaller(request);
  return {
    db: deps.database.db,
    clock: deps.clock,
    workspaceId: auth.workspaceId,
    actor: auth.actor,
    requestId: request.id,
  };
}
