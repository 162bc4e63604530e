import { SIGNATURE_HEADER, verifySignature } from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import secureJson from 'secure-json-parse';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import { API_TOKEN_MAX_LENGTH, readBearer } from '../../http/bearer.js';
import type { RateLimiter } from '../../http/rate-limit.js';
import { authenticatedCaller } from '../../http/route-auth.js';
import { type AuthenticatedToken, authenticateApiToken } from '../../services/accounts/api-tokens.js';
import type { IntegrationCaller } from '../../services/knowledge/site-sync.js';

/** The verified caller of a site-integration request; `key` signs its mutating requests. */
export type IntegrationAuth = IntegrationCaller & { key: string; token: AuthenticatedToken };

declare module 'fastify' {
  interface FastifyRequest {
    integrationAuth: IntegrationAuth | null;
    rawBody: Buffer | null;
  }
  interface FastifyContextConfig {
    /** Mutating site-integration routes: the body must carry a valid X-Service-Signature. */
    signed?: boolean;
  }
}

/**
 * Step 1 (before the body is read): bearer token by SHA-256 (401 when missing, unknown or
 * revoked), ability `wp:integration` (403), then the per-token throttle (429).
 */
export async function authenticateIntegration(
  db: Kysely<DB>,
  limiter: RateLimiter,
  request: FastifyRequest,
): Promise<IntegrationAuth> {
  const plaintext = readBearer(request.headers.authorization, API_TOKEN_MAX_LENGTH);
  const token = plaintext ? await authenticateApiToken(db, plaintext) : null;
  if (!plaintext || !token) throw new AppError('unauthenticated');
  if (!token.abilities.includes('wp:integration')) throw new AppError('forbidden');
  await limiter.consume(token.id);
  return { tokenId: token.id, workspaceId: token.workspaceId, key: plaintext, token };
}

/**
 * Step 2 (after the raw body is read, before it is parsed): signed routes verify the
 * signature over the exact bytes received, keyed by the bearer plaintext (absent → 401
 * missing_signature; wrong, malformed or outside 300 s → 401 signature_mismatch). Only then
 * is the JSON parsed (prototype poisoning refused), so a forged request learns nothing more.
 */
export function verifyAndParseBody(request: FastifyRequest, now?: () => number): void {
  const auth = integrationCaller(request);
  const raw = request.rawBody ?? Buffer.alloc(0);
  if (request.routeOptions.config.signed) {
    const header = request.headers[SIGNATURE_HEADER];
    const check = verifySignature({
      header: typeof header === 'string' ? header : undefined,
      key: auth.key,
      body: raw,
      ...(now ? { now } : {}),
    });
    if (check === 'missing') throw new AppError('missing_signature');
    if (check === 'mismatch') throw new AppError('signature_mismatch');
  }
  if (request.rawBody === null) return;
  try {
    request.body = secureJson.parse(raw.toString('utf8'), undefined, {
      protoAction: 'error',
      constructorAction: 'error',
    });
  } catch {
    throw new AppError('malformed_json');
  }
}

/** The verified caller of a site-integration route; a 500 (wiring bug) when the auth hook did not run. */
export function integrationCaller(request: FastifyRequest): IntegrationAuth {
  return authenticatedCaller(request.integrationAuth, 'A site-integration');
}
