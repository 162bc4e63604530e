import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DB } from '../db/schema.js';

/** Who performs an action, for audit records. */
export type Actor =
  | { type: 'token'; id: string; userId: string | null }
  /**
   * A signed-in user. `impersonatorId` is set while a platform operator views as this user: the
   * user is who the request acts as (memberships, permissions); audit records name the operator
   * as actor and this user as on-behalf-of.
   */
  | { type: 'user'; id: string; impersonatorId?: string | undefined }
  | { type: 'cli'; id: null }
  | { type: 'system'; id: null };

/** The user an actor acts for: a session's user, or the user who made a token (if any). */
export function actingUserId(actor: Actor): string | null {
  if (actor.type === 'user') return actor.id;
  return actor.type === 'token' ? actor.userId : null;
}

/** What every tenant-scoped service call carries: the workspace, resolved from verified auth. */
export type TenantScope = {
  db: Kysely<DB>;
  /** The service's one clock: what a service stores as "now". */
  clock: Clock;
  workspaceId: string;
  actor: Actor;
  requestId?: string | undefined;
};

/** Converts a timestamp column for the wire. */
export function iso(value: Date): string;
export function iso(value: Date | null): string | null;
export function iso(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}
