import { ZServiceError } from '@service/contract';
import { z } from 'zod';

/** Path parameter of routes addressing one record. */
export const ZIdParams = z.object({ id: z.string().min(1).max(64) });

/** Error responses every authenticated admin route documents. */
export const adminErrorResponses = {
  401: ZServiceError.describe('Missing, unknown or revoked token, or no valid session'),
  403: ZServiceError.describe(
    "The token lacks the admin ability, a session request lacks X-CSRF-Token, or the caller's role lacks the route's permission (docs/roles.md)",
  ),
  422: ZServiceError.describe('Validation failed; see errors.<field>'),
  429: ZServiceError.describe(
    "Over this credential's per-minute budget (ADMIN_RATE_LIMIT_PER_MINUTE); see Retry-After",
  ),
} as const;

/** Error responses of routes that address one record. */
export const recordErrorResponses = {
  ...adminErrorResponses,
  404: ZServiceError.describe('No such record in this workspace'),
} as const;

/** OpenAPI security requirement of admin routes: a bearer token, or a session cookie. */
export const bearerSecurity: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { sessionCookie: [] }];
