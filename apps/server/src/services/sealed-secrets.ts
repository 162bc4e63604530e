import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import { createSecretKeyring, type SecretKeyring } from '../security/secret-keyring.js';
import { SQL_PASSWORD_PURPOSE } from '../sql-source/sql-password.js';
import { recordAudit } from './audit.js';
import type { Actor } from './context.js';

// The registry of sealed secrets: every purpose a value is sealed for with APP_KEY, where such
// values are stored, and how `key:rotate` re-seals them all in one transaction. The services
// that seal and open a secret take its purpose from here (SQL source passwords are sealed below
// the services, in sql-source/, and listed here from there).

/** The HKDF purpose of the key that seals a workspace's model API key (BYOK). */
export const LLM_KEY_PURPOSE = 'workspace-llm-key';
/** The HKDF purpose of the key that seals a user's TOTP secret (set up or pending). */
export const TOTP_SECRET_PURPOSE = 'totp-secret';
/** The HKDF purpose of the key that seals a user's recovery codes. */
export const RECOVERY_CODES_PURPOSE = 'recovery-codes';
/** The HKDF purpose of the key that seals webhook signing secrets. */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

/** One stored sealed value. */
export type SealedSecretRow = { id: string; workspaceId: string; sealed: string };

/** A kind of sealed secret in the store: where it lives, and the purpose and context it was sealed with. */
export type SealedSecretEntry = {
  table: keyof DB;
  /** What a row is called in messages ("SQL source"). */
  label: string;
  /** The HKDF purpose of its key (`deriveSecretKey`). */
  purpose: string;
  /** The context the value is bound to (usually the row id). */
  context(row: SealedSecretRow): string;
  /** Every row holding such a value, locked until the transaction ends. */
  select(trx: Transaction<DB>): Promise<SealedSecretRow[]>;
  /** Stores the re-sealed value. */
  update(trx: Transaction<DB>, row: SealedSecretRow, sealed: string): Promise<void>;
};

/** Every sealed secret the store holds; a new kind (BYOK model keys, webhook secrets) is one more entry. */
export const SEALED_SECRETS: readonly SealedSecretEntry[] = [
  {
    table: 'sources',
    label: 'SQL source',
    purpose: SQL_PASSWORD_PURPOSE,
    context: (row) => row.id,
    async select(trx) {
      const rows = await trx
        .selectFrom('sources')
        .select(['id', 'workspace_id', sql<string>`config->>'password_sealed'`.as('sealed')])
        .where('type', '=', 'sql')
        .where(sql`config->>'password_sealed'`, 'is not', null)
        .orderBy('id')
        .forUpdate()
        .execute();
      return rows.map((row) => ({ id: row.id, workspaceId: row.workspace_id, sealed: row.sealed }));
    },
    async update(trx, row, sealed) {
      await trx
        .updateTable('sources')
        .set({ config: sql`jsonb_set(config, '{password_sealed}', to_jsonb(${sealed}::text))` })
        .where('id', '=', row.id)
        .execute();
    },
  },
  {
    table: 'workspace_llm_keys',
    label: 'workspace model key',
    purpose: LLM_KEY_PURPOSE,
    context: (row) => row.workspaceId,
    async select(trx) {
      const rows = await trx
        .selectFrom('workspace_llm_keys')
        .select(['workspace_id', 'key_sealed'])
        .orderBy('workspace_id')
        .forUpdate()
        .execute();
      return rows.map((row) => ({
        id: row.workspace_id,
        workspaceId: row.workspace_id,
        sealed: row.key_sealed,
      }));
    },
    async update(trx, row, sealed) {
      await trx
        .updateTable('workspace_llm_keys')
        .set({ key_sealed: sealed })
        .where('workspace_id', '=', row.workspaceId)
        .execute();
    },
  },
  {
    table: 'webhooks',
    label: 'webhook',
    purpose: WEBHOOK_SECRET_PURPOSE,
    context: (row) => row.id,
    async select(trx) {
      const rows = await trx
        .selectFrom('webhooks')
        .select(['id', 'workspace_id', 'secret_sealed'])
        .orderBy('id')
        .forUpdate()
        .execute();
      return rows.map((row) => ({ id: row.id, workspaceId: row.workspace_id, sealed: row.secret_sealed }));
    },
    async update(trx, row, sealed) {
      await trx.updateTable('webhooks').set({ secret_sealed: sealed }).where('id', '=', row.id).execute();
    },
  },
  ...(['totp_secret_sealed', 'totp_pending_sealed', 'recovery_codes_sealed'] as const).map(
    (column): SealedSecretEntry => ({
      table: 'users',
      label: column === 'recovery_codes_sealed' ? 'recovery codes' : 'two-factor secret',
      purpose: column === 'recovery_codes_sealed' ? RECOVERY_CODES_PURPOSE : TOTP_SECRET_PURPOSE,
      context: (row) => row.id,
      async select(trx) {
        // Users belong to no one workspace: the audit goes to their default one (none: no record).
        const rows = await trx
          .selectFrom('users')
          .select(['id', 'default_workspace_id', column])
          .where(column, 'is not', null)
          .orderBy('id')
          .forUpdate()
          .execute();
        return rows.map((row) => ({
          id: row.id,
          workspaceId: row.default_workspace_id ?? '',
          sealed: row[column] ?? '',
        }));
      },
      async update(trx, row, sealed) {
        await trx
          .updateTable('users')
          .set({ [column]: sealed })
          .where('id', '=', row.id)
          .execute();
      },
    }),
  ),
];

