import type { TAbility } from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import { authenticateApiToken, recordTokenUse } from '../../services/api-tokens.js';
import type { Actor, TenantScope } from '../../services/context.js';

/** The verified caller of an admin route. */
export type AdminAuth = {
  workspaceId: string;
  actor: Extract<Actor, { type: 'token' }>;
  abilities: string[];
};

declare module 'fastify' {
  interface FastifyRequest {
    adminAuth: AdminAuth | null;
  }
}

/** Reads `Authorization: Bearer <token>`; anything else is no credential. */
export function readBearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer[ ]+([^\s]{1,512})\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Authenticates an admin request: a missing, unknown or revoked token is 401 (no detail);
 * a valid token without `ability` is 403. The workspace comes from the token, nothing else.
 */
export async function authenticateAdmin(
  db: Kysely<DB>,
  request: FastifyRequest,
  ability: TAbility,
): Promise<AdminAuth> {
  const plaintext = readBearer(request);
  const token = plaintext ? await authenticateApiToken(db, plaintext) : null;
  if (!token) throw new AppError('unauthenticated');
  if (!token.abilities.includes(ability)) throw new AppError('forbidden');
  await recordTokenUse(db, token);
  return {
    workspaceId: token.workspaceId,
    actor: { type: 'token', id: token.id, userId: token.createdByUserId },
    abilities: token.abilities,
  };
}

/** The tenant scope of an authenticated admin request. */
export function adminScope(db: Kysely<DB>, request: FastifyRequest): TenantScope {
  const auth = request.adminAuth;
  // The auth hook runs before every admin handler; reaching here without it is a wiring bug.
  if (!auth) throw new AppError('unauthenticated');
  return { db, workspaceId: auth.workspaceId, actor: auth.actor, requestId: request.id };
}
