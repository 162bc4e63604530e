import type { TAbility, TApiToken, TApiTokenCreated } from '@service/contract';
import type { Queryable } from '../../db/queryable.js';
import type { ApiTokenRow } from '../../db/schema.js';
import { notFound } from '../../errors/app-error.js';
import { hashApiToken, mintApiToken, mintSigningSecret } from '../../security/api-token-secret.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { actingUserId, iso, type TenantScope } from '../context.js';
import { afterOperator, type Page, type PageRequest, pageOf, pageStart } from '../list-page.js';

/** Issues a token; the plaintext is returned here once and never stored. Audited. */
export async function createApiToken(
  scope: TenantScope,
  input: { name: string; abilities: TAbility[]; createdByUserId?: string | null },
  db: Queryable = scope.db,
): Promise<TApiTokenCreated> {
  const minted = mintApiToken();
  const run = async (trx: Queryable) => {
    const row = await trx
      .insertInto('api_tokens')
      .values({
        id: newId(),
        workspace_id: scope.workspaceId,
        name: input.name,
        token_hash: minted.hash,
        token_prefix: minted.prefix,
        abilities: input.abilities,
        shopper_signing_secret: mintSigningSecret(),
        created_by_user_id: input.createdByUserId ?? actingUserId(scope.actor),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'token.created',
      target: { type: 'api_token', id: row.id },
      metadata: { name: row.name, abilities: row.abilities },
      requestId: scope.requestId,
    });
    return {
      ...toApiToken(row),
      token: minted.plaintext,
      shopper_signing_secret: row.shopper_signing_secret,
    };
  };
  // Callers that already hold a transaction pass it in; on PGlite's single connection a nested
  // transaction from the pool would wait forever.
  return db === scope.db ? scope.db.transaction().execute(run) : run(db);
}

/**
 * A page of the workspace's tokens, oldest first (ULID order; revoked ones included, marked),
 * never with plaintext or hash. Keyset on the id over `api_tokens (workspace_id, id)`.
 */
export async function listApiTokens(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  page: PageRequest,
): Promise<Page<TApiToken>> {
  const binding = { list: `api_tokens:${page.order}`, workspaceId: scope.workspaceId };
  const after = pageStart(page, binding);
  let query = scope.db
    .selectFrom('api_tokens')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .orderBy('id', page.order)
    .limit(page.limit + 1);
  if (after !== undefined) query = query.where('id', afterOperator(page), after);
  return pageOf(await query.execute(), page, binding, toApiToken);
}

/** Revokes a token of the workspace; revoking twice is harmless. Audited. */
export async function revokeApiToken(scope: TenantScope, tokenId: string): Promise<TApiToken> {
  return scope.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('api_tokens')
      .selectAll()
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', tokenId)
      .executeTakeFirst();
    if (!current) throw notFound();
    if (current.revoked_at) return toApiToken(current);
    const row = await trx
      .updateTable('api_tokens')
      .set({ revoked_at: scope.clock.now() })
      .where('id', '=', tokenId)
      .where('workspace_id', '=', scope.workspaceId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'token.revoked',
      target: { type: 'api_token', id: row.id },
      metadata: { name: row.name },
      requestId: scope.requestId,
    });
    return toApiToken(row);
  });
}

/** A verified API token: what auth hooks need to scope a request. */
export type AuthenticatedToken = {
  id: string;
  workspaceId: string;
  abilities: string[];
  createdByUserId: string | null;
  lastUsedAt: Date | null;
};

/** How stale `last_used_at` may get before a use writes it again (keeps reads read-only). */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Looks a bearer plaintext up by its SHA-256. Unknown and revoked tokens give null; the
 * caller answers 401 either way, without saying which. Writes nothing: a request can still
 * fail its ability or signature check, and a refused request must change no data.
 */
export async function authenticateApiToken(
  db: Queryable,
  plaintext: string,
): Promise<AuthenticatedToken | null> {
  const row = await db
    .selectFrom('api_tokens')
    .select(['id', 'workspace_id', 'abilities', 'created_by_user_id', 'revoked_at', 'last_used_at'])
    .where('token_hash', '=', hashApiToken(plaintext))
    .executeTakeFirst();
  if (!row || row.revoked_at) return null;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    abilities: row.abilities,
    createdByUserId: row.created_by_user_id,
    lastUsedAt: row.last_used_at,
  };
}

/** Records that a fully authenticated request used the token (at most once a minute). */
export async function recordTokenUse(db: Queryable, token: AuthenticatedToken, now: Date): Promise<void> {
  if (token.lastUsedAt && now.getTime() - token.lastUsedAt.getTime() <= LAST_USED_RESOLUTION_MS) return;
  await db.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', token.id).execute();
}

function toApiToken(row: ApiTokenRow): TApiToken {
  return {
    id: row.id,
    name: row.name,
    abilities: row.abilities,
    token_prefix: row.token_prefix,
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    created_at: iso(row.created_at),
  };
}
