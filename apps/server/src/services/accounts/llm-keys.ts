import type { TLlmKey, TLlmKeyProvider, TLlmKeyPut } from '@service/contract';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { DB } from '../../db/schema.js';
import { AppError, notFound } from '../../errors/app-error.js';
import type { SecretKeyring } from '../../security/secret-keyring.js';
import { recordAudit } from '../audit.js';
import { actingUserId, iso, type TenantScope } from '../context.js';
import { LLM_KEY_PURPOSE } from '../sealed-secrets.js';

/** A workspace's model key, opened, for building a provider. */
export type WorkspaceLlmKey = { provider: TLlmKeyProvider; model: string | null; apiKey: string };

/**
 * Stores the workspace's model key, sealed with APP_KEY and bound to the workspace id (it opens
 * for no other). Only a caller whose user has `byok_enabled` may set one: 403 otherwise. Replaces
 * an earlier key; writes an `llm_key.set` audit record (provider and model, never the key).
 */
export async function setLlmKey(
  scope: TenantScope & { keys: SecretKeyring },
  input: TLlmKeyPut,
): Promise<TLlmKey> {
  const { db, workspaceId } = scope;
  const userId = actingUserId(scope.actor);
  if (userId === null || !(await isByokEnabled(db, userId))) throw new AppError('forbidden');
  const sealed = scope.keys.seal(input.api_key, LLM_KEY_PURPOSE, workspaceId);
  const model = input.model ?? null;
  await db.transaction().execute(async (trx) => {
    const now = scope.clock.now();
    await trx
      .insertInto('workspace_llm_keys')
      .values({ workspace_id: workspaceId, provider: input.provider, model, key_sealed: sealed })
      .onConflict((conflict) =>
        conflict
          .column('workspace_id')
          .doUpdateSet({ provider: input.provider, model, key_sealed: sealed, updated_at: now }),
      )
      .execute();
    await recordAudit(trx, {
      workspaceId,
      actor: scope.actor,
      action: 'llm_key.set',
      target: { type: 'workspace', id: workspaceId },
      metadata: { provider: input.provider, model },
      requestId: scope.requestId,
    });
  });
  return getLlmKey(scope);
}

/** The workspace's model key as the admin API shows it (last four characters only); 404 when none. */
export async function getLlmKey(scope: TenantScope & { keys: SecretKeyring }): Promise<TLlmKey> {
  const row = await scope.db
    .selectFrom('workspace_llm_keys')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .executeTakeFirst();
  if (!row) throw notFound();
  const key = openKey(scope.keys, row.key_sealed, scope.workspaceId);
  return {
    provider: row.provider,
    model: row.model,
    key_last4: key === null ? null : key.slice(-4),
    active: await isOwnerByokEnabled(scope.db, scope.workspaceId),
    updated_at: iso(row.updated_at),
  };
}

/** Removes the workspace's model key (404 when none) and writes an `llm_key.deleted` audit record. */
export async function deleteLlmKey(scope: TenantScope): Promise<void> {
  await scope.db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('workspace_llm_keys')
      .where('workspace_id', '=', scope.workspaceId)
      .returning('provider')
      .executeTakeFirst();
    if (!deleted) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'llm_key.deleted',
      target: { type: 'workspace', id: scope.workspaceId },
      metadata: { provider: deleted.provider },
      requestId: scope.requestId,
    });
  });
}

/** A workspace's stored model key, still sealed, as {@link activeLlmKeyRow} reads it. */
export type StoredLlmKey = { provider: TLlmKeyProvider; model: string | null; key_sealed: string };

/**
 * SQL for the workspace's stored key while an owner of the workspace has `byok_enabled`, as one
 * jsonb value (null otherwise): a scalar subquery, so the answer pipeline can read it within a
 * statement it sends anyway.
 */
export function activeLlmKeyRow(workspaceId: string): RawBuilder<StoredLlmKey | null> {
  return sql<StoredLlmKey | null>`(
    select jsonb_build_object('provider', k.provider, 'model', k.model, 'key_sealed', k.key_sealed)
    from workspace_llm_keys k
    where k.workspace_id = ${workspaceId}
      and exists (
        select 1 from memberships m join users u on u.id = m.user_id
        where m.workspace_id = ${workspaceId} and m.role = 'owner' and u.byok_enabled = true))`;
}

/** Opens a key read by {@link activeLlmKeyRow}; null when there is none or APP_KEY does not open it. */
export function openActiveLlmKey(
  keys: SecretKeyring,
  row: StoredLlmKey | null,
  workspaceId: string,
): WorkspaceLlmKey | null {
  if (!row) return null;
  const apiKey = openKey(keys, row.key_sealed, workspaceId);
  return apiKey === null ? null : { provider: row.provider, model: row.model, apiKey };
}

/**
 * The key answers should use: the workspace's own key, only while the workspace owner's
 * `byok_enabled` allows it and APP_KEY opens it; null otherwise (the server's provider applies).
 */
export async function activeLlmKey(options: {
  db: Kysely<DB>;
  keys: SecretKeyring;
  workspaceId: string;
}): Promise<WorkspaceLlmKey | null> {
  const { rows } = await sql<{
    key: StoredLlmKey | null;
  }>`select ${activeLlmKeyRow(options.workspaceId)} as key`.execute(options.db);
  return openActiveLlmKey(options.keys, rows[0]?.key ?? null, options.workspaceId);
}

/** Whether an owner of the workspace has `byok_enabled` (set by a platform admin, never by the user). */
export async function isOwnerByokEnabled(db: Queryable, workspaceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('users.id')
    .where('memberships.workspace_id', '=', workspaceId)
    .where('memberships.role', '=', 'owner')
    .where('users.byok_enabled', '=', true)
    .executeTakeFirst();
  return row !== undefined;
}

async function isByokEnabled(db: Queryable, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('byok_enabled').where('id', '=', userId).executeTakeFirst();
  return row?.byok_enabled === true;
}

/** Null when neither APP_KEY nor APP_KEY_PREVIOUS opens it (the key was sealed under another APP_KEY). */
function openKey(keys: SecretKeyring, sealed: string, workspaceId: string): string | null {
  try {
    return keys.open(sealed, LLM_KEY_PURPOSE, workspaceId);
  } catch {
    return null;
  }
}