/** Thrown when a rotation cannot run or cannot finish; nothing was changed. */
export class KeyRotationError extends Error {
  override readonly name = 'KeyRotationError';
}

/** What `resealSecrets` did. */
export type ResealCounts = { resealed: number; alreadyCurrent: number; workspaces: number };

/**
 * In one transaction, opens every sealed secret with `from` (APP_KEY, and APP_KEY_PREVIOUS when
 * set) and seals it again with `to`. Values `to` sealed already are left alone, so a second run
 * changes nothing. A value neither key opens aborts the whole rotation. One audit record per
 * workspace whose secrets changed.
 */
export async function resealSecrets(options: {
  db: Kysely<DB>;
  from: SecretKeyring;
  to: Buffer;
  actor?: Actor;
  entries?: readonly SealedSecretEntry[];
}): Promise<ResealCounts> {
  const target = createSecretKeyring(options.to);
  return options.db.transaction().execute(async (trx) => {
    const resealedBy = new Map<string, number>();
    let alreadyCurrent = 0;
    for (const entry of options.entries ?? SEALED_SECRETS) {
      for (const row of await entry.select(trx)) {
        if (target.isCurrent(row.sealed, entry.purpose)) {
          alreadyCurrent += 1;
          continue;
        }
        const context = entry.context(row);
        let plaintext: string;
        try {
          plaintext = options.from.open(row.sealed, entry.purpose, context);
        } catch (error) {
          // The reason names key ids only, never the value; the transaction rolls back.
          const reason = error instanceof Error ? error.message : String(error);
          throw new KeyRotationError(
            `Cannot open the sealed secret of ${entry.label} ${row.id} (${entry.table}, workspace ` +
              `${row.workspaceId}) with APP_KEY or APP_KEY_PREVIOUS: ${reason}. Nothing was changed.`,
          );
        }
        await entry.update(trx, row, target.seal(plaintext, entry.purpose, context));
        resealedBy.set(row.workspaceId, (resealedBy.get(row.workspaceId) ?? 0) + 1);
      }
    }
    for (const [workspaceId, resealed] of resealedBy) {
      // A user without a default workspace has secrets but nowhere to record them.
      if (workspaceId === '') continue;
      await recordAudit(trx, {
        workspaceId,
        actor: options.actor ?? { type: 'cli', id: null },
        action: 'app_key.rotated',
        metadata: { resealed },
      });
    }
    const resealed = [...resealedBy.values()].reduce((sum, count) => sum + count, 0);
    return { resealed, alreadyCurrent, workspaces: [...resealedBy.keys()].filter(Boolean).length };
  });
}
