import { join } from 'node:path';
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
} from '../config/app-key.js';
import { type Config, decodeAppKey } from '../config/config.js';
import { DataDirLockedError, lockDataDir } from '../db/data-dir-lock.js';
import type { Database } from '../db/database.js';
import { createSecretKeyring } from '../security/secret-keyring.js';
import { KeyRotationError, type ResealCounts, resealSecrets } from '../services/sealed-secrets.js';

// `key:rotate` as the CLI runs it: the DATA_DIR lock, staging the new key file so a crash after
// the commit loses nothing, and what the operator does next. What gets re-sealed, and how, is
// the registry in services/sealed-secrets.ts.

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
