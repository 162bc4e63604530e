import { join } from 'node:path';
import { type Kysely, sql, type Transaction } from 'kysely';
import {
  APP_KEY_FILE,
  APP_KEY_NEXT_FILE,
  APP_KEY_PREVIOUS_FILE,
  commitStagedAppKey,
  discardStagedAppKey,
  ensureAppKey,
  formatAppKey,
  generateAppKey,
  readStagedAppKey,
  stageAppKey,
} from '../../config/app-key.js';
import { type Config, decodeAppKey } from '../../config/config.js';
import { DataDirLockedError, lockDataDir } from '../../db/data-dir-lock.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { createSecretKeyring, type SecretKeyring } from '../../security/secret-keyring.js';
import { SQL_PASSWORD_PURPOSE } from '../../sql-source/sql-password.js';
import { LLM_KEY_PURPOSE } from '../accounts/llm-keys.js';
import { RECOVERY_CODES_PURPOSE, TOTP_SECRET_PURPOSE } from '../accounts/two-factor.js';
import { recordAudit } from '../audit.js';
import type { Actor } from '../context.js';
import { WEBHOOK_SECRET_PURPOSE } from './webhooks.js';

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

/** The outcome of `key:rotate`, as the CLI prints it. */
export type KeyRotationResult = {
  store: 'embedded' | 'postgres';
  resealed: number;
  already_current: number;
  workspaces: number;
  /** The generated key when the operator must store it (never the old key); null otherwise. */
  new_key: string | null;
  /** Where the new key was written (embedded store without APP_KEY in the environment). */
  key_file: string | null;
  previous_key_file: string | null;
  /** True when it finished a rotation an earlier run left staged in `app.key.next`. */
  resumed: boolean;
  next_steps: string[];
};

/**
 * `key:rotate`: re-seals every stored secret with a new APP_KEY (`newKey`, or a generated one;
 * with APP_KEY_PREVIOUS set and no `newKey`, APP_KEY itself, finishing a rollover). On the
 * embedded store it refuses while the service holds DATA_DIR, and without APP_KEY in the
 * environment it moves `app.key` to `app.key.previous` and installs the new key, after the
 * commit. `openDatabase` opens (and migrates) the store for the given config.
 */
export async function rotateAppKey(options: {
  config: Config;
  newKey?: string | undefined;
  openDatabase: (config: Config) => Promise<Database>;
  warn: (message: string) => void;
  random?: (size: number) => Buffer;
}): Promise<KeyRotationResult> {
  const { config, warn } = options;
  const given = options.newKey === undefined ? null : decodeAppKey(options.newKey);
  if (given === null && options.newKey !== undefined) {
    throw new KeyRotationError(
      '--new-key must be base64:<32 bytes in base64>; omit it to generate one (`key:generate` prints one).',
    );
  }
  const embedded = config.database.mode === 'embedded';
  const usesKeyFile = embedded && !config.appKey;
  const dataDir = config.dataDir;
  let release: (() => Promise<void>) | null = null;
  if (embedded) {
    try {
      release = await lockDataDir(dataDir, () => warn('lost the DATA_DIR lock during key:rotate'));
    } catch (error) {
      if (!(error instanceof DataDirLockedError)) throw error;
      throw new KeyRotationError(
        `The service is running on DATA_DIR ${dataDir}: stop it first, then run key:rotate again. ` +
          'The rotation does not go through the running service, which would keep using the old key.',
      );
    }
  }
  try {
    const withKey = await ensureAppKey(config, warn, options.random);
    const current = withKey.appKey;
    if (!current) throw new KeyRotationError('APP_KEY is not loaded: there is no key to rotate.');
    const previous = config.appKeyPrevious;
    let staged = usesKeyFile ? await readStagedAppKey(dataDir) : null;
    if (staged?.equals(current)) {
      await discardStagedAppKey(dataDir);
      staged = null;
    }
    if (staged && given && !staged.equals(given)) {
      throw new KeyRotationError(
        `An interrupted rotation left its new key in ${join(dataDir, APP_KEY_NEXT_FILE)}: run key:rotate ` +
          'without --new-key to finish it first.',
      );
    }
    const generated = !staged && !given && !previous;
    const target = staged ?? given ?? (previous ? current : newAppKey(options.random));
    if (target.equals(current) && !previous) {
      throw new KeyRotationError(
        'The new key is the current APP_KEY: nothing to rotate. To finish a rollover, set APP_KEY to ' +
          'the new key and APP_KEY_PREVIOUS to the old one.',
      );
    }
    const rotatesFile = usesKeyFile && !target.equals(current);
    // Staged before the transaction: if the process dies after the commit, the key is not lost.
    if (rotatesFile && !staged) await stageAppKey(dataDir, target);
    let counts: ResealCounts;
    try {
      const database = await options.openDatabase(withKey);
      try {
        counts = await resealSecrets({
          db: database.db,
          from: createSecretKeyring(current, previous),
          to: target,
        });
      } finally {
        await database.close();
      }
    } catch (error) {
      if (rotatesFile && !staged) await discardStagedAppKey(dataDir).catch(() => {});
      throw error;
    }
    if (rotatesFile) await commitStagedAppKey(dataDir, current);
    return {
      store: embedded ? 'embedded' : 'postgres',
      resealed: counts.resealed,
      already_current: counts.alreadyCurrent,
      workspaces: counts.workspaces,
      new_key: generated && !usesKeyFile ? formatAppKey(target) : null,
      key_file: rotatesFile ? join(dataDir, APP_KEY_FILE) : null,
      previous_key_file: rotatesFile ? join(dataDir, APP_KEY_PREVIOUS_FILE) : null,
      resumed: staged !== null,
      next_steps: nextSteps({
        embedded,
        usesKeyFile,
        generated,
        dataDir,
        sameKey: target.equals(current),
        previous: Boolean(previous),
      }),
    };
  } finally {
    await release?.();
  }
}

function newAppKey(random?: (size: number) => Buffer): Buffer {
  const key = decodeAppKey(generateAppKey(random));
  if (!key) throw new KeyRotationError('the random source did not give a 32-byte key');
  return key;
}

/** What the operator does next, per store and key source. */
function nextSteps(state: {
  embedded: boolean;
  usesKeyFile: boolean;
  generated: boolean;
  dataDir: string;
  sameKey: boolean;
  previous: boolean;
}): string[] {
  const dropPrevious = 'Remove APP_KEY_PREVIOUS from the environment: no stored secret needs it any more.';
  if (state.sameKey)
    return [`Every secret is sealed with APP_KEY now. ${dropPrevious} Then restart the instances.`];
  const newKey = state.generated ? 'the new key printed above' : 'the key given with --new-key';
  if (state.usesKeyFile) {
    return [
      `The new key is in ${join(state.dataDir, APP_KEY_FILE)}, the old one in ` +
        `${join(state.dataDir, APP_KEY_PREVIOUS_FILE)} (both mode 0600). Back up the new app.key, then start the service.`,
      ...(state.previous ? [dropPrevious] : []),
    ];
  }
  if (state.embedded) {
    return [
      `Set APP_KEY to ${newKey} before starting the service: the old key no longer opens the stored secrets.`,
      ...(state.previous ? [dropPrevious] : []),
    ];
  }
  return [
    `On every instance set APP_KEY to ${newKey} and APP_KEY_PREVIOUS to the old APP_KEY, and restart it.`,
    'Then run `npm run cli -- key:rotate` again with that environment: it re-seals what instances still on the old key wrote meanwhile.',
    'Then remove APP_KEY_PREVIOUS and restart the instances.',
  ];
}
